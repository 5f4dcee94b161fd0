"""Every lesson's prediction asks what the lesson teaches, graded against what the lesson's claims measure.

Lesson 15 teaches the graph break, 16 and 17 the compiles a size sweep costs, 18 which side is faster on
tiny arrays, 20 which ceiling limits each kernel: each was asked kernels and transfers per call alone, before
the dialog asked each lesson's own claims (``tests/ui/test_ui_predict_claims.py`` opens every lesson's).
Each test answers the dialog on a recording of the real lesson (``tests/data/record_messages.py``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from support.locations import REPO
from support.replay import Recording, ReplayEngineLink
from support.ui_support import DATA, explorer, make_app, shown_text, wait_for
from textual.pilot import Pilot

from kernel_tui.transport.protocol import Done, Partial
from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.screens.dialogs.predict import PredictScreen, RevealScreen

COURSE = REPO / "scenarios"
COUNTS_AND_TRANSFERS = ("eager", "compiled", "eager_transfers", "compiled_transfers", "ideal_transfers")
"""What every lesson of the first part asks, before the question its own lesson adds."""


def lesson_app(lesson: str, recording: str) -> tuple[KernelTuiApp, ReplayEngineLink]:
    link = ReplayEngineLink.from_files(DATA / recording)
    return make_app(link, paths=(COURSE / lesson,), course=COURSE), link


async def open_dialog(pilot: Pilot[None], app: KernelTuiApp, key: str = "r") -> PredictScreen:
    await pilot.press(key)
    await wait_for(pilot, lambda: isinstance(app.screen, PredictScreen), what="the predict dialog")
    dialog = app.screen
    assert isinstance(dialog, PredictScreen)
    for quantity in dialog.quantities:
        box = dialog.box(quantity)
        assert box.region.height and dialog.region.contains_region(box.region), f"{quantity} off screen at 80x24"
    return dialog


async def answer(pilot: Pilot[None], app: KernelTuiApp, *values: str) -> RevealScreen:
    for value in values:
        await pilot.press(*value, "enter")
    await wait_for(pilot, lambda: isinstance(app.screen, RevealScreen), what="the reveal")
    reveal = app.screen
    assert isinstance(reveal, RevealScreen)
    return reveal


def question(dialog: PredictScreen) -> str:
    return shown_text(dialog.query_one("#predict-question")).replace("\n", " ")


async def test_lesson_15_asks_how_many_graph_breaks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KERNEL_TUI_STATE_DIR", str(tmp_path))
    app, _ = lesson_app("15_graph_break.py", "ui_graph_break_messages.json")
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_dialog(pilot, app)
        assert dialog.quantities == (*COUNTS_AND_TRANSFERS, "graph_breaks")
        assert "graph breaks" in question(dialog)
        reveal = await answer(pilot, app, "5", "3", "7", "4", "2", "0")
        measured = reveal.answer.measured
        assert (measured["eager"], measured["compiled"], measured["graph_breaks"]) == (5, 3, 1)
        assert reveal.answer.right("eager") and reveal.answer.right("compiled")
        assert not reveal.answer.right("graph_breaks")
        counts = shown_text(reveal.query_one("#reveal-counts"))
        assert "graph breaks" in counts
        assert "graph break" in reveal.why, "the explanation is revealed with the answer"


async def test_lesson_16_asks_the_sweeps_compiles_and_runs_the_sweep_to_grade_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Asked on r, the lesson runs with its sweep (only the sweep counts its compiles), graded when it ends."""
    monkeypatch.setenv("KERNEL_TUI_STATE_DIR", str(tmp_path))
    lesson = COURSE / "16_static_shapes.py"
    app, link = lesson_app(lesson.name, "ui_static_shapes_messages.json")
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_dialog(pilot, app, "r")
        assert dialog.quantities == ("eager", "compiled", "compiled_transfers", "sweep_compiles")
        assert "sweep" in question(dialog) and "as s does" in question(dialog)
        reveal = await answer(pilot, app, "2", "1", "3", "5")
        assert link.runs == [(lesson, True)], "r on a sweep question runs the sweep"
        run = explorer(app).runs.get(lesson)
        assert run is not None and not run.running, "graded once the sweep has ended"
        assert reveal.answer.measured["sweep_compiles"] == 5
        assert reveal.answer.right("sweep_compiles")
        assert "compiles in the sweep" in shown_text(reveal.query_one("#reveal-counts"))


