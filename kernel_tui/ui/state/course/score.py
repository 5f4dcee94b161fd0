"""Predict, then reveal: the learner's guesses at each course lesson's claims, device by device, and the score.

Before a course lesson runs for the first time on a kind of device the learner answers what the lesson claims
there (``kernel_tui.ui.state.course.questions``: its kernels and transfers, each line's launches, a GPU launch's
blocks and warps, the boundaries between kernels, the memory at the peak...); once a run of that kind of device has
measured them, the guess is revealed beside the measurement with the lesson's explanation (its text from
``**Why.**`` on), and counted. A guess is never graded against a run on another kind of device: the lesson is
asked again for that one (``kernel_tui.ui.state.course.answers.device_kind``).

Answers are kept in ``predictions.json`` in kernel-tui's state folder (``KERNEL_TUI_STATE_DIR``, see
``kernel_tui.ui.link.state_folder.state_dir``), by lesson and kind of device, so the score carries across sessions. A
lesson is known by its file name (``02_add_relu.py``), which stays the same from one install of the course to
the next. Nothing here touches Textual.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kernel_tui.model.names.safe_text import safe_line
from kernel_tui.model.storage.atomic_write import write_atomic
from kernel_tui.model.storage.file_lock import held_alone
from kernel_tui.ui.link.state_folder import state_dir
from kernel_tui.ui.state.course.answers import Answer, AnswerKey, answers_text, device_kind, read_answers
from kernel_tui.ui.state.course.claim_kinds import kind_of, measure, unsettled
from kernel_tui.ui.state.course.questions import LessonQuestions, lesson_questions

if TYPE_CHECKING:
    from kernel_tui.model.report.report import ScenarioReport
    from kernel_tui.model.scenario.scenario_file import ScenarioInfo
    from kernel_tui.ui.state.course.catalog import ScenarioEntry

FILE_NAME = "predictions.json"
SAVE_LOCK_WAIT_S = 2.0
"""How long a save waits for another explorer's: a read, a merge and a write of a small file."""
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
class WaitingGuess:
    """A guess waiting for the run it was made before, and the device it was asked for."""

    values: dict[str, float]
    """The learner's answers by claim key."""
    device: str
    arch: int | None
    per_arch: bool
    """Whether its questions change with a CUDA preview's architecture (``answers.device_kind``)."""

    def device_kind(self, device: str | None = None, arch: int | None = None) -> str:
        """The kind of device it was asked for; with ``device``, the kind a run on that device is, as it counts
        for this guess."""
        if device is None:
            device, arch = self.device, self.arch
        return device_kind(device, arch, per_arch=self.per_arch)


