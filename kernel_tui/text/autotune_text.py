"""What a max-autotune variant tuned, in words: per operation its candidates fastest first, each with its time
and its share of the best ("% of best"), the winner, and what choosing it gave up. ``kernel-tui run`` prints
these lines under the variants table and the explorer under its variants pane.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kernel_tui.model.report.compile_variants import LIBRARY

if TYPE_CHECKING:
    from kernel_tui.model.report.compile_variants import TunedOperation
    from kernel_tui.model.report.report import VariantResult

SHOWN_CHOICES = 4
"""Candidates listed per operation: a GPU times tens of Triton configurations, and past the best few the rest
say only how many there were."""
CPU_AND_GPU = (
    "on a CPU Inductor times ATen's call against its C++ template (bmm, or a constant weight under freezing); "
    "a GPU also times Triton templates, tens of block sizes each, so its winners can differ"
)
"""What the tuning seen on one device says about another."""


def autotune_lines(name: str, variant: VariantResult, device: str) -> list[str]:
    """Two lines or more per tuned operation of ``variant`` (named ``name``), and which device's tuning it was."""
    lines: list[str] = []
    for operation in variant.autotune:
        lines.extend(_operation_lines(name, operation))
    if lines and device != "cuda":
        lines.append(f"  {CPU_AND_GPU}")
    return lines


def _operation_lines(name: str, operation: TunedOperation) -> list[str]:
    shapes = ", ".join("×".join(str(size) for size in shape) for shape in operation.shapes)
    winner = operation.winner
    chosen = f"chose {winner.name}" if winner is not None else "no candidate ran"
    head = f"{name}: autotuned {operation.operation}({shapes}): {len(operation.choices)} candidates, {chosen}"
    lines = [head]
    for choice in operation.choices[:SHOWN_CHOICES]:
        percent = operation.percent_of_best(choice)
        time = f"{choice.time_ms:.4f} ms" if choice.time_ms is not None else "failed"
        share = f"{percent:.1f}% of best" if percent is not None else "—"
        kind = "library call" if choice.kind == LIBRARY else "template"
        mark = "★" if choice is winner else " "
        lines.append(f"  {mark} {choice.name:<28} {time:>12}  {share:>13}  {kind}")
    if len(operation.choices) > SHOWN_CHOICES:
        lines.append(f"    … and {len(operation.choices) - SHOWN_CHOICES} more")
    lines.append(f"  gave up: {operation.gave_up()}")
    return lines
