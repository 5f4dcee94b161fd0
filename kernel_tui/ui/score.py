"""Predict, then reveal: the learner's guesses at each course lesson's kernel counts, and the score.

Before a course lesson runs for the first time the learner answers what the lesson teaches
(``kernel_tui.ui.questions``: most lessons, how many kernels eager PyTorch and ``torch.compile`` will run per
call of ``fn`` and how many array-sized transfers each side will cost; others each section's kernels, the
graph breaks, the sweep's compiles, the faster side or each kernel's roofline class); once the engine has
measured them, the guess is revealed beside the measurement with the lesson's explanation (its text from
``**Why.**`` on), and counted.

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

from kernel_tui.model.report_keys import MODES
from kernel_tui.ui.drafts import state_dir, write_text_atomic
from kernel_tui.ui.questions import CHOICES, QUESTIONS, SAVED, SECTION_KERNELS, SWEPT, Row, asked, lesson_kind, measure

if TYPE_CHECKING:
    from kernel_tui.model.report import ScenarioReport
    from kernel_tui.ui.catalog import ScenarioEntry

WHOLE = frozenset(
    MODES
    + SECTION_KERNELS
    + ("graph_breaks", "sweep_compiles", "boundaries", "boundaries_library", "boundaries_reduction")
)
"""Counts, right only when exact; a choice is right when it is the measured one; the rest are fractions of an
array, right within a slack."""
TRANSFER_SLACK = 0.25
"""A transfer guess is right within a quarter of a transfer (or 5 %, the claims' tolerance, if larger): a
broadcast bias adds 0.001, layer norm's small outputs a little more, and nobody is asked for decimals."""
SAVED_SLACK = 0.1
"""A saved-arrays guess is right within a tenth of an array (or 5 %): close enough for layer norm's two
numbers per row to count as 0, tight enough that 0 is not right for lesson 21's quarter-array mask."""
ALL_QUANTITIES = tuple(dict.fromkeys(q for rows in QUESTIONS.values() for q in asked(rows)))
"""Every quantity any lesson asks, in the dialogs' order."""
_ASKED = {kind: asked(rows) for kind, rows in QUESTIONS.items()}
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
        if quantity in WHOLE or quantity in CHOICES:
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

    def kind(self, entry: ScenarioEntry) -> str:
        """Which of ``QUESTIONS`` the dialog asks for ``entry``: what its lesson teaches."""
        return lesson_kind(entry.info) if entry.info is not None else "forward-only"

    def questions(self, entry: ScenarioEntry) -> dict[str, Row]:
        return QUESTIONS[self.kind(entry)]

    def needs_sweep(self, entry: ScenarioEntry) -> bool:
        """The questions for ``entry`` are answered by the size sweep (lessons 16 and 17): run it with one."""
        return any(quantity in SWEPT for quantity in asked(self.questions(entry)))

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

    def reveal(self, entry: ScenarioEntry, report: ScenarioReport | None, *, finished: bool = True) -> Answer | None:
        """If a guess waits for this lesson and the report has both counts (and, for a question the sweep
        answers, the run has ``finished``): score it, save it, return it."""
        key = lesson_key(entry)
        if key not in self.pending or report is None or report.eager is None or report.compiled is None:
            return None
        if self.waits_for_sweep(entry) and (not finished or not report.sweep):
            return None  # the sweep's compiles are counted when a run with the sweep ends
        guess = self.pending.pop(key)
        measured: dict[str, float | None] = {quantity: measure(quantity, report) for quantity in guess}
        for mode in MODES:
            # No kernels move no bytes, whether or not the report says 0 (a views-only function).
            if f"{mode}_transfers" in measured and measure(mode, report) == 0:
                measured[f"{mode}_transfers"] = 0.0
        answer = Answer(guess, measured)
        self.answers[key] = answer
        self._save()
        return answer

    def waits_for_sweep(self, entry: ScenarioEntry) -> bool:
        """A guess for ``entry`` waits for the size sweep to count what it asked."""
        return any(quantity in SWEPT for quantity in self.pending.get(lesson_key(entry), ()))

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
            whole = key in WHOLE or key in CHOICES
            predicted[key] = int(value["predicted"][key]) if whole else float(value["predicted"][key])
            found = value["measured"].get(key)
            measured[key] = None if found is None else float(found)
    except (AttributeError, KeyError, TypeError, ValueError):
        return None
    # Every kernel count of one kind of question, or the answer is damaged (a hand edit, another format).
    complete = any(
        all(q in predicted for q in quantities if q in WHOLE or q in CHOICES) for quantities in _ASKED.values()
    )
    return Answer(predicted, measured) if complete else None