class PredictionBook:
    """Which course lessons wait for a prediction on this device, the guesses of runs under way, the answers."""

    def __init__(
        self, path: Path | None = None, *, enabled: bool = True, device: str = "cpu", arch: int | None = None
    ) -> None:
        self.path = path if path is not None else state_dir() / FILE_NAME
        self.enabled = enabled
        """Off (``--no-predict`` or the toggle key): runs start at once and lessons show their explanation."""
        self.device = "cpu"
        self.arch: int | None = None
        self.use_device(device, arch)
        self.answers: dict[AnswerKey, Answer] = self._load()
        """Every answer so far, by lesson and kind of device."""
        self.pending: dict[str, WaitingGuess] = {}
        """Guesses made for runs whose counts are not in yet, by lesson."""
        self.save_error: str | None = None
        """Why the latest answer could not be written (the score then lasts this session only)."""
        self._asked: dict[tuple[Path, str], tuple[ScenarioInfo, LessonQuestions]] = {}

    def use_device(self, device: str, arch: int | None = None) -> None:
        """The device runs are measured on from now on (the engine's hello, a saved report): lessons are asked
        its claims, and a lesson answered on another kind of device is asked again. ``auto`` is the CPU until
        the engine says otherwise."""
        self.device = device if device != "auto" else "cpu"
        self.arch = arch

    # -- what to ask, what to hide ----------------------------------------------------------------

    def applies_to(self, entry: ScenarioEntry) -> bool:
        """A readable lesson of the built-in course (the learner's own files are never quizzed)."""
        return not entry.user_file and entry.info is not None and entry.read_error is None

    def questions(self, entry: ScenarioEntry) -> LessonQuestions:
        """What the dialog asks for ``entry`` on this device: its lesson's claims there."""
        if entry.info is None:
            return LessonQuestions((), self.device)
        # Asked on every refresh of the panes (keys held down): worked out once per read of the lesson and device.
        cached = self._asked.get((entry.path, self.device))
        if cached is None or cached[0] is not entry.info:
            cached = entry.info, lesson_questions(entry.info, self.device)
            self._asked[entry.path, self.device] = cached
        return cached[1]

    def device_kind(self, entry: ScenarioEntry) -> str:
        """The kind of device an answer for ``entry`` made now is for."""
        return device_kind(self.device, self.arch, per_arch=self.questions(entry).per_arch)

    def _key(self, entry: ScenarioEntry) -> AnswerKey:
        return lesson_key(entry), self.device_kind(entry)

    def needs_sweep(self, entry: ScenarioEntry) -> bool:
        """The questions for ``entry`` are answered by the size sweep (lessons 16 and 17): run it with one."""
        return self.questions(entry).needs_sweep

    def wants_prediction(self, entry: ScenarioEntry) -> bool:
        """Ask before running: on, a course lesson with something to ask on this device, neither answered for
        this kind of device nor already guessed for a run."""
        return (
            self.enabled
            and self.applies_to(entry)
            and bool(self.questions(entry).questions)
            and self._key(entry) not in self.answers
            and lesson_key(entry) not in self.pending
        )

    def hides_explanation(self, entry: ScenarioEntry) -> bool:
        """The lesson's explanation would give the answer away: hide it until the guess for this kind of device
        is revealed."""
        return (
            self.enabled
            and self.applies_to(entry)
            and bool(self.questions(entry).questions)
            and self._key(entry) not in self.answers
        )

    def guessed(self, entry: ScenarioEntry, mode: str) -> int | None:
        """The kernel count the learner predicted for ``mode`` on this kind of device, once it has been revealed
        (for the tables); None where the lesson asked no such count."""
        answer = self.answers.get(self._key(entry))
        if answer is None or not self.applies_to(entry) or mode not in answer.predicted:
            return None
        return round(answer.predicted[mode])

    # -- guessing and revealing ---------------------------------------------------------------------

    def predict(self, entry: ScenarioEntry, guess: dict[str, float]) -> None:
        """The learner's guess for the run about to start on this device, keyed by claim."""
        per_arch = self.questions(entry).per_arch
        self.pending[lesson_key(entry)] = WaitingGuess(dict(guess), self.device, self.arch, per_arch)

    def guess_device(self, entry: ScenarioEntry) -> str:
        """The kind of device the guess waiting for ``entry`` was made for (none waiting: this device's)."""
        guess = self.pending.get(lesson_key(entry))
        return guess.device_kind() if guess is not None else self.device_kind(entry)

    def off_device(self, entry: ScenarioEntry, report: ScenarioReport | None) -> str | None:
        """If the guess waiting for ``entry`` was asked for another kind of device than ``report``'s: forget it
        (it is never graded against this run), take the report's device, and say so; else None."""
        guess = self.pending.get(lesson_key(entry))
        if guess is None or report is None:
            return None
        asked, ran = guess.device_kind(), guess.device_kind(report.device, report.arch)
        if asked == ran:
            return None
        del self.pending[lesson_key(entry)]
        self.use_device(report.device, report.arch)
        return f"Your guess was for {asked} and this run is on {ran}: it is not graded. r asks again, for {ran}."

    def reveal(self, entry: ScenarioEntry, report: ScenarioReport | None, *, finished: bool = True) -> Answer | None:
        """If a guess waits for this lesson, the report is of its kind of device and has both sides (and, for a
        question the sweep answers, the run has ``finished``): score it, save it, return it."""
        key = lesson_key(entry)
        guess = self.pending.get(key)
        if guess is None or report is None or report.eager is None or report.compiled is None:
            return None
        if self.off_device(entry, report) is not None:
            return None
        if self.waits_for_sweep(entry) and (not finished or not report.sweep):
            return None  # the sweep's compiles are counted when a run with the sweep ends
        del self.pending[key]
        reasons = {claim: unsettled(claim, report) for claim in guess.values}
        answer = Answer(
            guess.values,
            {claim: measure(claim, report) for claim in guess.values},
            {claim: reason for claim, reason in reasons.items() if reason is not None},
        )
        self.record((key, guess.device_kind()), answer)
        return answer

    def record(self, key: AnswerKey, answer: Answer) -> None:
        """Keep ``answer`` and save it beside the answers on disk: another explorer on the same state folder (a
        second terminal, two tabs of ``--serve``) may have saved its own since this one read the file, and a
        whole-file write of this one's answers lost them. Whoever saves last adds to the file, never replaces it."""
        self.answers[key] = answer
        try:
            with held_alone(self.path.with_name(self.path.name + ".lock"), wait_s=SAVE_LOCK_WAIT_S):
                self.answers = {**self.answers, **self._load(), key: answer}
                write_atomic(self.path, answers_text(self.answers))
        except OSError as error:
            # A read-only home must not stop the course: the explorer says so, the score lasts this session.
            self.save_error = f"could not save the score to {self.path}: {error.strerror or error}"
        else:
            self.save_error = None

    def waits_for_sweep(self, entry: ScenarioEntry) -> bool:
        """A guess for ``entry`` waits for the size sweep to count what it asked."""
        guess = self.pending.get(lesson_key(entry))
        return guess is not None and any(getattr(kind_of(key), "needs_sweep", False) for key in guess.values)

    def forget(self, entry: ScenarioEntry) -> None:
        """Ask again next time (the run the guess was for did not measure both counts)."""
        self.pending.pop(lesson_key(entry), None)

    # -- the score ----------------------------------------------------------------------------------

    @property
    def score(self) -> tuple[int, int]:
        """(predictions right, predictions scored) over every answer on every kind of device."""
        answers = self.answers.values()
        return sum(answer.points for answer in answers), sum(len(answer.scored) for answer in answers)

    def score_by_device(self) -> dict[str, tuple[int, int]]:
        """(right, scored) for each kind of device answered on: the CPU, CUDA, then the previews by architecture."""
        scores: dict[str, tuple[int, int]] = {}
        for (_, device), answer in self.answers.items():
            right, asked = scores.get(device, (0, 0))
            scores[device] = right + answer.points, asked + len(answer.scored)
        return {device: scores[device] for device in sorted(scores, key=_kind_order)}

    def score_text(self) -> str:
        """For the header (short, it goes before the title): the score on each kind of device that has one,
        ``score cpu 5/7 · cuda 2/3``; ``predict on`` before any, ``predict off``. A guess is never graded
        against another kind of device, so neither is the sum of both a score of anything."""
        if not self.enabled:
            return "predict off"
        scored = [
            f"{kind_label(kind)} {right}/{asked}" for kind, (right, asked) in self.score_by_device().items() if asked
        ]
        return f"score {' · '.join(scored)}" if scored else "predict on"

    def score_line(self) -> str:
        """The reveal's last line: the score across the course, by device where there are several."""
        right, asked = self.score
        line = f"Score across the course: {right} of {asked} predictions right"
        by_device = self.score_by_device()
        if len(by_device) > 1:
            line += " (" + " · ".join(f"{device} {r}/{a}" for device, (r, a) in by_device.items()) + ")"
        return line + "."

    # -- the file -----------------------------------------------------------------------------------

    def _load(self) -> dict[AnswerKey, Answer]:
        try:
            return read_answers(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            return {}


_KIND_ORDER = ("cpu", "cuda", "cuda-preview")


def kind_label(kind: str) -> str:
    """A kind of device as the header names it: ``cpu``, ``cuda``, ``preview`` (the CUDA preview's answers that
    hold for every architecture), ``sm_90`` (a preview's for one: only a preview is kept by architecture). Short,
    so that three kinds fit whole in an 80-column header."""
    device, _, arch = kind.partition(" ")
    if device == "cuda-preview":
        return safe_line(arch) or "preview"
    return safe_line(kind)  # a hand-edited file's own kind, shown as text


def _kind_order(kind: str) -> tuple[int, int, str]:
    device, _, arch = kind.partition(" ")
    rank = _KIND_ORDER.index(device) if device in _KIND_ORDER else len(_KIND_ORDER)
    number = arch.removeprefix("sm_")
    return rank, int(number) if number.isdigit() else 0, kind
