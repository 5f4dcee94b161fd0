"""Two-way links between the code and the kernel tables, for the explorer.

Every run fills the code's gutter (the lesson pane's code, and the snippet editor while it holds the scenario
shown) with each line's work; the cursor on a kernel row marks the lines that row came from, in both; the
cursor on a line of the editor marks that line's kernels in both tables and says under them what the line
launched and what it became, or that its work vanished compiled.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from rich.text import Text

from kernel_tui.by_line import describe, gutter_text, line_work
from kernel_tui.ui.code_gutter import gutter_cell
from kernel_tui.ui.widgets.kernel_table import KernelTable
from kernel_tui.ui.widgets.lesson_view import LessonView

if TYPE_CHECKING:
    from kernel_tui.by_line import LineWork
    from kernel_tui.report import Kernel, ScenarioReport
    from kernel_tui.ui.widgets.snippet_text import SnippetTextArea

W = TypeVar("W")
Find = Callable[[str, type[W]], W | None]

EDITOR_NOTE_WIDTH = 24
"""The most an editor line's note takes at its right end: the code keeps the rest."""


class CodeLinks:
    """What the code shows of the latest run, and which lines and rows are linked now."""

    def __init__(self) -> None:
        self.work: dict[int, list[LineWork]] = {}
        self.linked: frozenset[int] = frozenset()
        """The highlighted kernel row's lines."""
        self.code_line: int | None = None
        """The editor's cursor line, while it holds the scenario shown."""
        self.speaking = False
        """The line under the tables tells of ``code_line`` (until a table's cursor moves)."""

    def show(self, find: Find[Any], report: ScenarioReport | None, kernel: Kernel | None, editing: bool) -> None:
        """After every report and cursor move in a table: the gutter, and the highlighted kernel's lines. The
        compiled side is what the compiled table shows (the selected variant's kernels, once one is chosen)."""
        eager, compiled = (report.eager, report.compiled) if report is not None else (None, None)
        if report is not None and (table := find("#compiled", KernelTable)) is not None:
            compiled = table.result
        self.work = line_work(eager, compiled) if report is not None else {}
        self.linked = frozenset(kernel.lines) if kernel is not None else frozenset()
        if lesson := find("#lesson", LessonView):
            lesson.show_work(self.work, self.linked)
        text_area = _text_area(find)
        if text_area is not None:
            notes = {line: gutter_cell(parts, EDITOR_NOTE_WIDTH) for line, parts in self.work.items()}
            text_area.show_lines(notes if editing else {}, self.linked if editing else frozenset())
        if not editing:
            self.code_line, self.speaking = None, False
        for table in _tables(find):
            table.mark_line(self.code_line)

    def code_line_moved(self, find: Find[Any], line: int) -> Text:
        """The editor's cursor is on ``line`` (1-based): mark its kernels; what to say about it."""
        # A quiet line leaves the line under the tables to the highlighted kernel.
        self.code_line, self.speaking = line, line in self.work
        for table in _tables(find):
            table.mark_line(line)
        return self.line_story(line)

    def story(self) -> Text | None:
        """What the line under the tables says of the editor's cursor line, while it tells of it."""
        return self.line_story(self.code_line) if self.speaking and self.code_line is not None else None

    def line_story(self, line: int) -> Text:
        parts = self.work.get(line, [])
        if not parts:
            return Text(f"line {line} launches nothing", style="dim")
        text = Text(f"line {line} › ", style="bold")
        text.append(" · ".join(describe(part) for part in parts))
        if any(part.vanished for part in parts):
            text.append("  (compiled, this line's work vanished)", style="yellow")
        return text

    def gutter(self, line: int, width: int) -> str:
        """The gutter's text for ``line`` (tests read this)."""
        return gutter_text(self.work.get(line, []), width)


def _tables(find: Find[Any]) -> list[KernelTable]:
    return [table for mode in ("#eager", "#compiled") if (table := find(mode, KernelTable))]


def _text_area(find: Find[Any]) -> SnippetTextArea | None:
    from textual.widget import Widget

    found = find("#snippet-text", Widget)
    if found is None or not hasattr(found, "show_lines"):
        return None
    return found
