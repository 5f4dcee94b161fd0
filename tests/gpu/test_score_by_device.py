"""The course's score, kind of device by kind of device (``PredictionBook.score_text``): a guess is only ever graded
against a run on its own kind of device, so the header never adds the CPU's answers to a GPU's."""

from __future__ import annotations

from pathlib import Path

from kernel_tui.ui.state.course.answers import Answer, answers_text
from kernel_tui.ui.state.course.score import PredictionBook, kind_label

RIGHT = Answer({"eager": 2, "compiled": 1}, {"eager": 2.0, "compiled": 1.0})
"""Two claims, both right."""
HALF = Answer({"eager": 2, "compiled": 2}, {"eager": 2.0, "compiled": 1.0})
"""Two claims, one right."""
UNMEASURED = Answer({"eager": 2}, {"eager": None})
"""Guessed, never measured: nothing scored."""


def book_with(tmp_path: Path, answers: dict[tuple[str, str], Answer]) -> PredictionBook:
    path = tmp_path / "predictions.json"
    path.write_text(answers_text(answers), encoding="utf-8")
    return PredictionBook(path)


def test_the_header_scores_each_kind_of_device_apart_in_a_fixed_order(tmp_path: Path) -> None:
    book = book_with(
        tmp_path,
        {
            ("02_add_relu.py", "cuda-preview sm_90"): RIGHT,
            ("02_add_relu.py", "cuda"): HALF,
            ("02_add_relu.py", "cpu"): RIGHT,
            ("03_softmax.py", "cpu"): HALF,
            ("03_softmax.py", "cuda-preview sm_100"): HALF,
            ("04_layernorm.py", "cuda-preview"): RIGHT,
        },
    )
    assert book.score == (9, 12), "the reveal's total is still across the course"
    assert book.score_text() == "score cpu 3/4 · cuda 1/2 · preview 2/2 · sm_90 2/2 · sm_100 1/2"


def test_only_kinds_that_have_scored_answers_are_named(tmp_path: Path) -> None:
    book = book_with(tmp_path, {("02_add_relu.py", "cpu"): HALF, ("02_add_relu.py", "cuda"): UNMEASURED})
    assert book.score_text() == "score cpu 1/2"
    assert book_with(tmp_path, {("02_add_relu.py", "cuda"): UNMEASURED}).score_text() == "predict on"
    assert book_with(tmp_path, {}).score_text() == "predict on"
    book.enabled = False
    assert book.score_text() == "predict off"


def test_a_hand_edited_kind_is_named_as_plain_text_after_the_known_ones(tmp_path: Path) -> None:
    book = book_with(tmp_path, {("02_add_relu.py", "tpu\x1b[2J"): RIGHT, ("02_add_relu.py", "cpu"): HALF})
    text = book.score_text()
    assert text.startswith("score cpu 1/2 · tpu") and text.endswith(" 2/2") and "\x1b" not in text
    assert (
        kind_label("cuda-preview sm_80") == "sm_80"
        and kind_label("cuda-preview") == "preview"
        and kind_label("cuda") == "cuda"
    )


def test_two_explorers_on_one_state_folder_keep_each_others_answers(tmp_path: Path) -> None:
    """Two terminals (or two tabs of --serve) on one state folder: each wrote the whole file from what it had read
    at its start, so the later save dropped the other's answers."""
    path = tmp_path / "predictions.json"
    first, second = PredictionBook(path), PredictionBook(path)
    first.record(("02_add_relu.py", "cpu"), RIGHT)
    second.record(("03_softmax.py", "cpu"), HALF)
    assert second.answers.keys() == {("02_add_relu.py", "cpu"), ("03_softmax.py", "cpu")}
    first.record(("04_layernorm.py", "cpu"), RIGHT)
    reopened = PredictionBook(path)
    assert reopened.answers == {
        ("02_add_relu.py", "cpu"): RIGHT,
        ("03_softmax.py", "cpu"): HALF,
        ("04_layernorm.py", "cpu"): RIGHT,
    }
    assert reopened.score == (5, 6) and first.save_error is None and second.save_error is None
