"""The text part of the snippet editor: Textual's code editor, able to mark the line a run failed on.

Its own module so that ``TextArea`` (and its documents) is imported only when the first snippet opens.
"""

from __future__ import annotations

from typing import cast

from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.strip import Strip
from textual.widgets import TextArea
from textual.widgets.text_area import LanguageDoesNotExist


class SnippetTextArea(TextArea):
    """A code editor that can mark one line (1-based ``error_line``) in its gutter with ``▶``."""

    COMPONENT_CLASSES = TextArea.COMPONENT_CLASSES | {"snippet-text--error-line", "snippet-text--linked-line"}
    DEFAULT_CSS = """
    SnippetTextArea > .snippet-text--error-line {
        background: $error;
        color: $text;
        text-style: bold;
    }
    SnippetTextArea > .snippet-text--linked-line {
        color: $accent;
        text-style: bold;
    }
    """

    error_line: int | None = None
    marked_text: str = ""
    """The text when the line was marked: once the text differs, the mark may point at another line."""
    start_cursor: tuple[int, int] | None = None
    """Where the cursor goes once mounted (a text area made with its text moves its cursor then)."""
    # Replaced whole by show_lines, never changed in place: the class's empty dict is never written.
    line_notes: dict[int, Text] = {}
    """Per line (1-based), its kernels (``kernel_tui.ui.code_gutter``), written at the right end of the line where
    the line leaves room."""
    linked_lines: frozenset[int] = frozenset()
    """Lines the highlighted kernel row came from: their numbers are marked ``❱``."""

    def on_mount(self) -> None:
        if self.error_line is not None:
            self.go_to_mark()
        elif self.start_cursor is not None:
            self.move_cursor(self.start_cursor)

    async def _on_key(self, event: events.Key) -> None:
        """Enter keeps the line's indent, one level more after a ``:`` (``def f(x):``), as code editors do:
        without it every line of a helper's body had to be indented by hand."""
        if event.key != "enter" or self.read_only:
            await super()._on_key(event)
            return
        event.stop()
        event.prevent_default()
        start, end = self.selection
        row, column = min(start, end)
        before = self.document.get_line(row)[:column]
        indent = before[: len(before) - len(before.lstrip())]
        if before.rstrip().endswith(":"):
            indent += " " * self.indent_width
        self._replace_via_keyboard("\n" + indent, start, end)

    def mark_line(self, line: int | None) -> None:
        """Mark ``line`` (1-based; None: no mark)."""
        if line is not None and not 1 <= line <= self.document.line_count:
            line = None
        self.marked_text = self.text
        if line == self.error_line:
            return
        self.error_line = line
        self.refresh()

    def go_to_mark(self) -> None:
        """Put the cursor at the start of the marked line, in view."""
        if self.error_line is not None:
            self.move_cursor((self.error_line - 1, 0))
            self.scroll_cursor_visible(center=True)

    def show_lines(self, notes: dict[int, Text], linked: frozenset[int]) -> None:
        """The kernels of each line, and the lines of the highlighted kernel (1-based)."""
        if (notes, linked) != (self.line_notes, self.linked_lines):
            self.line_notes, self.linked_lines = notes, linked
            self.refresh()

    def render_line(self, y: int) -> Strip:
        strip = self._render_with_error_mark(y)
        if self.soft_wrap or not (self.line_notes or self.linked_lines):
            return strip
        line = y + self.scroll_offset.y + 1
        if line > self.document.line_count:
            return strip
        if line in self.linked_lines and self.show_line_numbers:
            style = self.get_component_rich_style("snippet-text--linked-line")
            mark = Strip([Segment("❱", style)], 1)
            strip = Strip.join([mark, strip.crop(1, strip.cell_length)])
        note = self.line_notes.get(line)
        if note is None:
            return strip
        used = self.gutter_width + len(self.document.get_line(line - 1)) - self.scroll_offset.x
        room = self.scrollable_content_region.width - used - 3
        if room < len(note.plain):
            return strip  # the code comes first; the kernel table and its full-name line say the rest
        start = self.scrollable_content_region.width - len(note.plain)
        segments = list(note.render(self.app.console))
        return Strip.join([strip.crop(0, start), Strip(segments, len(note.plain))])

    def _render_with_error_mark(self, y: int) -> Strip:
        strip = super().render_line(y)
        line = self.error_line
        # Without soft wrap (a code editor), row y shows document line y + scroll: no wrapping to map.
        if line is None or not self.show_line_numbers or self.soft_wrap or y + self.scroll_offset.y != line - 1:
            return strip
        width = self.gutter_width
        style = self.get_component_rich_style("snippet-text--error-line")
        gutter = Strip([Segment(f"▶{line:>{width - 2}} ", style)], width)
        return Strip.join([gutter, strip.crop(width, strip.cell_length)])


def code_editor(text: str = "", *, id: str | None = None) -> SnippetTextArea:
    """Textual's code editor settings, Python highlighting when tree-sitter has a Python grammar."""
    # Textual's classmethod builds ``cls`` but is typed as returning a plain TextArea.
    try:
        return cast(SnippetTextArea, SnippetTextArea.code_editor(text, language="python", id=id))
    except LanguageDoesNotExist:
        return cast(SnippetTextArea, SnippetTextArea.code_editor(text, id=id))
