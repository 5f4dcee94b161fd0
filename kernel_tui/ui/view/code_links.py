"""Two-way links between the code and the kernel tables, as the explorer's ``code`` slice of ``Shown``.

Every run fills the code's gutter (the lesson pane's code, and the snippet editor while it holds the scenario
shown) with each line's work, and with a baseline pinned (``B``) what changed against it; the cursor on a kernel
row marks the lines that row came from, in both; the cursor on a line of the editor, or the lesson's line cursor
(``j``/``k``), marks that line's kernels in both tables and says under them what the line launched and what it
became, or that its work vanished compiled, and what it was in the baseline. ``code_links`` derives it all from
the run, the kernel under the followed table's cursor and the ``Cursors``; nothing here touches Textual.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from kernel_tui.model.compare.baseline_marks import MARK_STYLES
from kernel_tui.text.by_line import describe, line_work
from kernel_tui.ui.view.code_gutter import cell_texts, fitted

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.mode_result import ModeResult
    from kernel_tui.model.report.report import ScenarioReport
    from kernel_tui.text.by_line import LineWork
    from kernel_tui.text.line_changes import LineChange
    from kernel_tui.ui.state.cursors import Cursors

NOTHING_TO_WALK = Text("No line of this code has launched a kernel yet: r runs it", style="dim")
"""What ``j``/``k`` say where no line of the code has work to walk to."""


@dataclass(frozen=True)
class CodeLinks:
    """What the code shows of the latest run, and which lines and rows are linked now."""

    work: dict[int, list[LineWork]] = field(default_factory=dict)
    """Per line, the run's work (``kernel_tui.text.by_line``): the code's gutter."""
    changes: dict[int, LineChange] = field(default_factory=dict)
    """Per line, its work against the pinned baseline's; empty without a baseline."""
    unmeasured: str | None = "not run yet"
    """Why no line has work to tell of (no run yet, a run that failed before measuring); None once measured."""
    linked: frozenset[int] = frozenset()
    """The lines of the kernel under the followed table's cursor."""
    lesson_cursor: int | None = None
    """The lesson's line cursor (``j``/``k``) on this scenario's code."""
    in_editor: bool = False
    """The editor holds the scenario shown: its gutter shows the work too."""
    marked_line: int | None = None
    """The code cursor's line, whose kernels both tables mark: the editor's while it holds the scenario shown
    and moved last, else the lesson's."""
    story: Text | None = None
    """What the line under the tables says of the code cursor's line, until a table's cursor moves; None: the
    kernel under the cursor speaks."""

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


def code_links(
    report: ScenarioReport | None,
    compiled: ModeResult | None,
    baseline: ScenarioReport | None,
    kernel: Kernel | None,
    cursors: Cursors,
    path: Path,
    *,
    editing: bool,
) -> CodeLinks:
    """The links for the run on screen of the scenario at ``path``. ``compiled`` is the compiled side the
    compiled table shows (the selected variant's kernels, once one is chosen); ``baseline``: the pinned run the
    finished ``report`` is compared with, if any; ``kernel``: the one under the followed table's cursor;
    ``editing``: the editor holds this scenario."""
    work, changes = _worked_out(report, compiled if report is not None else None, baseline)
    lesson = cursors.lesson_line_on(path)
    on_editor = editing and cursors.code_cursor == "editor" and cursors.editor_line is not None
    line = cursors.editor_line if on_editor else (lesson.line if lesson is not None else None)
    links = CodeLinks(
        work,
        changes,
        unmeasured(report),
        frozenset(kernel.lines) if kernel is not None else frozenset(),
        lesson.line if lesson is not None else None,
        editing,
        line,
    )
    telling = cursors.telling and (on_editor or (cursors.code_cursor == "lesson" and lesson is not None))
    if not telling:
        return links
    if line is None:
        return _with_story(links, NOTHING_TO_WALK)
    # A quiet line of a measured run (or one a new run's partial report has not reached yet) leaves it to the
    # highlighted kernel; where nothing was measured, the line says why.
    return _with_story(links, links.line_story(line)) if links.has_story(line) or links.unmeasured else links


def _with_story(links: CodeLinks, story: Text) -> CodeLinks:
    return replace(links, story=story)


_last_worked: list[tuple[tuple[object, ...], tuple[dict[int, list[LineWork]], dict[int, LineChange]]]] = []
"""The latest run's work, by the identity of what it was worked out from (see ``_worked_out``)."""


def _worked_out(
    report: ScenarioReport | None, compiled: ModeResult | None, baseline: ScenarioReport | None
) -> tuple[dict[int, list[LineWork]], dict[int, LineChange]]:
    """Each line's work and its change against ``baseline``: worked out once per run shown (a report, a variant,
    a baseline), not on every derivation of ``Shown``; the same dictionaries are handed on, so the panes see
    by identity that nothing of them changed."""
    inputs = (report, compiled, baseline)
    for seen, worked in _last_worked:
        if all(a is b for a, b in zip(inputs, seen, strict=True)):
            return worked
    work = line_work(report.eager, compiled) if report is not None else {}
    changes: dict[int, LineChange] = {}
    # As the compiled table does: a variant shown is compared with nothing (the baseline ran the default).
    if baseline is not None and report is not None and compiled is report.compiled:
        from kernel_tui.text.line_changes import aligned_lines, line_changes

        mapping = aligned_lines(baseline.source, report.source)
        changes = line_changes(baseline.eager, baseline.compiled, work, mapping)
    _last_worked[:] = [(inputs, (work, changes))]
    return work, changes


def unmeasured(report: ScenarioReport | None) -> str | None:
    """Why the code's lines have no work to show: None where a run measured them."""
    if report is None:
        return "not run yet"
    if report.eager is None:
        return "not measured, the run failed" if report.error is not None else "not measured yet"
    return None
