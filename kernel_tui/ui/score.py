"""Predict, then reveal: the learner's guesses at each course lesson's kernel counts, and the score.

Before a course lesson runs for the first time the learner says how many kernels eager PyTorch and
``torch.compile`` will run per call of ``fn``, and how many array-sized transfers each side will cost (a
training lesson asks what it teaches instead: each section's kernels, and how many arrays forward keeps for
backward); once the engine has measured both sides, the guess is revealed beside the measurement with the
lesson's explanation (its text from ``**Why.**`` on), and counted.

Answered lessons are kept in ``predictions.json`` in kernel-tui's state folder (``KERNEL_TUI_STATE_DIR``,
see ``kernel_tui.ui.drafts.state_dir``), so the score carries across sessions. A lesson is known by its
file name (``02_add_relu.py``), which stays the same from one install of the course to the next.
Nothing here touches Textual.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kernel_tui.report_keys import MODES
from kernel_tui.ui.drafts import state_dir, write_text_atomic

if TYPE_CHECKING:
    from kernel_tui.report import ScenarioReport
    from kernel_tui.ui.catalog import ScenarioEntry

TRANSFERS = ("eager_transfers", "compiled_transfers")
"""The array-sized transfers of each mode, named as the lessons' claims name them."""
QUANTITIES = MODES + TRANSFERS
"""What the learner predicts for a forward-only lesson: kernels per call eager and compiled, then each
side's transfers."""
SECTION_KERNELS = ("eager_forward", "compiled_forward", "eager_backward", "compiled_backward")
SAVED = ("eager_saved", "compiled_saved")
TRAINING_QUANTITIES = SECTION_KERNELS + SAVED
"""What a training lesson asks (lessons 21-23 teach these): each section's kernels, each side, and what
forward keeps for backward, in arrays; named as the lessons' claims name them."""
QUESTIONS: dict[str, dict[str, tuple[str, str]]] = {
    "forward-only": {"kernels": MODES, "transfers": TRANSFERS},
    "training": {
        "forward kernels": ("eager_forward", "compiled_forward"),
        "backward kernels": ("eager_backward", "compiled_backward"),
        "saved arrays": SAVED,
    },
}
"""Each kind of lesson's rows of questions, each row an eager and a compiled quantity."""
WHOLE = frozenset(MODES + SECTION_KERNELS)
"""Kernel counts, right only when exact; the rest are fractions of an array, right within a slack."""
TRANSFER_SLACK = 0.25
"""A transfer guess is right within a quarter of a transfer (or 5 %, the claims' tolerance, if larger): a
broadcast bias adds 0.001, layer norm's small outputs a little more, and nobody is asked for decimals."""
SAVED_SLACK = 0.1
"""A saved-arrays guess is right within a tenth of an array (or 5 %): close enough for layer norm's two
numbers per row to count as 0, tight enough that 0 is not right for lesson 21's quarter-array mask."""
ALL_QUANTITIES = QUANTITIES + TRAINING_QUANTITIES
_ASKED = {kind: tuple(q for row in rows.values() for q in row) for kind, rows in QUESTIONS.items()}
FILE_NAME = "predictions.json"
VERSION = 2
HIDDEN_EXPLANATION = (
    "*The explanation is held back until you have predicted: r asks for your guess, runs the lesson, then "
    "reveals it. (t turns predicting off.)*"
)
"""What the lesson pane says in place of the explanation while a guess is still to be made."""
_WHY = re.compile(r"^\*\*Why\.\*\*[ \t]*", re.MULTILINE)
_TRY_NEXT = re.compile(r"^\*\*Try next\.\*\*", re.MULTILINE)


def split_lesson(lesson: str) -> tuple[str, str, str]:
    """(the question, the explanation after ``**Why.**``, the ``**Try next.**`` part) of a lesson.

    A lesson without a ``**Why.**`` paragraph is all question.
    """
    why = _WHY.search(lesson)
    if why is None:
        return lesson.rstrip(), "", ""
    question, rest = lesson[: why.start()].rstrip(), lesson[why.end() :]
    try_next = _TRY_NEXT.search(rest)
    if try_next is None:
        return question, rest.strip(), ""
    return question, rest[: try_next.start()].strip(), rest[try_next.start() :].strip()


def lesson_key(entry: ScenarioEntry) -> str:
    return entry.path.name


@dataclass(frozen=True)
class Answer:
    """One lesson's prediction and, once revealed, what was measured.

    Kernel counts are always there; transfers only in answers given since the dialog asked for them (an
    older answer, or a measurement without bytes, scores its kernel counts alone).
    """

    predicted: dict[str, float]
    measured: dict[str, float | None]

    @property
    def scored(self) -> tuple[str, ...]:
        """The quantities both guessed and measured, in the dialog's order."""
        return tuple(q for q in ALL_QUANTITIES if q in self.predicted and self.measured.get(q) is not None)

    def right(self, quantity: str) -> bool:
        measured = self.measured.get(quantity)
        if quantity not in self.predicted or measured is None:
            return False
        if quantity in WHOLE:
            return round(measured) == self.predicted[quantity]
        slack = SAVED_SLACK if quantity in SAVED else TRANSFER_SLACK
        return abs(measured - self.predicted[quantity]) <= max(slack, 0.05 * measured)

    @property
    def points(self) -> int:
        return sum(self.right(quantity) for quantity in self.scored)


