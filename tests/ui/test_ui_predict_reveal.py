"""Predict, then reveal, on the course: guess first, run, see the measurement beside the guess with the
lesson's Why, and keep the score; driven by keys (Pilot) on the replayed engine messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.replay import ReplayEngineLink
from support.ui_support import ADD_RELU, explorer, finished, make_app, make_link, run_to_the_end, shown_text, wait_for
from test_ui_why import SMALL, WIDE, table
from textual import events
from textual.pilot import Pilot
from textual.widgets._header import HeaderTitle

from kernel_tui.commands import cli
from kernel_tui.ui.app import launch
from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.screens.dialogs.predict import PredictScreen, RevealScreen
from kernel_tui.ui.screens.explorer import ExplorerScreen
from kernel_tui.ui.state.course.answers import Answer, answers_text
from kernel_tui.ui.state.course.score import HIDDEN_EXPLANATION, PredictionBook, split_lesson
from kernel_tui.ui.widgets.lesson_view import LessonView

WHY = "Eager runs each op on its own; the compiler fuses the add and the ReLU into one loop."
LESSON = f'''"""Add, then ReLU

Predict: how many kernels eager, how many compiled?

**Why.** {WHY}

**Try next.** Add a third op.
"""
import torch

EXPECT = {{"eager": 2, "compiled": 1, "eager_transfers": 5, "compiled_transfers": 3}}


def fn(a, b):
    return (a + b).relu()


def inputs(size, device):
    return torch.randn(size, device=device), torch.randn(size, device=device)
'''


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """A one-lesson course: the recorded scenario under its recorded name, with a Why and a Try next."""
    folder = tmp_path / "course"
    folder.mkdir()
    (folder / ADD_RELU.name).write_text(LESSON)
    return folder


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "state"
    monkeypatch.setenv("KERNEL_TUI_STATE_DIR", str(folder))
    return folder


def course_app(
    course: Path, link: ReplayEngineLink | None = None, *, predict: bool = True
) -> tuple[KernelTuiApp, Path]:
    lesson = course / ADD_RELU.name
    app = make_app(link, paths=(lesson,), course=course)
    app.predictions.enabled = predict
    return app, lesson


def predict_screen(app: KernelTuiApp) -> PredictScreen:
    assert isinstance(app.screen, PredictScreen), app.screen
    return app.screen


def reveal_screen(app: KernelTuiApp) -> RevealScreen:
    assert isinstance(app.screen, RevealScreen), app.screen
    return app.screen


async def predict(
    pilot: Pilot[None], eager: str, compiled: str, eager_transfers: str = "5", compiled_transfers: str = "3"
) -> None:
    """Kernels eager and compiled, then transfers eager and compiled (by default the recording's 5 and 3)."""
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, PredictScreen), what="the predict dialog")
    await pilot.press(*eager, "enter", *compiled, "enter", *eager_transfers, "enter", *compiled_transfers, "enter")


