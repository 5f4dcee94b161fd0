"""The snippet editor pane: a Python code editor for the learner's own scenario, and one line under it.

A view only: the snippet session owns the document (``kernel_tui.ui.state.snippets.snippet_doc``) and the explorer tells
this pane what to show; the pane reports edits and focus changes as messages. The line a run failed on is marked
in the line-number gutter (``▶``, in the error colour) until the text changes; the one-line error sits
under the text. Esc leaves the editor (Textual's code editor moves focus on), keeping everything typed.
The text area itself (``snippet_text``) is imported and mounted with the first document.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.events import DescendantBlur, DescendantFocus
from textual.message import Message
from textual.widgets import Static

from kernel_tui.ui.widgets.steady_static import SteadyStatic

if TYPE_CHECKING:
    from textual.widgets import TextArea

    from kernel_tui.ui.widgets.snippet_text import SnippetTextArea

DETAILS_KEY = "ctrl+t"
"""The details of the latest run (the traceback) from inside the editor, where letters are typed."""
DETAILS_KEY_SHOWN = "^t"
"""As the editor's title bar writes keys (``^r run``)."""

EMPTY_TEXT = (
    "No snippet open.\n\n"
    "ctrl+n  a new snippet, from a template: (a + b).relu()\n"
    "e       edit the scenario highlighted in the list (a course scenario: a copy of it)\n"
    "ctrl+o  open a scenario file by its path\n\n"
    "A snippet can be a bare expression: its last line is measured, and a, b, c, x, y, z are tensors."
)


class SnippetEditor(Vertical):
    """The editor pane: the document's text, or what the keys do while none is open."""

    BINDINGS = [
        # The screen's actions; bound here too so that the footer shows them while the editor has focus.
        Binding("ctrl+r", "screen.run_snippet(False)", "Run", tooltip="Run the snippet"),
        Binding("ctrl+s", "screen.save_snippet", "Save", tooltip="Save the snippet as a scenario file"),
        # d types a "d" here; the error note under the text names this key instead.
        Binding(DETAILS_KEY, "screen.details", "Details", show=False, tooltip="The latest run's details"),
        # ? types a "?" here: the footer offers F1 instead (the app hides its "? Help" while the text has focus).
        Binding("f1", "app.help_in_editor", "Help", key_display="F1", tooltip="List every key"),
    ]

    @dataclass
    class Ready(Message):
        """The pane is mounted (first start, or after a layout change): the screen fills it in."""

    @dataclass
    class Edited(Message):
        """The learner changed the text (or moved the cursor with it)."""

        text: str
        cursor: tuple[int, int]

    @dataclass
    class Entered(Message):
        """Focus went into the editor."""

    @dataclass
    class Left(Message):
        """Focus left the editor (Esc, Tab, a click elsewhere, a dialog): a moment to write the draft."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Editor"

    def compose(self) -> ComposeResult:
        yield Static(Text(EMPTY_TEXT), id="editor-empty")
        yield SteadyStatic(id="editor-note")

    def on_mount(self) -> None:
        self.post_message(self.Ready())

    @property
    def text_area(self) -> SnippetTextArea | None:
        """The text area, once a document has been shown."""
        found = self.query("#snippet-text")
        # Queried by id: the text area's class is imported only once a document is first shown.
        return cast("SnippetTextArea", found.first()) if found else None

    def show_document(self, text: str, *, cursor: tuple[int, int], title: str, subtitle: str, note: Text) -> None:
        """Show a document. The text is loaded only if it differs, so the undo history survives."""
        self.query_one("#editor-empty").display = False
        text_area = self.text_area
        if text_area is None:
            from kernel_tui.ui.widgets.snippet_text import code_editor

            text_area = code_editor(text, id="snippet-text")
            text_area.start_cursor = cursor
            self.mount(text_area, before=self.query_one("#editor-note"))
        elif text_area.text != text:
            text_area.display = True
            text_area.load_text(text)
            text_area.open_at(cursor)
        text_area.display = True
        self.border_title = Content(title)
        self.border_subtitle = Content(subtitle)
        self.show_note(note)

    def show_empty(self, subtitle: str) -> None:
        """No document: say which keys open one."""
        self.query_one("#editor-empty").display = True
        if (text_area := self.text_area) is not None:
            text_area.display = False
            text_area.mark_line(None)
        self.border_title = "Editor"
        self.border_subtitle = Content(subtitle)
        self.show_note(Text(""))

    def show_note(self, note: Text) -> None:
        """The line under the text: the latest run's error, or where the text is saved."""
        note.no_wrap = True
        note.overflow = "ellipsis"
        self.query_one("#editor-note", SteadyStatic).show_content(note)

    def set_titles(self, title: str, subtitle: str) -> None:
        self.border_title = Content(title)
        self.border_subtitle = Content(subtitle)

    def mark_error(self, line: int | None) -> None:
        """Mark the line a run failed on and put the cursor there (the text itself is left alone)."""
        text_area = self.text_area
        if text_area is None:
            return
        had = text_area.error_line
        text_area.mark_line(line)
        if text_area.error_line is not None and text_area.error_line != had and text_area.is_mounted:
            text_area.go_to_mark()  # (one not mounted yet goes there when it is)

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        text_area = self.text_area  # the event's, typed as the snippet editor's own kind
        if text_area is None or text_area is not event.text_area:
            return
        if text_area.error_line is not None and text_area.text != text_area.marked_text:
            text_area.mark_line(None)  # the marked line may have moved: the note under the text stays
        self.post_message(self.Edited(text_area.text, text_area.cursor_location))

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        self.post_message(self.Entered())

    def on_descendant_blur(self, event: DescendantBlur) -> None:
        self.post_message(self.Left())
