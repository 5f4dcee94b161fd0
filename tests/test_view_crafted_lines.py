"""``kernel-tui view`` on a crafted report of 600 kernels each on lines 1-600: the per-line tables are worked out
once per run shown, linear in the rows' lines, and a cursor move in a table is answered within a second."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from conftest import within
from crafted_line_report import every_kernel_on_every_line, write_crafted
from test_ui_support import explorer, finished, wait_for

from kernel_tui.model.report import ScenarioReport
from kernel_tui.model.results_file import read_results
from kernel_tui.text.by_line import SOURCE_LINE_SHOWN, annotated_lines, line_work
from kernel_tui.ui.view_app import build_view_app
from kernel_tui.ui.view_link import saved_reports
from kernel_tui.ui.widgets.kernel_table import KernelTable

if TYPE_CHECKING:
    from _typeshed import TraceFunction

KERNELS = LINES = 600


def crafted(kernels: int, lines: int) -> ScenarioReport:
    return ScenarioReport.from_dict(every_kernel_on_every_line(kernels, lines))


def lines_executed(work: Callable[[], object]) -> int:
    """How many lines of Python ``work`` runs, in every function it calls: a count of the work done that, unlike
    a time, does not change with how busy the machine is (a timed ratio failed a fresh clone's suite)."""
    count = 0

    def tracer(frame: FrameType, event: str, arg: Any) -> TraceFunction:
        nonlocal count
        count += event == "line"
        return tracer

    sys.settrace(tracer)
    try:
        work()
    finally:
        sys.settrace(None)
    return count


def test_the_per_line_table_grows_linearly_in_the_rows_lines() -> None:
    small, large = crafted(100, 100), crafted(200, 200)  # four times the rows' lines
    work = line_work(large.eager, large.compiled)
    assert len(work) == 200 and all(
        len(parts[0].eager) == 200 and len(parts[0].compiled) == 200 for parts in work.values()
    )
    # Linear is 4x the lines run; the quadratic-in-lines table, where each line scanned every row, was 8x.
    small_work = lines_executed(lambda: line_work(small.eager, small.compiled))
    large_work = lines_executed(lambda: line_work(large.eager, large.compiled))
    assert 3 * small_work < large_work < 5 * small_work, (small_work, large_work)


def test_by_line_words_are_bounded_and_a_long_source_line_is_cut() -> None:
    report = crafted(50, 40)
    long_line = "y = " + "1 + " * 250_000 + "1"
    source = report.source or ""
    report = ScenarioReport.from_dict({**report.to_dict(), "source": source.replace("x1 = a + b", long_line, 1)})
    out = annotated_lines(report.source or "", report)
    first = next(line for line in out if line.startswith("   1 │"))
    whole = (report.source or "").split("\n")[0]
    assert len(first) < SOURCE_LINE_SHOWN + 80 and f"line cut: {len(whole) - SOURCE_LINE_SHOWN:,} more" in first
    said = next(line for line in out if "eager" in line)
    assert "and 38 more" in said and "(on 40 lines)" in said, "counted past the named ones, not each named"
    assert max(len(line) for line in out) < 2_000


async def test_view_answers_a_cursor_move_within_a_second(tmp_path: Path) -> None:
    path = write_crafted(tmp_path, KERNELS, LINES)
    app = build_view_app(saved_reports(read_results(path), path), clock=lambda: 1000.0)
    async with app.run_test(size=(160, 48)) as pilot:
        scenario = Path(explorer(app).entry.path)
        await pilot.press("r")
        await wait_for(pilot, lambda: finished(app, scenario), timeout=60, what="the saved run to be shown")
        table = explorer(app).query_one("#eager", KernelTable)
        table.focus()
        await pilot.pause()
        slowest = 0.0
        for key in ("down", "down", "down", "up", "down"):
            started = time.perf_counter()
            await pilot.press(key)
            slowest = max(slowest, time.perf_counter() - started)
        assert table.cursor_row == 3
        assert slowest < within(1.0), f"a cursor move took {slowest:.2f} s"
