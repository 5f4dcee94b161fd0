"""Why kernels stayed apart, in the explorer: on the rows (the line under the tables), on the code's lines (the
gutter's mark and the line cursor's words), Inductor's own text behind ``d``, the experiment behind ``x``, and
lesson 27's prediction, on a recording of the real lesson on a CPU (``ui_why_apart_messages.json``); and ``x`` after
a run whose verdict is recompiles, which runs the variant that verdict suggests (``ui_changing_slice_messages.json``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.locations import REPO
from support.replay import ReplayEngineLink
from support.ui_support import DATA, explorer, finished, make_app, shown_text, wait_for
from textual.pilot import Pilot
from textual.widgets import Static

from kernel_tui.model.report.boundary import EXPERIMENTS
from kernel_tui.text.by_line import APART_MARK
from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.screens.dialogs.details import DetailsScreen
from kernel_tui.ui.screens.dialogs.predict import PredictScreen, RevealScreen
from kernel_tui.ui.screens.explorer import ExplorerScreen
from kernel_tui.ui.view.kernel_words import kernel_story
from kernel_tui.ui.widgets.kernel_name import KernelNameLine
from kernel_tui.ui.widgets.kernel_table import KernelTable

COURSE = REPO / "scenarios"
LESSON = COURSE / "27_why_kernels_stay_apart.py"
RECORDING = DATA / "ui_why_apart_messages.json"
WIDE = (160, 48)
DIVISION_LINE = 40
"""``return h / h.sum()``: the division's loop waits for the finished sum."""


def lesson_app(course: Path | None = None) -> tuple[KernelTuiApp, ReplayEngineLink]:
    link = ReplayEngineLink.from_files(RECORDING)
    return make_app(link, paths=(LESSON,), course=course), link


async def run_it(pilot: Pilot[None]) -> None:
    await pilot.press("r")
    await wait_for(pilot, lambda: finished(pilot.app, LESSON), what="the run to finish")


async def highlight(pilot: Pilot[None], app: KernelTuiApp, mode: str, part: str) -> str:
    """Highlight the first row of ``mode`` whose name has ``part``; the story the line under the tables tells
    of it then (the line itself may elide the middle of a long story to fit its height)."""
    table = explorer(app).query_one(f"#{mode}", KernelTable)
    row = next(i for i, kernel in enumerate(table.kernels) if part in kernel.name)
    table.focus()
    table.move_cursor(row=row)
    await pilot.pause()
    kernel = table.highlighted_kernel()
    run = explorer(app).runs.get(LESSON)
    assert kernel is not None and run is not None and run.record.report is not None
    assert kernel.name in shown_text(explorer(app).query_one(KernelNameLine))
    return " · ".join(kernel_story(kernel, mode, run.record.report.compiled))


async def test_the_rows_and_the_lines_say_why_their_kernels_stayed_apart() -> None:
    assert LESSON.read_text().splitlines()[DIVISION_LINE - 1].strip() == "return h / h.sum()"
    app, _ = lesson_app()
    async with app.run_test(size=WIDE) as pilot:
        await run_it(pilot)
        compiled_table = explorer(app).query_one("#compiled", KernelTable)
        cells = [compiled_table.get_row_at(row)[-1].plain for row in range(compiled_table.row_count)]
        assert any(cell.endswith(f"{APART_MARK} library, reduction") for cell in cells), cells
        compiled_line = await highlight(pilot, app, "compiled", "cpp_fused")
        assert "apart [library] (and reduction): the matmul is a library call" in compiled_line
        eager_line = await highlight(pilot, app, "eager", "matmul")
        assert "apart [library]" in eager_line, "the eager matmul's work stayed in a kernel of its own"
        links = explorer(app).code_links
        assert links is not None
        assert APART_MARK in links.gutter(DIVISION_LINE, 60)
        assert "apart: library, reduction" in links.line_story(DIVISION_LINE).plain


async def test_d_shows_inductors_own_words_and_x_runs_the_experiment() -> None:
    app, link = lesson_app()
    async with app.run_test(size=WIDE) as pilot:
        await run_it(pilot)
        await pilot.press("d")
        await wait_for(pilot, lambda: isinstance(app.screen, DetailsScreen), what="the details")
        details = str(app.screen.query_one("#details-body Static", Static).render())
        assert "Why kernels stayed apart (2)" in details
        assert "node1 is extern but not a triton kernel" in details and "CppScheduling" in details
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ExplorerScreen), what="the explorer")
        assert link.variants == [None]
        await pilot.press("x")
        await wait_for(pilot, lambda: len(link.runs) == 2, what="the experiment's run")
        assert link.variants[-1] == {"max_autotune": {"options": {"max_autotune": True}}}
        said = [notice.message for notice in app._notifications][-1]
        assert "max_autotune" in said


async def test_lesson_27_asks_how_many_boundaries_and_of_which_kinds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KERNEL_TUI_STATE_DIR", str(tmp_path))
    app, _ = lesson_app(course=COURSE)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, PredictScreen), what="the predict dialog")
        dialog = app.screen
        assert isinstance(dialog, PredictScreen)
        assert dialog.quantities == ("eager", "compiled", "boundaries", "boundaries_library", "boundaries_reduction")
        for value in ("4", "2", "2", "1", "0"):
            await pilot.press(*value, "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RevealScreen), what="the reveal")
        reveal = app.screen
        assert isinstance(reveal, RevealScreen)
        assert reveal.answer.measured == {
            "eager": 4,
            "compiled": 2,
            "boundaries": 2,
            "boundaries_library": 1,
            "boundaries_reduction": 1,
        }
        assert [reveal.answer.right(q) for q in reveal.answer.scored] == [True, True, True, True, False]


SLICE = DATA / "changing_slice.py"
SLICE_RECORDING = DATA / "ui_changing_slice_messages.json"


async def test_x_runs_the_variant_the_recompiles_verdict_suggests() -> None:
    link = ReplayEngineLink.from_files(SLICE_RECORDING)
    app = make_app(link, paths=(SLICE,))
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("r")
        await wait_for(pilot, lambda: finished(pilot.app, SLICE), what="the run to finish")
        assert link.variants == [None]
        await pilot.press("x")
        await wait_for(pilot, lambda: len(link.runs) == 2, what="the suggested variant's run")
        assert link.variants[-1] == {"dynamic": dict(EXPERIMENTS["dynamic"])}
        said = [notice.message for notice in app._notifications][-1]
        assert "Added the variant dynamic" in said and "recompiles" in said
