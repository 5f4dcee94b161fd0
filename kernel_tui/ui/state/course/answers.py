"""A lesson's answer on one kind of device, graded claim by claim, and the file the course's answers are kept in.

An answer belongs to the kind of device its guess was made for (``device_kind``): ``cpu``, ``cuda``, or a CUDA
preview, which is one kind per GPU architecture where the lesson asks what changes with it (a launch's grid and
warps), else one for all of them. The file (``predictions.json``, version 3) keeps each lesson's answers by
that kind; a file of version 2 kept one answer a lesson, with no device: it is read as the device it names if it
names one, else as the CPU's, where those answers were made. Nothing here touches Textual.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from kernel_tui.ui.state.course.claim_kinds import Amount, Choice, Count, kind_of

VERSION = 3
OLD_DEVICE = "cpu"
"""The device of an answer saved before answers named theirs: the CPU, where the course was answered."""
AnswerKey = tuple[str, str]
"""(the lesson's file name, the kind of device)."""


def device_kind(device: str, arch: int | None, *, per_arch: bool) -> str:
    """The kind of device an answer holds for: a CUDA preview's architecture counts where the answer needs it."""
    if device != "cuda-preview" or not per_arch:
        return device
    if arch is None:
        from kernel_tui.transport.protocol import DEFAULT_ARCH

        arch = DEFAULT_ARCH
    return f"{device} sm_{arch}"


@dataclass(frozen=True)
class Answer:
    """One lesson's prediction on one kind of device and, once revealed, what a run of that kind measured."""

    predicted: dict[str, float]
    """The guesses by claim key, in the order the dialog asked them."""
    measured: dict[str, float | None]
    unsettled: dict[str, str] = field(default_factory=dict)
    """Why a claim measured None could not be graded (``too noisy to tell: ...``), for the reveal; not saved."""

    @property
    def scored(self) -> tuple[str, ...]:
        """The claims both guessed and measured, in the dialog's order."""
        return tuple(key for key in self.predicted if self.measured.get(key) is not None and kind_of(key))

    def right(self, key: str) -> bool:
        measured = self.measured.get(key)
        kind = kind_of(key)
        if key not in self.predicted or measured is None or kind is None:
            return False
        return kind.right(self.predicted[key], measured)

    @property
    def points(self) -> int:
        return sum(self.right(key) for key in self.scored)


def read_answers(text: str) -> dict[AnswerKey, Answer]:
    """The answers of a saved file; whatever is malformed in it (a hand edit, another format) is left out."""
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    lessons = data.get("lessons") if isinstance(data, dict) else None
    answers: dict[AnswerKey, Answer] = {}
    for lesson, value in lessons.items() if isinstance(lessons, dict) else ():
        if not isinstance(value, dict):
            continue
        if "predicted" in value:  # version 2: one answer a lesson
            by_device = {str(value.get("device") or OLD_DEVICE): value}
        else:
            by_device = value
        for device, saved in by_device.items():
            answer = _answer_from(saved)
            if answer is not None:
                answers[lesson, device] = answer
    return answers


def answers_text(answers: dict[AnswerKey, Answer]) -> str:
    lessons: dict[str, dict[str, Any]] = {}
    for (lesson, device), answer in answers.items():
        lessons.setdefault(lesson, {})[device] = {"predicted": answer.predicted, "measured": answer.measured}
    return json.dumps({"version": VERSION, "lessons": lessons}, indent=1) + "\n"


def _answer_from(value: Any) -> Answer | None:
    """One saved answer; None when it is damaged or holds no claim any kind knows."""
    try:
        predicted: dict[str, float] = {}
        measured: dict[str, float | None] = {}
        for key, guess in value["predicted"].items():
            kind = kind_of(key)
            if kind is None or guess is None:
                continue
            whole = isinstance(kind.entry, Count | Choice)
            if not math.isfinite(float(guess)):
                return None
            predicted[key] = int(guess) if whole else float(guess)
            if isinstance(kind.entry, Choice) and not 0 <= predicted[key] < len(kind.entry.words):
                return None
            if isinstance(kind.entry, Amount | Count) and predicted[key] < 0:
                return None
            found = value["measured"].get(key)
            measured[key] = None if found is None or not math.isfinite(float(found)) else float(found)
    except (AttributeError, KeyError, TypeError, ValueError, OverflowError):
        return None
    return Answer(predicted, measured) if predicted else None