class TestPredict:
    """On the course: guess first, run, reveal beside the measurement with the Why, keep the score."""

    async def test_guess_then_reveal_with_the_why_and_the_score(self, course: Path, state: Path) -> None:
        link = make_link()
        app, lesson = course_app(course, link)
        async with app.run_test(size=WIDE) as pilot:
            await pilot.pause()
            view = explorer(app).query_one(LessonView)
            assert WHY not in view.lesson and HIDDEN_EXPLANATION in view.lesson, "no spoilers before the guess"
            assert "Add a third op" not in view.lesson
            assert "1/1 · predict on · Add, then ReLU" == explorer(app).sub_title
            await pilot.press("r")
            await wait_for(pilot, lambda: isinstance(app.screen, PredictScreen))
            assert link.runs == [], "the tables must not appear before the guess"
            await predict(pilot, "2", "2", "5", "2")
            await wait_for(pilot, lambda: isinstance(app.screen, RevealScreen), what="the reveal")
            reveal = reveal_screen(app)
            assert reveal.answer.predicted == {"eager": 2, "compiled": 2, "eager_transfers": 5, "compiled_transfers": 2}
            assert reveal.answer.measured == {"eager": 2, "compiled": 1, "eager_transfers": 5, "compiled_transfers": 3}
            assert reveal.why == WHY
            assert "2 of 4 predictions right" in shown_text(reveal.query_one("#reveal-score"))
            counts = shown_text(reveal.query_one("#reveal-counts")).splitlines()
            assert [line.split()[-2:] for line in counts[1:]] == [
                ["✓", "right"],
                ["this", "time"],
                ["✓", "right"],
                ["this", "time"],
            ], counts
            assert [" ".join(line.split()[:2]) for line in counts[1:]] == [
                "eager kernels",
                "compiled kernels",
                "eager transfers",
                "compiled transfers",
            ]
            assert counts[3].split()[2:4] == ["5", "5"] and counts[4].split()[2:4] == ["2", "3"], counts
            await pilot.press("escape")
            assert isinstance(app.screen, ExplorerScreen)
            await wait_for(pilot, lambda: finished(app, lesson))
            assert link.runs == [(lesson, False)]
            assert (table(app, "eager").border_subtitle or "").endswith("you said 2 ✓")
            assert (table(app, "compiled").border_subtitle or "").endswith("you said 2 ✗")
            assert "score cpu 2/4 · " in (explorer(app).sub_title or "")
            assert WHY in view.lesson and "Add a third op" in view.lesson, "the explanation is back"
        saved = json.loads((state / "predictions.json").read_text())
        assert saved["version"] == 3, "answers are kept by device since version 3"
        assert saved["lessons"]["ui_add_relu.py"]["cpu"]["predicted"] == {
            "eager": 2,
            "compiled": 2,
            "eager_transfers": 5,
            "compiled_transfers": 2,
        }

    async def test_the_score_carries_over_and_an_answered_lesson_runs_at_once(self, course: Path, state: Path) -> None:
        app, lesson = course_app(course)
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("r")
            await predict(pilot, "2", "1")
            await wait_for(pilot, lambda: isinstance(app.screen, RevealScreen))
            await pilot.press("enter")
        link = make_link()
        app, lesson = course_app(course, link)
        async with app.run_test(size=WIDE) as pilot:
            await pilot.pause()
            assert app.predictions.score == (4, 4)
            assert "score cpu 4/4 · " in (explorer(app).sub_title or "")
            await run_to_the_end(pilot, lesson)
            assert not isinstance(app.screen, (PredictScreen, RevealScreen))
            assert link.runs == [(lesson, False)]

    async def test_typing_both_counts_at_once_fills_both_boxes(self, course: Path, state: Path) -> None:
        app, _ = course_app(course)
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("r")
            await wait_for(pilot, lambda: isinstance(app.screen, PredictScreen))
            burst = (
                ("3", "3"),
                ("enter", "\r"),
                ("1", "1"),
                ("enter", "\r"),
                ("4", "4"),
                ("full_stop", "."),
                ("5", "5"),
                ("enter", "\r"),
                ("3", "3"),
                ("enter", "\r"),
            )
            driver = app._driver
            assert driver is not None
            for key, character in burst:
                # A burst, as a fast typist or a paste sends it: no waiting for the app in between.
                event = events.Key(key, character)
                event.set_sender(app)
                driver.send_message(event)
            await wait_for(pilot, lambda: isinstance(app.screen, RevealScreen), what="the reveal")
            assert reveal_screen(app).answer.predicted == {
                "eager": 3,
                "compiled": 1,
                "eager_transfers": 4.5,
                "compiled_transfers": 3,
            }

    async def test_escape_in_the_guess_runs_nothing(self, course: Path, state: Path) -> None:
        link = make_link()
        app, _ = course_app(course, link)
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("r")
            await wait_for(pilot, lambda: isinstance(app.screen, PredictScreen))
            await pilot.press("escape")
            assert isinstance(app.screen, ExplorerScreen)
            await pilot.pause(0.1)
            assert link.runs == [] and explorer(app).runs == {}

    async def test_tab_past_the_last_box_and_enter_still_runs(self, course: Path, state: Path) -> None:
        """Tab cycles through the four boxes (the dialog's body took focus after the last box, and Enter
        then did nothing); Enter wherever focus is runs once every box has a number."""
        link = make_link()
        app, lesson = course_app(course, link)
        async with app.run_test(size=SMALL) as pilot:
            await pilot.press("r")
            await wait_for(pilot, lambda: isinstance(app.screen, PredictScreen))
            dialog = predict_screen(app)
            boxes = [
                dialog.box(quantity) for quantity in ("eager", "compiled", "eager_transfers", "compiled_transfers")
            ]
            for value, box in zip(("2", "1", "5", "3"), boxes, strict=True):
                assert app.screen.focused is box
                await pilot.press(*value, "tab")
            assert app.screen.focused is boxes[0], "Tab past the last box comes back to the first"
            assert [box.value for box in boxes] == ["2", "1", "5", "3"]
            await pilot.press("tab", "tab")
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, RevealScreen), what="the reveal")
            assert reveal_screen(app).answer.points == 4
            assert link.runs == [(lesson, False)]

    async def test_enter_with_no_box_focused_moves_to_the_empty_one(self, course: Path, state: Path) -> None:
        app, _ = course_app(course)
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("r")
            await wait_for(pilot, lambda: isinstance(app.screen, PredictScreen))
            dialog = predict_screen(app)
            await pilot.press("2", "tab", "1", "tab", "5")
            dialog.set_focus(None)
            await pilot.press("enter")
            assert dialog.focused is dialog.box("compiled_transfers")
            await pilot.press("3")
            dialog.set_focus(None)
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, RevealScreen), what="the reveal")

    async def test_an_empty_guess_is_not_accepted(self, course: Path, state: Path) -> None:
        app, _ = course_app(course)
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("r")
            await predict(pilot, "3", "")
            assert isinstance(app.screen, PredictScreen), "both counts are needed"

    async def test_the_header_scores_each_kind_of_device_apart_at_80_columns(self, course: Path, state: Path) -> None:
        state.mkdir(parents=True, exist_ok=True)
        right, half = (
            Answer({"eager": 2, "compiled": 1}, {"eager": 2, "compiled": 1}),
            Answer({"eager": 2}, {"eager": 3}),
        )
        answers = {("01_other.py", "cpu"): right, ("01_other.py", "cuda"): half, ("02_more.py", "cuda"): right}
        (state / "predictions.json").write_text(answers_text(answers))
        app, _ = course_app(course)
        async with app.run_test(size=SMALL) as pilot:
            await pilot.pause()
            assert "1/1 · score cpu 2/2 · cuda 2/3 · Add, then ReLU" in shown_text(app.screen.query_one(HeaderTitle))

    async def test_t_switches_predicting_off(self, course: Path, state: Path) -> None:
        link = make_link()
        app, lesson = course_app(course, link)
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("t")
            assert not app.predictions.enabled
            assert "predict off" in (explorer(app).sub_title or "")
            assert WHY in explorer(app).query_one(LessonView).lesson
            await run_to_the_end(pilot, lesson)
            assert not isinstance(app.screen, (PredictScreen, RevealScreen))
            assert link.runs == [(lesson, False)]
            assert app.predictions.score == (0, 0)
        assert not (state / "predictions.json").exists()

    async def test_no_predict_at_start_and_the_learners_own_files_are_never_quizzed(
        self, course: Path, state: Path
    ) -> None:
        app, lesson = course_app(course, predict=False)
        async with app.run_test(size=WIDE) as pilot:
            await run_to_the_end(pilot, lesson)
            assert not isinstance(app.screen, PredictScreen)
        app = make_app()  # tests/data files given on the command line: the learner's own
        async with app.run_test(size=WIDE) as pilot:
            await run_to_the_end(pilot)
            assert "predict" not in (explorer(app).sub_title or "")

    def test_no_predict_flag_reaches_the_app(self, monkeypatch: pytest.MonkeyPatch) -> None:
        calls: list[dict[str, Any]] = []

        def run_app(paths: object, **options: Any) -> int:
            calls.append(options)
            return 0

        monkeypatch.setattr(launch, "run_app", run_app)
        assert cli.main(["--no-predict"]) == 0
        assert cli.main([]) == 0
        assert [options["predict"] for options in calls] == [False, True]
        assert launch.build_app([ADD_RELU], predict=False).predictions.enabled is False

    def test_transfers_are_right_within_a_quarter_and_old_answers_keep_their_counts(self, tmp_path: Path) -> None:
        guess = {"eager": 1, "compiled": 1, "eager_transfers": 2, "compiled_transfers": 1.5}
        answer = Answer(guess, {"eager": 1, "compiled": 1, "eager_transfers": 2.001, "compiled_transfers": 2})
        assert [answer.right(q) for q in answer.scored] == [True, True, True, False] and answer.points == 3
        views = Answer(
            {**guess, "eager_transfers": 0},
            {"eager": 0, "compiled": 0, "eager_transfers": 0, "compiled_transfers": None},
        )
        assert views.scored == ("eager", "compiled", "eager_transfers"), "a transfer not measured is not scored"
        path = tmp_path / "predictions.json"
        old = {"predicted": {"eager": 2, "compiled": 1}, "measured": {"eager": 2, "compiled": 1}}
        path.write_text(json.dumps({"version": 1, "lessons": {"02_add_relu.py": old}}))
        assert PredictionBook(path).score == (2, 2), "an answer from before transfers scores its two counts"

    def test_split_lesson_and_a_damaged_score_file(self, tmp_path: Path) -> None:
        question, why, try_next = split_lesson("Q?\n\n**Why.** Because.\n\n**Try next.** More.")
        assert (question, why, try_next) == ("Q?", "Because.", "**Try next.** More.")
        assert split_lesson("Only a question.") == ("Only a question.", "", "")
        path = tmp_path / "predictions.json"
        path.write_text("{not json")
        assert PredictionBook(path).score == (0, 0)
        path.write_text(json.dumps({"lessons": {"a.py": {"predicted": {"eager": 1}}}}))
        assert PredictionBook(path).answers == {}
