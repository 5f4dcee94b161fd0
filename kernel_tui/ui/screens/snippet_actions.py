"""The explorer's keys for the learner's own code, and the editor's messages: a part the explorer holds.

``SnippetActions`` answers the editor's keys (``SNIPPET_ACTIONS``) and the ``SnippetEditor``'s messages by calling
the ``SnippetWorkbench``, and holds the size every run asks for (``z``), which is the header's title. It is not a
half of the screen: the explorer builds one with the few things it needs (the screen, for its title, its notices and
the widget Esc lands on; the layout; the workbench) and hands it those keys and messages. Textual looks a key's
action up on the screen (``app``, ``screen`` and ``focused`` are a binding's only namespaces) and a message bubbles
up the widgets, which a plain object is not among, so the screen keeps a one-line ``action_`` or ``on_`` method
for each that hands it on here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.screen import Screen

    from kernel_tui.ui.screens.explorer_layout import ExplorerLayout
    from kernel_tui.ui.screens.snippets import SnippetWorkbench


class SnippetActions:
    """The editor's keys and messages, answered by the workbench, and the size every run asks for."""

    def __init__(
        self, screen: Screen[Any], layout: ExplorerLayout, workbench: SnippetWorkbench, app_title: str
    ) -> None:
        self._screen = screen
        """Whose header says the size, who tells the learner, and where Esc leaves the editor to."""
        self._layout = layout
        self._workbench = workbench
        self._app_title = app_title
        self._run_size: int | None = None

    @property
    def run_size(self) -> int | None:
        """The size every run asks for; None: each scenario's own SIZE. It is the header's title."""
        return self._run_size

    @run_size.setter
    def run_size(self, size: int | None) -> None:
        self._run_size = size
        self._screen.title = None if size is None else f"{self._app_title} · size {size:,}"
        self._workbench.show_titles()

    def leave_editor(self) -> None:
        """Esc in the editor: out of the text to where the explorer's keys work, the editor still in view: on a
        large terminal the scenario list, on a small one the tab bar, the editor's tab still shown."""
        from textual.widgets import Tabs

        landing = self._screen.query("#scenarios" if self._layout.wide else Tabs)
        if landing:
            landing.first().focus()

    def set_size(self) -> None:
        """Ask for the size every run uses (empty: each scenario's own SIZE)."""
        self._workbench.ask_size(self._size_chosen)

    def _size_chosen(self, size: int | None) -> None:
        self.run_size = size
        self._screen.notify("Runs use each scenario's own SIZE" if size is None else f"Runs use size {size:,}")

    def new_snippet(self) -> None:
        """A new snippet from the template, the cursor on its expression."""
        self._workbench.new_snippet()

    def edit_scenario(self) -> None:
        """Edit the scenario on screen (a course scenario: a copy of it)."""
        self._workbench.edit_scenario()

    def copy_scenario(self) -> None:
        """The scenario's code in a new snippet that edits no file yet."""
        self._workbench.copy_scenario()

    def open_file(self) -> None:
        """Ask for a scenario file's path, then edit it."""
        self._workbench.open_file()

    def run_snippet(self, sweep: bool) -> None:
        """Run the editor's snippet, as r (or s) runs any scenario."""
        self._workbench.run_snippet(sweep)

    def save_snippet(self) -> None:
        """Save to the file the editor edits; the first time, ask where."""
        self._workbench.save_snippet()

    def save_snippet_as(self) -> None:
        """Ask for a path and save there."""
        self._workbench.save_snippet_as()

    def show_editor(self) -> None:
        """Show the editor and focus it; with nothing open, a new snippet."""
        self._workbench.show_editor()

    def restore_drafts(self) -> None:
        """Offer the unsaved drafts from before."""
        self._workbench.restore_drafts()

    # -- the editor's messages ---------------------------------------------------------------------

    def editor_ready(self) -> None:
        """The editor's text area mounted (late): it is filled with the document open."""
        self._workbench.fill_editor()

    def edited(self, text: str, cursor: tuple[int, int]) -> None:
        self._workbench.edited(text, cursor)

    def entered(self) -> None:
        self._workbench.entered()

    def left(self) -> None:
        self._workbench.left()