def test_a_sweep_guess_waits_for_a_run_with_the_sweep(tmp_path: Path) -> None:
    """A run without the sweep (the sweep cancelled, then r) counts no compiles: the guess waits for one."""
    from kernel_tui.ui.state.course.catalog import load_catalog
    from kernel_tui.ui.state.course.score import PredictionBook

    entry = next(e for e in load_catalog([COURSE / "16_static_shapes.py"], COURSE))
    recording = Recording.load(DATA / "ui_static_shapes_messages.json")
    swept = next(message.report for message in reversed(recording.messages) if isinstance(message, Done))
    book = PredictionBook(tmp_path / "predictions.json")
    assert book.needs_sweep(entry)
    book.predict(entry, {"sweep_compiles": 1})
    assert book.reveal(entry, replace(swept, sweep=(), sweep_compiles=None), finished=True) is None
    assert book.reveal(entry, swept, finished=False) is None, "graded when the sweep ends, not before"
    assert book.waits_for_sweep(entry)
    answer = book.reveal(entry, swept, finished=True)
    assert answer is not None and answer.measured == {"sweep_compiles": 5} and not answer.right("sweep_compiles")


async def test_lesson_18_asks_which_side_is_faster_on_tiny_arrays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KERNEL_TUI_STATE_DIR", str(tmp_path))
    app, _ = lesson_app("18_tiny_tensors.py", "ui_tiny_tensors_messages.json")
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_dialog(pilot, app)
        assert dialog.quantities == (*COUNTS_AND_TRANSFERS, "faster")
        assert "faster" in question(dialog)
        await pilot.press(*"2", "enter", *"1", "enter", *"5", "enter", *"3", "enter", *"3", "enter", *"x", "enter")
        assert app.screen is dialog and dialog.focused is dialog.box("faster"), "x names neither side"
        await pilot.press("backspace")
        reveal = await answer(pilot, app, "compiled")
        # Recorded at 8 elements: eager 4.8 µs a call, compiled 23.5 µs (its guards and wrapper).
        assert reveal.answer.predicted["faster"] == 1 and reveal.answer.measured["faster"] == 0
        assert not reveal.answer.right("faster") and reveal.answer.right("eager")
        counts = shown_text(reveal.query_one("#reveal-counts"))
        assert "faster side" in counts and "compiled" in counts and "eager" in counts


async def test_a_faster_side_the_rounds_disagree_on_is_not_graded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a busy box a quarter of the timed rounds can have eager ahead and a quarter compiled: the reveal says so
    and grades neither answer, where the medians alone would have made one of them wrong by chance."""
    monkeypatch.setenv("KERNEL_TUI_STATE_DIR", str(tmp_path))
    recording = Recording.load(DATA / "ui_tiny_tensors_messages.json")
    noisy = tuple(
        replace(message, report=replace(message.report, speedup_range=(0.83, 1.27)))
        if isinstance(message, (Partial, Done))
        else message
        for message in recording.messages
    )
    link = ReplayEngineLink({recording.scenario: replace(recording, messages=noisy)})
    app = make_app(link, paths=(COURSE / "18_tiny_tensors.py",), course=COURSE)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_dialog(pilot, app)
        reveal = await answer(pilot, app, "2", "1", "5", "3", "3", "eager")
        assert reveal.answer.measured["faster"] is None and "faster" not in reveal.answer.scored
        assert reveal.answer.measured["eager"] == 2 and reveal.answer.right("eager"), "the counts are graded"
        counts = shown_text(reveal.query_one("#reveal-counts"))
        assert "too noisy to tell: compiled ran at 0.83× to 1.27× eager's speed" in " ".join(counts.split())
        assert "not this time" not in counts and reveal.query_one("#reveal-counts").region.width <= 80


async def test_lesson_20_asks_which_ceiling_limits_each_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KERNEL_TUI_STATE_DIR", str(tmp_path))
    app, _ = lesson_app("20_matmul_against_elementwise.py", "ui_matmul_tanh_messages.json")
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_dialog(pilot, app)
        assert dialog.quantities[-2:] == ("matmul_bound", "elementwise_bound")
        assert "compute, memory or the overhead" in question(dialog)
        reveal = await answer(pilot, app, "2", "2", "5", "5", "3", "m", "m")
        assert reveal.answer.measured["matmul_bound"] == 0 and reveal.answer.measured["elementwise_bound"] == 1
        assert not reveal.answer.right("matmul_bound") and reveal.answer.right("elementwise_bound")
        counts = shown_text(reveal.query_one("#reveal-counts"))
        assert "compute" in counts and "memory" in counts
        assert "compute-bound" in reveal.why


def test_an_old_answer_of_kernels_and_transfers_still_loads(tmp_path: Path) -> None:
    """Lessons 15-20 were asked kernels and transfers before: those answers keep counting."""
    from kernel_tui.ui.state.course.score import PredictionBook

    path: Path = tmp_path / "predictions.json"
    path.write_text(
        '{"version": 2, "lessons": {"15_graph_break.py": {"predicted": {"eager": 5, "compiled": 3}, '
        '"measured": {"eager": 5, "compiled": 3}}, "18_tiny_tensors.py": {"predicted": {"eager": 2, '
        '"compiled": 1, "faster": 0}, "measured": {"eager": 2, "compiled": 1, "faster": 0}}}}'
    )
    assert PredictionBook(path).score == (5, 5)
