"""Two-way links between the code and the kernel tables, for the explorer.

Every run fills the code's gutter (the lesson pane's code, and the snippet editor while it holds the scenario
shown) with each line's work, and with a baseline pinned (``B``) what changed against it; the cursor on a kernel
row marks the lines that row came from, in both; the cursor on a line of the editor, or the lesson's line cursor
(``j``/``k``), marks that line's kernels in both tables and says under them what the line launched and what it
became, or that its work vanished compiled, and what it was in the baseline.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

from rich.text import Text

from kernel_tui.model.baseline_marks import MARK_STYLES
from kernel_tui.text.by_line import describe, line_work
from kernel_tui.ui.code_gutter import cell_texts, fitted
from kernel_tui.ui.widgets.kernel_name import KernelNameLine
from kernel_tui.ui.widgets.kernel_table import KernelTable
from kernel_tui.ui.widgets.lesson_view import LessonView

if TYPE_CHECKING:
    from kernel_tui.model.kernel import Kernel
    from kernel_tui.model.mode_result import ModeResult
    from kernel_tui.model.report import ScenarioReport
    from kernel_tui.text.by_line import LineWork
    from kernel_tui.text.line_changes import LineChange
    from kernel_tui.ui.widgets.snippet_text import SnippetTextArea

W = TypeVar("W")
Find = Callable[[str, type[W]], W | None]


class CodeLinks:
    """What the code shows of the latest run, and which lines and rows are linked now."""

    def __init__(self) -> None:
        self.work: dict[int, list[LineWork]] = {}
        self.changes: dict[int, LineChange] = {}
        """Per line, its work against the pinned baseline's; empty without a baseline."""
        self.linked: frozenset[int] = frozenset()
        """The highlighted kernel row's lines."""
        self.code_line: int | None = None
        """The editor's cursor line while it holds the scenario shown, else the lesson's line cursor."""
        self.speaking = False
        """The line under the tables tells of ``code_line`` (until a table's cursor moves)."""
        self._worked_from: tuple[object, object, object] | None = None
        """The report, compiled side and baseline ``work`` and ``changes`` were worked out from."""
        self.unmeasured: str | None = "not run yet"
        """Why no line has work to tell of (no run yet, a run that failed before measuring); None once measured."""

    def show(
        self,
        find: Find[Any],
        report: ScenarioReport | None,
        compiled: ModeResult | None,
        kernel: Kernel | None,
        editing: bool,
        baseline: ScenarioReport | None = None,
    ) -> None:
        """After every report and cursor move in a table: the gutter, and the highlighted kernel's lines.
        ``compiled`` is the compiled side ``Shown`` gives the compiled table (the selected variant's kernels,
        once one is chosen), never read back from the table. ``baseline``: the pinned run the finished
        ``report`` is compared with, if any."""
        eager = report.eager if report is not None else None
        compiled = compiled if report is not None else None
        self.unmeasured = unmeasured(report)
        # Worked out once per run shown (a report, a variant, a baseline), not on every cursor move: the same
        # dictionaries are handed on, and the panes see at once that nothing of them changed.
        inputs = (report, compiled, baseline)
        if self._worked_from is None or any(a is not b for a, b in zip(inputs, self._worked_from, strict=True)):
            self._worked_from = inputs
            self.work = line_work(eager, compiled) if report is not None else {}
            self.changes = {}
            # As the compiled table does: a variant shown is compared with nothing (the baseline ran the default).
            if baseline is not None and report is not None and compiled is report.compiled:
                from kernel_tui.text.line_changes import aligned_lines, line_changes

                mapping = aligned_lines(baseline.source, report.source)
                self.changes = line_changes(baseline.eager, baseline.compiled, self.work, mapping)
        self.linked = frozenset(kernel.lines) if kernel is not None else frozenset()
        lesson = find("#lesson", LessonView)
        if lesson is not None:
            lesson.show_work(self.work, self.linked, self.changes)
        text_area = _text_area(find)
        if text_area is not None:
            if editing:
                text_area.show_lines(self.work, self.changes, self.linked)
            else:
                text_area.show_lines({}, {}, frozenset())
        lesson_line = lesson.cursor_line if lesson is not None else None
        if not editing and self.code_line != lesson_line:
            # Out of the editor (or on another scenario): the lesson's cursor line is the one the tables mark.
            self.code_line, self.speaking = lesson_line, False
        for table in _tables(find):
            table.mark_line(self.code_line)

    def lesson_line_moved(self, find: Find[Any], step: int) -> Text | None:
        """``j``/``k``: the lesson's line cursor to the next (1) or previous (-1) line with work, and the line
        under the tables says what it launched (returned too)."""
        lesson, said_on = find("#lesson", LessonView), find("#kernel-name", KernelNameLine)
        if lesson is None or said_on is None:
            return None
        line = lesson.move_cursor_line(step)
        if line is None:
            said = Text("No line of this code has launched a kernel yet: r runs it", style="dim")
        else:
            said = self.code_line_moved(find, line)
        said_on.say(said)
        return said

    def code_line_moved(self, find: Find[Any], line: int) -> Text:
        """The editor's cursor is on ``line`` (1-based): mark its kernels; what to say about it."""
        # A quiet line leaves the line under the tables to the highlighted kernel.
        self.code_line, self.speaking = line, self.has_story(line)
        for table in _tables(find):
            table.mark_line(line)
        return self.line_story(line)

    def story(self) -> Text | None:
        """What the line under the tables says of the editor's cursor line, while it tells of it."""
        # A new run's partial report may not have reached the line yet: the highlighted kernel speaks meanwhile.
        line = self.code_line
        return self.line_story(line) if self.speaking and line is not None and self.has_story(line) else None

    def has_story(self, line: int) -> bool:
        return line in self.work or line in self.changes

    def line_story(self, line: int) -> Text:
        parts = self.work.get(line, [])
        change = self.changes.get(line)
        against = change.story() if change is not None else ""
        if not parts and not against:
            if self.unmeasured is not None:  # "launches nothing" would be a measurement no run made
                return Text(f"line {line}: {self.unmeasured}", style="dim")
            return Text(f"line {line} launches nothing", style="dim")
        text = Text(f"line {line} › ", style="bold")
        text.append(" · ".join(describe(part) for part in parts) or "launches nothing now")
        if any(part.vanished for part in parts):
            text.append("  (compiled, this line's work vanished)", style="yellow")
        if change is not None and against:
            text.append(f"  {change.mark} {against}", style=MARK_STYLES[change.status])
        return text

    def gutter(self, line: int, width: int) -> str:
        """The gutter's text for ``line``, its mark against the baseline first when one is pinned (tests read
        this)."""
        return fitted(cell_texts(self.work.get(line, []), self.changes.get(line)), width)


def unmeasured(report: ScenarioReport | None) -> str | None:
    """Why the code's lines have no work to show: None where a run measured them."""
    if report is None:
        return "not run yet"
    if report.eager is None:
        return "not measured, the run failed" if report.error is not None else "not measured yet"
    return None


def _tables(find: Find[Any]) -> list[KernelTable]:
    return [table for mode in ("#eager", "#compiled") if (table := find(mode, KernelTable))]


def _text_area(find: Find[Any]) -> SnippetTextArea | None:
    from textual.widget import Widget

    found = find("#snippet-text", Widget)
    if found is None or not hasattr(found, "show_lines"):
        return None
    # Looked up as a plain Widget so that the editor's module loads only once a snippet opens (the explorer's
    # first frame does without it); the check above is what stands for the class.
    return cast("SnippetTextArea", found)