class PredictionBook:
    """Which course lessons wait for a prediction, the guesses of runs under way, and the answers so far."""

    def __init__(self, path: Path | None = None, *, enabled: bool = True) -> None:
        self.path = path if path is not None else state_dir() / FILE_NAME
        self.enabled = enabled
        """Off (``--no-predict`` or the toggle key): runs start at once and lessons show their explanation."""
        self.answers: dict[str, Answer] = self._load()
        self.pending: dict[str, dict[str, float]] = {}
        """Guesses made for runs whose counts are not in yet, by lesson."""
        self.save_error: str | None = None
        """Why the latest answer could not be written (the score then lasts this session only)."""

    # -- what to ask, what to hide ----------------------------------------------------------------

    def applies_to(self, entry: ScenarioEntry) -> bool:
        """A readable lesson of the built-in course (the learner's own files are never quizzed)."""
        return not entry.user_file and entry.info is not None and entry.read_error is None

    def questions(self, entry: ScenarioEntry) -> dict[str, tuple[str, str]]:
        """The rows the dialog asks for ``entry``: a training lesson is asked what it teaches, each section's
        kernels and what forward saves for backward; any other lesson its kernels and transfers per call."""
        return QUESTIONS["training" if entry.info is not None and entry.info.train else "forward-only"]

    def wants_prediction(self, entry: ScenarioEntry) -> bool:
        """Ask before running: on, a course lesson, neither answered nor already guessed for a run."""
        key = lesson_key(entry)
        return self.enabled and self.applies_to(entry) and key not in self.answers and key not in self.pending

    def hides_explanation(self, entry: ScenarioEntry) -> bool:
        """The lesson's explanation would give the answer away: hide it until the guess is revealed."""
        return self.enabled and self.applies_to(entry) and lesson_key(entry) not in self.answers

    def guessed(self, entry: ScenarioEntry, mode: str) -> int | None:
        """The count the learner predicted for ``mode``, once it has been revealed (for the tables); None for
        a training lesson, whose guesses are per section (the reveal shows them beside each section's)."""
        answer = self.answers.get(lesson_key(entry))
        if answer is None or not self.applies_to(entry) or mode not in answer.predicted:
            return None
        return round(answer.predicted[mode])

    # -- guessing and revealing ---------------------------------------------------------------------

    def predict(self, entry: ScenarioEntry, guess: dict[str, float]) -> None:
        """The learner's guess for the run about to start, keyed as ``questions(entry)`` names them."""
        self.pending[lesson_key(entry)] = dict(guess)

    def reveal(self, entry: ScenarioEntry, report: ScenarioReport | None) -> Answer | None:
        """If a guess waits for this lesson and the report has both counts: score it, save it, return it."""
        key = lesson_key(entry)
        if key not in self.pending or report is None or report.eager is None or report.compiled is None:
            return None
        from kernel_tui.expect import MEASURES  # the report's module loads with the first run, not the first frame

        guess = self.pending.pop(key)
        measured: dict[str, float | None] = {quantity: MEASURES[quantity](report) for quantity in guess}
        for mode in MODES:
            # No kernels move no bytes, whether or not the report says 0 (a views-only function).
            if f"{mode}_transfers" in measured and MEASURES[mode](report) == 0:
                measured[f"{mode}_transfers"] = 0.0
        answer = Answer(guess, measured)
        self.answers[key] = answer
        self._save()
        return answer

    def forget(self, entry: ScenarioEntry) -> None:
        """Ask again next time (the run the guess was for did not measure both counts)."""
        self.pending.pop(lesson_key(entry), None)

    # -- the score ----------------------------------------------------------------------------------

    @property
    def score(self) -> tuple[int, int]:
        """(predictions right, predictions scored) over every answered lesson: kernels and transfers, each
        side (an answer from before transfers were asked counts its two kernel counts)."""
        answers = self.answers.values()
        return sum(answer.points for answer in answers), sum(len(answer.scored) for answer in answers)

    def score_text(self) -> str:
        """For the header (short, it goes before the title): ``score 5/6``, ``predict on``, ``predict off``."""
        if not self.enabled:
            return "predict off"
        right, asked = self.score
        return f"score {right}/{asked}" if asked else "predict on"

    # -- the file -----------------------------------------------------------------------------------

    def _load(self) -> dict[str, Answer]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        answers = {}
        lessons = data.get("lessons", {}) if isinstance(data, dict) else {}
        for key, value in lessons.items() if isinstance(lessons, dict) else ():
            answer = _answer_from(value)
            if answer is not None:
                answers[key] = answer
        return answers

    def _save(self) -> None:
        lessons = {key: {"predicted": a.predicted, "measured": a.measured} for key, a in self.answers.items()}
        try:
            write_text_atomic(self.path, json.dumps({"version": VERSION, "lessons": lessons}, indent=1) + "\n")
        except OSError as error:
            # A read-only home must not stop the course: the explorer says so, the score lasts this session.
            self.save_error = f"could not save the score to {self.path}: {error.strerror or error}"
        else:
            self.save_error = None


def _answer_from(value: Any) -> Answer | None:
    """An answer read back from the file; None for anything malformed (a hand edit, an older format)."""
    try:
        predicted: dict[str, float] = {}
        measured: dict[str, float | None] = {}
        for key in ALL_QUANTITIES:  # transfers are absent in answers from before the dialog asked for them
            if value["predicted"].get(key) is None:
                continue
            predicted[key] = int(value["predicted"][key]) if key in WHOLE else float(value["predicted"][key])
            found = value["measured"].get(key)
            measured[key] = None if found is None else float(found)
    except (AttributeError, KeyError, TypeError, ValueError):
        return None
    # Every kernel count of one kind of question, or the answer is damaged (a hand edit, another format).
    complete = any(all(q in predicted for q in quantities if q in WHOLE) for quantities in _ASKED.values())
    return Answer(predicted, measured) if complete else None
