"""The explorer's keys for the learner's own code, and the editor's messages: all handed to the workbench.

``SnippetActions`` is the half of ``ExplorerScreen`` that answers the editor's keys (``SNIPPET_ACTIONS``) and
the ``SnippetEditor``'s messages by calling the ``SnippetWorkbench``, and that holds the size every run asks
for (``z``), which is the header's title.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from textual.screen import Screen
from textual.widget import Widget

from kernel_tui.ui.screens.focus_staying import FocusOnStayingWidgets
from kernel_tui.ui.screens.latest_size import LatestSizeOnly
from kernel_tui.ui.widgets.snippet_editor import SnippetEditor

if TYPE_CHECKING:
    from textual.widgets import TextArea

    from kernel_tui.ui.screens.explorer_layout import ExplorerLayout
    from kernel_tui.ui.screens.snippets import SnippetWorkbench
    from kernel_tui.ui.state.explorer_state import ExplorerState
    from kernel_tui.ui.view.shown import Shown

W = TypeVar("W", bound=Widget)


class SnippetActions(LatestSizeOnly, FocusOnStayingWidgets, Screen[None]):
    """The editor's half of ``ExplorerScreen``."""

    snippets: SnippetWorkbench
    panes_layout: ExplorerLayout

    def action_leave_editor(self) -> None:
        """Esc in the editor: out of the text to where the explorer's keys work, the editor still in view: on a
        large terminal the scenario list, on a small one the tab bar, the editor's tab still shown."""
        from textual.widgets import Tabs

        landing = self.query("#scenarios" if self.panes_layout.wide else Tabs)
        if landing:
            landing.first().focus()

    state: ExplorerState
    app_title: str
    _run_size: int | None = None

    def _find(self, selector: str, expect: type[W]) -> W | None:
        raise NotImplementedError  # the explorer's

    def _show_panes(self, old: Shown | None) -> None:
        raise NotImplementedError  # the explorer's

    def editor_pane(self) -> SnippetEditor | None:
        return self._find("#editor", SnippetEditor)

    @property
    def run_size(self) -> int | None:
        """The size every run asks for; None: each scenario's own SIZE. It is the header's title."""
        return self._run_size

    @run_size.setter
    def run_size(self, size: int | None) -> None:
        self._run_size = size
        self.title = None if size is None else f"{self.app_title} · size {size:,}"
        self.snippets.show_titles()

    def action_set_size(self) -> None:
        """Ask for the size every run uses (empty: each scenario's own SIZE)."""
        self.snippets.ask_size(self._set_run_size)

    def _set_run_size(self, size: int | None) -> None:
        self.run_size = size
        self.notify("Runs use each scenario's own SIZE" if size is None else f"Runs use size {size:,}")

    def action_new_snippet(self) -> None:
        """A new snippet from the template, the cursor on its expression."""
        self.snippets.new_snippet()

    def action_edit_scenario(self) -> None:
        """Edit the scenario on screen (a course scenario: a copy of it)."""
        self.snippets.edit_scenario()

    def action_copy_scenario(self) -> None:
        """The scenario's code in a new snippet that edits no file yet."""
        self.snippets.copy_scenario()

    def action_open_file(self) -> None:
        """Ask for a scenario file's path, then edit it."""
        self.snippets.open_file()

    def action_run_snippet(self, sweep: bool) -> None:
        """Run the editor's snippet, as r (or s) runs any scenario."""
        self.snippets.run_snippet(sweep)

    def action_save_snippet(self) -> None:
        """Save to the file the editor edits; the first time, ask where."""
        self.snippets.save_snippet()

    def action_save_snippet_as(self) -> None:
        """Ask for a path and save there."""
        self.snippets.save_snippet_as()

    def action_show_editor(self) -> None:
        """Show the editor and focus it; with nothing open, a new snippet."""
        self.snippets.show_editor()

    def action_restore_drafts(self) -> None:
        """Offer the unsaved drafts from before."""
        self.snippets.restore_drafts()

    def on_snippet_editor_ready(self, message: SnippetEditor.Ready) -> None:
        self.snippets.fill_editor()
        self._show_panes(None)  # its text area mounts late: the gutter's notes and marks are its slice

    def on_snippet_editor_edited(self, message: SnippetEditor.Edited) -> None:
        self.snippets.edited(message.text, message.cursor)

    def on_text_area_selection_changed(self, event: TextArea.SelectionChanged) -> None:
        # By the handler's name: TextArea is imported with the first snippet, not on the first frame.
        if event.text_area.id == "snippet-text":
            self.state = self.state.editor_line_moved(event.selection.end[0] + 1)

    def on_snippet_editor_entered(self, message: SnippetEditor.Entered) -> None:
        self.snippets.entered()

    def on_snippet_editor_left(self, message: SnippetEditor.Left) -> None:
        self.snippets.left()
