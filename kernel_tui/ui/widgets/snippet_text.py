"""The text part of the snippet editor: Textual's code editor, able to mark the line a run failed on.

Its own module so that ``TextArea`` (and its documents) is imported only when the first snippet opens.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.reactive import var
from textual.strip import Strip
from textual.widgets import TextArea
from textual.widgets.text_area import LanguageDoesNotExist

from kernel_tui.ui.view.code_gutter import all_cell_texts, gutter_cell, gutter_width

if TYPE_CHECKING:
    from kernel_tui.text.by_line import LineWork
    from kernel_tui.text.line_changes import LineChange
    from kernel_tui.ui.view.code_links import CodeLinks

MARK_WIDTH = 1
"""The gutter's column for a line's mark, between its note and its number: never over a digit."""
ERROR_MARK = "▶"
"""The line a run failed on."""
LINKED_MARK = "❱"
"""A line the highlighted kernel row came from."""


class SnippetTextArea(TextArea):
    """A code editor whose gutter holds, beside its line numbers, each line's kernels and marks: ``▶`` on the line
    a run failed on (1-based ``error_line``), ``❱`` on the highlighted kernel's lines."""

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

    code: var[CodeLinks | None] = var(None, init=False)
    """The code's links the explorer hands the editor (``kernel_tui.ui.view.code_links``): its gutter shows their
    work and linked lines while it holds the scenario shown, nothing otherwise."""

    error_line: int | None = None
    marked_text: str = ""
    """The text when the line was marked: once the text differs, the mark may point at another line."""
    start_cursor: tuple[int, int] | None = None
    """Where the cursor goes once mounted (a text area made with its text moves its cursor then)."""
    # Replaced whole by show_lines, never changed in place: the class's empty dicts are never written.
    line_work: dict[int, list[LineWork]] = {}
    """Per line (1-based), the latest run's work: the notes column of the gutter
    (``kernel_tui.ui.view.code_gutter``)."""
    line_changes: dict[int, LineChange] = {}
    """Per line, its work against the pinned baseline's; empty without one."""
    linked_lines: frozenset[int] = frozenset()
    """Lines the highlighted kernel row came from: marked ``❱`` in the gutter's mark column."""
    _open_top: int | None = None
    """The row to bring to the top once the text area has its size (``open_at``)."""
    _notes_width_of: tuple[dict[int, list[LineWork]], dict[int, LineChange], int, int] | None = None

    def on_mount(self) -> None:
        if self.error_line is not None:
            self.go_to_mark()
        elif self.start_cursor is not None:
            self.open_at(self.start_cursor)

    def open_at(self, cursor: tuple[int, int]) -> None:
        """Put the cursor at ``cursor`` with its line at the top of the view: a course copy opened on ``def fn``
        shows ``fn`` whole, not the file's docstring with ``fn`` below the fold."""
        self.move_cursor(cursor)
        self._open_top = cursor[0]
        self.call_after_refresh(self._scroll_to_open_top)

    def on_resize(self) -> None:
        if self._open_top is not None:
            self.call_after_refresh(self._scroll_to_open_top)

    def _scroll_to_open_top(self) -> None:
        """The opening scroll, once the text area has its size: before that (a text area mounted by a layout
        change) the scroll is clamped to 0, and the cursor then only scrolled into view at the bottom."""
        if self._open_top is None or not self.scrollable_content_region.height:
            return
        self.scroll_to(y=self._open_top, animate=False, immediate=True)
        self._open_top = None

    async def _on_key(self, event: events.Key) -> None:
        """Enter keeps the line's indent, one level more after a ``:`` (``def f(x):``), as code editors do:
        without it every line of a helper's body had to be indented by hand. Esc leaves the editor
        (``leave_editor``)."""
        if event.key == "escape" and not self.read_only:
            # Textual's code editor moves the focus to the next widget, which on a large terminal is the chart
            # beside it: the screen decides where leaving the editor lands.
            event.stop()
            event.prevent_default()
            await self.run_action("screen.leave_editor")
            return
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

    def watch_code(self, links: CodeLinks | None) -> None:
        if links is not None and links.in_editor:
            self.show_lines(links.work, links.changes, links.linked)
        else:
            self.show_lines({}, {}, frozenset())

    def show_lines(
        self, work: dict[int, list[LineWork]], changes: dict[int, LineChange], linked: frozenset[int]
    ) -> None:
        """The work of each line, against the baseline's with ``changes``, and the lines of the highlighted kernel
        (1-based)."""
        if work is self.line_work and changes is self.line_changes and linked == self.linked_lines:
            return
        self.line_work, self.line_changes, self.linked_lines = work, changes, linked
        # The gutter's width may change with the notes: Textual re-measures the text's offsets from it.
        self._rewrap_and_refresh_virtual_size()
        self.refresh()

    @property
    def notes_width(self) -> int:
        """The notes column's width: the longest note that fits a third of the editor (``code_gutter``), 0 with
        no notes or no line numbers."""
        if not self.show_line_numbers or not (self.line_work or self.line_changes):
            return 0
        # Asked for on every row drawn and every cursor move: worked out once per work shown and width.
        work, changes, width = self.line_work, self.line_changes, self.size.width
        known = self._notes_width_of
        if known is None or known[0] is not work or known[1] is not changes or known[2] != width:
            known = self._notes_width_of = (work, changes, width, gutter_width(work, width, changes))
        return known[3]

    @property
    def gutter_width(self) -> int:
        """Textual's line numbers and their margin, after the notes column and the mark column (``❱``, ``▶``):
        widened here, so that Textual places the text, the cursor and mouse clicks after them."""
        numbers = super().gutter_width
        if not numbers:
            return 0
        notes = self.notes_width
        return (notes + 1 if notes else 0) + MARK_WIDTH + numbers

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        # Without soft wrap (a code editor), row y shows document line y + scroll: no wrapping to map.
        line = y + self.scroll_offset.y + 1
        if not self.show_line_numbers or self.soft_wrap or line > self.document.line_count:
            return strip
        notes = self.notes_width
        head = notes + 1 if notes else 0
        numbers_from = head + MARK_WIDTH
        gutter_end = self.gutter_width
        if line == self.error_line:
            style = self.get_component_rich_style("snippet-text--error-line")
            number = Strip([Segment(f"{ERROR_MARK}{line:>{gutter_end - numbers_from - 2}}  ", style)])
            return Strip.join([self._notes_cell(line, head), number, strip.crop(gutter_end, strip.cell_length)])
        if line in self.linked_lines:
            mark = Strip([Segment(LINKED_MARK, self.get_component_rich_style("snippet-text--linked-line"))], 1)
        else:
            mark = strip.crop(head, numbers_from)
        if not head and line not in self.linked_lines:
            return strip
        return Strip.join([self._notes_cell(line, head), mark, strip.crop(numbers_from, strip.cell_length)])

    def _notes_cell(self, line: int, head: int) -> Strip:
        """The notes column of ``line``'s row and the space after it (``head`` cells): its note, fitted."""
        if not head:
            return Strip([], 0)
        width = head - 1
        work, change = self.line_work.get(line, []), self.line_changes.get(line)
        texts = all_cell_texts(self.line_work, self.line_changes)
        cell = gutter_cell(work, width, change, texts.get(line)) if line in texts else Text("")
        cell.pad_right(width - cell.cell_len)
        base = self.get_component_rich_style("text-area--gutter")
        return Strip(list(cell.render(self.app.console)), width).apply_style(base).extend_cell_length(head, base)


def code_editor(text: str = "", *, id: str | None = None) -> SnippetTextArea:
    """Textual's code editor settings, Python highlighting when tree-sitter has a Python grammar."""
    # Textual's classmethod builds ``cls`` but is typed as returning a plain TextArea.
    try:
        return cast(SnippetTextArea, SnippetTextArea.code_editor(text, language="python", id=id))
    except LanguageDoesNotExist:
        return cast(SnippetTextArea, SnippetTextArea.code_editor(text, id=id))
