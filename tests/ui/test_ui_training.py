"""A training step in the explorer: a heading row per section in both tables, and the summary's sections,
saved bytes and dominant side of the ridge, worded as ``kernel-tui run`` words them.

``ui_train_add_relu_messages.json`` is lesson 21 (``scenarios/21_add_relu_backwards.py``) recorded by
``tests/data/record_messages.py`` at 4,096 elements: eager 3 forward and 2 backward kernels, compiled 1 and 2.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from support.locations import REPO
from support.replay import Recording, ReplayEngineLink
from support.ui_support import DATA, SnapCompare, explorer, make_app, shown_text, wait_for
from textual.pilot import Pilot

from kernel_tui.text.baseline import compare
from kernel_tui.text.formatting import training_line
from kernel_tui.transport.protocol import Done
from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.screens.dialogs.predict import PredictScreen, RevealScreen
from kernel_tui.ui.state.kernel_rows import kernel_rows
from kernel_tui.ui.state.pinned_baselines import ModeBaseline
from kernel_tui.ui.widgets.kernel_table import KernelTable
from kernel_tui.ui.widgets.summary_strip import SummaryStrip

WIDE = (160, 48)
LESSON = REPO / "scenarios" / "21_add_relu_backwards.py"


def training_app(lesson: Path = LESSON, course: Path | None = None) -> KernelTuiApp:
    link = ReplayEngineLink.from_files(DATA / "ui_train_add_relu_messages.json")
    return make_app(link, paths=(lesson,), course=course)


async def run_lesson(pilot: Pilot[None], app: KernelTuiApp, lesson: Path = LESSON) -> None:
    await pilot.press("r")
    await wait_for(pilot, lambda: (run := explorer(app).runs.get(lesson)) is not None and not run.running)


def first_cells(table: KernelTable) -> list[str]:
    """Each row's name cell in full (a narrow column cuts long names in the middle)."""
    assert table.row_count == len(table.shown_rows)
    return [row.heading or row.label for row in table.shown_rows]


async def test_each_table_has_a_heading_row_per_section() -> None:
    app = training_app()
    async with app.run_test(size=WIDE) as pilot:
        await run_lesson(pilot, app)
        eager = explorer(app).query_one("#eager", KernelTable)
        compiled = explorer(app).query_one("#compiled", KernelTable)
        assert first_cells(eager) == [
            "forward",
            "  aten::add",
            "  aten::relu",
            "  aten::sum",
            "backward",
            "  aten::threshold_backward",
            "  aten::copy_",
        ]
        assert first_cells(compiled)[0] == "forward" and first_cells(compiled)[2] == "backward"
        assert [compiled.get_row_at(row)[1].plain for row in (0, 2)] == ["1", "2"], "a heading counts its launches"
        assert [kernel.section for kernel in compiled.kernels] == ["forward", "backward", "backward"]
        eager.move_cursor(row=0)
        assert eager.highlighted_kernel() is None, "a heading is no kernel"
        eager.move_cursor(row=5)
        highlighted = eager.highlighted_kernel()
        assert highlighted is not None and highlighted.short_name == "aten::threshold_backward"


async def test_the_summary_gives_each_sections_launches_and_bytes_and_the_saved_bytes() -> None:
    app = training_app()
    async with app.run_test(size=WIDE) as pilot:
        await run_lesson(pilot, app)
        report = explorer(app).runs[LESSON].record.report
        assert report is not None
        shown = shown_text(explorer(app).query_one(SummaryStrip)).replace("\n ", " ")
        assert training_line(report) in shown.replace("\n", "")
        assert "forward: launches 3 → 1" in shown and "backward: launches 2 → 2" in shown
        assert "saved for backward 16.0 KiB (1.0×) → 4.0 KiB (0.25×)" in shown


async def test_the_summary_says_which_side_of_the_ridge_dominates() -> None:
    app = training_app()
    async with app.run_test(size=WIDE) as pilot:
        await run_lesson(pilot, app)
        shown = shown_text(explorer(app).query_one(SummaryStrip)).replace("\n ", " ")
        assert "eager memory-bound (100% of kernel time), compiled memory-bound (100% of kernel time)" in shown


