"""What each kind of course lesson asks before its first run, and how each answer is measured.

A lesson is asked what it teaches: most lessons their kernels and array-sized transfers per call of ``fn``;
a training step (21-23) each section's kernels and what forward keeps for backward; a graph break (15) how
many breaks; why kernels stayed apart (27) how many boundaries, and how many of two kinds; a size sweep (16, 17)
how many compiles it takes; tiny tensors (18) which side is faster; the
roofline (20) which ceiling limits each kernel. Counts are measured as the lesson's claims measure them
(``kernel_tui.model.expect.MEASURES``); a question no claim can hold (a time, a roofline class that moves with the
size) is measured here from the same report. Nothing here touches Textual or torch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kernel_tui.model.report_keys import MODES

if TYPE_CHECKING:
    from kernel_tui.model.report import ScenarioReport
    from kernel_tui.model.scenario_file import ScenarioInfo

Row = tuple[str | None, ...]
"""One row of boxes: an eager and a compiled quantity (None where that side has nothing to ask, as eager has
no graph breaks), or a single choice that spans both columns."""

TRANSFERS = ("eager_transfers", "compiled_transfers")
SECTION_KERNELS = ("eager_forward", "compiled_forward", "eager_backward", "compiled_backward")
SAVED = ("eager_saved", "compiled_saved")
FASTER = "faster"
MATMUL_BOUND = "matmul_bound"
ELEMENTWISE_BOUND = "elementwise_bound"
BOUNDS = ("compute", "memory", "overhead")
CHOICES: dict[str, tuple[str, ...]] = {
    FASTER: MODES,
    MATMUL_BOUND: BOUNDS,
    ELEMENTWISE_BOUND: BOUNDS,
}
"""The questions answered by a word rather than a number, and their words (a unique first letter or more is
enough); an answer is kept as the index of its word."""
SWEPT = frozenset({"sweep_compiles"})
"""Measured by the size sweep alone: asked before a run with the sweep, graded once the sweep has ended."""

QUESTIONS: dict[str, dict[str, Row]] = {
    "forward-only": {"kernels": MODES, "transfers": TRANSFERS},
    "training": {
        "forward kernels": ("eager_forward", "compiled_forward"),
        "backward kernels": ("eager_backward", "compiled_backward"),
        "saved arrays": SAVED,
    },
    "graph-break": {"kernels": MODES, "graph breaks": (None, "graph_breaks")},
    "boundaries": {
        "kernels": MODES,
        "boundaries": (None, "boundaries"),
        "library calls": (None, "boundaries_library"),
        "after a reduction": (None, "boundaries_reduction"),
    },
    "sweep": {"sweep compiles": (None, "sweep_compiles")},
    "tiny": {"kernels": MODES, "transfers": TRANSFERS, "faster side": (FASTER,)},
    "roofline": {
        "kernels": MODES,
        "transfers": TRANSFERS,
        "mm kernel": (MATMUL_BOUND,),
        "tanh kernel": (ELEMENTWISE_BOUND,),
    },
}
"""Each kind of lesson's rows of questions, by the row's label."""
LESSON_KINDS = {"18_tiny_tensors.py": "tiny", "20_matmul_against_elementwise.py": "roofline"}
"""The lessons whose question no claim names (a time, a roofline class), by file name."""


def lesson_kind(info: ScenarioInfo) -> str:
    """Which of ``QUESTIONS`` a lesson asks: by what it claims (a claim names what the lesson teaches), else
    by its file name."""
    claims = set(info.expect) | {key for value in info.expect.values() if isinstance(value, dict) for key in value}
    if info.train:
        return "training"
    if "sweep_compiles" in claims:
        return "sweep"
    if "graph_breaks" in claims:
        return "graph-break"
    if "boundaries" in claims:
        return "boundaries"
    return LESSON_KINDS.get(info.path.name, "forward-only")


def asked(rows: dict[str, Row]) -> tuple[str, ...]:
    """The quantities of these rows, in the order the dialog visits their boxes."""
    return tuple(quantity for row in rows.values() for quantity in row if quantity is not None)


def _faster(report: ScenarioReport) -> float | None:
    """The side whose call took less time, by the wall time of back-to-back calls (the fixed cost per call
    included, which is what lesson 18 is about; on CPU the same as the kernel time)."""
    times = [
        mode.wall_us if mode.wall_us is not None else mode.time_us
        for mode in (report.eager, report.compiled)
        if mode is not None
    ]
    if len(times) != 2 or None in times:
        return None
    eager_us, compiled_us = times
    assert eager_us is not None and compiled_us is not None
    return float(compiled_us < eager_us)


def _bound_of(pick: Callable[[list[tuple[int, str]]], tuple[int, str]]) -> Callable[[ScenarioReport], float | None]:
    """The roofline class of one eager kernel, chosen by its arithmetic among those the engine classed."""

    def measure(report: ScenarioReport) -> float | None:
        kernels = report.eager.kernels if report.eager is not None else ()
        classed = [(kernel.flops, kernel.bound) for kernel in kernels if kernel.flops and kernel.bound]
        if not classed:
            return None
        _, bound = pick(classed)
        word = bound.split("-")[0]
        return float(BOUNDS.index(word)) if word in BOUNDS else None

    return measure


MEASURES: dict[str, Callable[[ScenarioReport], float | None]] = {
    FASTER: _faster,
    MATMUL_BOUND: _bound_of(max),  # the matmul does by far the most arithmetic
    ELEMENTWISE_BOUND: _bound_of(min),  # the tanh the least
}
"""The measures of the questions no claim names."""


def measure(quantity: str, report: ScenarioReport) -> float | None:
    """What ``report`` measured for ``quantity``: as its claim measures it, or as ``MEASURES`` does here."""
    if quantity in MEASURES:
        return MEASURES[quantity](report)
    from kernel_tui.model.expect import MEASURES as CLAIM_MEASURES
    from kernel_tui.model.expect import sweep_cut_short

    if quantity in SWEPT and sweep_cut_short(report) is not None:
        return None  # a sweep cut short compiled for only some of its sizes
    return CLAIM_MEASURES[quantity](report)


def choice_index(quantity: str, text: str) -> int | None:
    """The word a box's text names (a unique beginning of one of its words), as its index; None if none."""
    text = text.strip().lower()
    matches = [index for index, word in enumerate(CHOICES[quantity]) if text and word.startswith(text)]
    return matches[0] if len(matches) == 1 else None
