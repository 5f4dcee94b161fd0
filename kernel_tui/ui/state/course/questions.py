"""What a course lesson asks before its first run on a device: its own claims, each asked as its kind says.

A lesson is asked what it claims on the device it runs on (``ScenarioInfo.claims_for``): kernels and
transfers per call of ``fn``, each line's launches (24), a launch's blocks and warps on a GPU (25), the
boundaries between kernels (27), the part of a call that is overhead (28), the memory at the peak (29)...
``kernel_tui.ui.state.course.claim_kinds`` says how each kind is asked and graded; a kind no report of this device can
measure (a grid on the CPU, a time in a CUDA preview) is left out. Two lessons also ask what no claim can hold,
since it moves with the machine: which side is faster on tiny arrays (18), which ceiling limits each kernel
(20). Nothing here touches Textual or torch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernel_tui.ui.state.course.claim_kinds import CLAIM_KINDS, ClaimKind, Entry, kind_of

if TYPE_CHECKING:
    from kernel_tui.model.scenario.scenario_file import ScenarioInfo

UNCLAIMED = {
    "18_tiny_tensors.py": ("faster",),
    "20_matmul_against_elementwise.py": ("matmul_bound", "elementwise_bound"),
}
"""The questions a lesson asks that no claim can hold (a time, a roofline class that moves with the size), by
its file name: asked and graded as their kinds say, like any claim."""


@dataclass(frozen=True)
class Question:
    """One box of the dialog: a claim's key and the kind that asks and grades it."""

    key: str
    kind: ClaimKind

    @property
    def row(self) -> str:
        return self.kind.row(self.key)

    @property
    def column(self) -> str | None:
        return self.kind.column(self.key)

    @property
    def label(self) -> str:
        return self.kind.label(self.key)

    @property
    def entry(self) -> Entry:
        return self.kind.entry


Row = tuple[Question | None, ...]
"""One row of boxes: an eager and a compiled question (None where that side has nothing to ask), or a single
question across both columns."""


@dataclass(frozen=True)
class LessonQuestions:
    """What one lesson asks on one device, in the order the dialog visits the boxes."""

    questions: tuple[Question, ...]
    device: str
    """The device the answers are for (``cpu``, ``cuda``, ``cuda-preview``)."""
    lines: tuple[tuple[int, str], ...] = ()
    """The source of each line a question names (the code pane is behind the dialog)."""

    @property
    def in_order(self) -> tuple[Question, ...]:
        """The questions in the order Enter and Tab visit their boxes: along a row, then down."""
        return tuple(question for row in self.rows.values() for question in row if question is not None)

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(question.key for question in self.in_order)

    @property
    def rows(self) -> dict[str, Row]:
        """The questions by row label: a row of two columns, or of one question that spans them."""
        rows: dict[str, dict[str | None, Question]] = {}
        for question in self.questions:
            rows.setdefault(question.row, {})[question.column] = question
        return {
            label: (by_column[None],) if None in by_column else (by_column.get("eager"), by_column.get("compiled"))
            for label, by_column in rows.items()
        }

    @property
    def prompt(self) -> str:
        sentences = dict.fromkeys(question.kind.question for question in self.questions)
        prompt = f"Before the tables appear, on {self.device}: " + " ".join(sentences)
        if self.lines:
            prompt += "".join(f"\n  {number} │ {text}" for number, text in self.lines)
        return prompt

    @property
    def needs_sweep(self) -> bool:
        return any(question.kind.needs_sweep for question in self.questions)

    @property
    def per_arch(self) -> bool:
        return any(question.kind.per_arch for question in self.questions)


def lesson_questions(info: ScenarioInfo, device: str) -> LessonQuestions:
    """The questions ``info``'s lesson asks on ``device``: its claims there, then what no claim holds; each
    question whose kind that device can measure, grouped by kind in ``CLAIM_KINDS``'s order."""
    keys = [*info.claims_for(device), *UNCLAIMED.get(info.path.name, ())]
    questions = [Question(key, kind) for key in keys if (kind := kind_of(key)) is not None and device in kind.devices]
    questions.sort(key=lambda question: (CLAIM_KINDS.index(question.kind), *_numbers(question.key)))
    named = sorted({number for question in questions if question.kind.names_lines for number in _numbers(question.key)})
    return LessonQuestions(tuple(questions), device, _source_lines(info, named))


def _source_lines(info: ScenarioInfo, numbers: list[int]) -> tuple[tuple[int, str], ...]:
    """Lines ``numbers`` of the lesson's file, stripped (none if it cannot be read again: a question still
    names its line)."""
    if not numbers:
        return ()
    from kernel_tui.model.names.safe_text import safe_line
    from kernel_tui.model.scenario.scenario_file import ScenarioFileError, read_source

    try:
        source = read_source(info.path).splitlines()
    except ScenarioFileError:
        return ()
    return tuple((number, safe_line(source[number - 1].strip())) for number in numbers if number <= len(source))


def _numbers(key: str) -> tuple[int, ...]:
    """A key's line numbers, so that line 9 is asked before line 10 (none: the claim's own order holds)."""
    return tuple(int(number) for number in re.findall(r"\d+", key))