@pytest.mark.usefixtures("from_the_repository")
def test_picture_of_a_training_step(snap_compare: SnapCompare) -> None:
    """160x48: the sections in both tables, and the summary's sections, saved bytes and dominant side."""
    lesson = LESSON.relative_to(REPO)  # no machine's absolute path in the picture
    app = training_app(lesson)
    app.animation_level = "none"

    async def run_before(pilot: Pilot[None]) -> None:
        screen = explorer(app)
        await wait_for(pilot, lambda: screen.hello is not None and bool(screen.query("RuntimePlot")))
        await run_lesson(pilot, app, lesson)

    assert snap_compare(app, terminal_size=WIDE, run_before=run_before)


def test_a_removed_kernel_stands_in_the_section_it_ran_in() -> None:
    recording = Recording.load(DATA / "ui_train_add_relu_messages.json")
    pinned = next(message.report for message in reversed(recording.messages) if isinstance(message, Done))
    assert pinned.eager is not None
    without_copy = tuple(kernel for kernel in pinned.eager.kernels if kernel.short_name != "aten::copy_")
    now = replace(pinned, eager=replace(pinned.eager, kernels=without_copy, kernel_count=4))
    eager = compare(pinned, now).mode("eager")
    assert eager is not None
    rows = kernel_rows(now.eager, ModeBaseline(pinned.eager, eager))
    assert [row.mark + row.name for row in rows] == [
        "  forward",
        "    aten::add",
        "    aten::relu",
        "    aten::sum",
        "  backward",
        "    aten::threshold_backward",
        "-   aten::copy_",
    ]
    assert rows[-1].removed and rows[-1].kernel is None


async def test_the_prediction_asks_each_sections_kernels_and_the_saved_arrays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lessons 21-23 teach each section's kernels and what forward keeps for backward: the dialog asks
    those (not kernels and transfers per call, which the explanation never mentions) and grades them."""
    monkeypatch.setenv("KERNEL_TUI_STATE_DIR", str(tmp_path))
    app = training_app(course=REPO / "scenarios")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, PredictScreen), what="the predict dialog")
        dialog = app.screen
        assert isinstance(dialog, PredictScreen)
        assert dialog.quantities == (
            "eager_forward",
            "compiled_forward",
            "eager_backward",
            "compiled_backward",
            "eager_saved",
            "compiled_saved",
        )
        question = shown_text(dialog.query_one("#predict-question")).replace("\n", " ")
        assert "each section" in question and "keep for backward" in question and "transfers" not in question
        for quantity in dialog.quantities:
            box = dialog.box(quantity)
            assert box.region.height and dialog.region.contains_region(box.region), f"{quantity} off screen at 80x24"
        for value in ("3", "1", "2", "1", "1", "0"):
            await pilot.press(*value, "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RevealScreen), what="the reveal")
        assert isinstance(app.screen, RevealScreen)
        answer = app.screen.answer
        assert answer.measured == {
            "eager_forward": 3,
            "compiled_forward": 1,
            "eager_backward": 2,
            "compiled_backward": 2,
            "eager_saved": 1.0,
            "compiled_saved": 0.25,
        }
        assert [answer.right(q) for q in answer.scored] == [True, True, True, False, True, False], (
            "0 arrays is not a quarter-array mask"
        )
        counts = shown_text(app.screen.query_one("#reveal-counts"))
        assert "compiled saved arrays" in counts and "0.25" in counts and "transfers" not in counts
        await pilot.press("escape")
        assert app.predictions.score == (4, 6)
        assert explorer(app).query_one("#eager", KernelTable).predicted is None, "no per-call total was guessed"


async def test_at_120x36_the_summary_can_be_scrolled_into_view() -> None:
    """The two sections' tables fill a 120x36 screen: the summary (sections, saved bytes, claims) ran off its
    bottom, out of reach. The results now scroll below the lesson and the chart."""
    app = training_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await run_lesson(pilot, app)
        summary = explorer(app).query_one(SummaryStrip)
        results = explorer(app).query_one("#results")
        assert results.region.bottom <= app.size.height - 2, "above the status line and the footer"
        await pilot.press("3", "shift+tab")
        assert app.focused is results
        await pilot.press("end")
        await pilot.pause()
        assert results.scroll_offset.y > 0
        shown = results.region.intersection(summary.region)
        assert shown.height == summary.region.height, (shown, summary.region)
        assert "saved for backward" in shown_text(summary)
