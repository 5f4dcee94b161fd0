"""What a variant shows beyond its row of the variants table, in words: what a max-autotune variant tuned, and
the recompiles the suggested variant fixes. ``kernel-tui run`` prints these lines under the variants table and the
explorer under its variants pane.

Tuning: per operation its candidates fastest first, each with its time and its share of the best ("% of best"),
the winner, and what choosing it gave up. Recompiles: the guard that failed, then the compiled column's kernels
and those of the variant the verdict suggests side by side, each with its arguments (a size that became a symbol
is an argument ``ks0``, ``ks1``… of the kernel), its masks (a Triton kernel's ``xmask``…) and its time per call.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kernel_tui.model.report.compile_variants import LIBRARY
from kernel_tui.text.formatting import format_time_us

if TYPE_CHECKING:
    from kernel_tui.model.report.compile_variants import TunedOperation
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.mode_result import ModeResult
    from kernel_tui.model.report.report import ScenarioReport, VariantResult

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


_SIGNATURE = re.compile(r"(?:\bkernel|\bdef \w+)\s*\(([^)]*)\)", re.S)
"""A generated kernel's parameter list: a C++ kernel's ``kernel(...)``, a Triton kernel's ``def name(...)``."""
_MASK = re.compile(r"\b(\w*mask)\s*=")
"""A Triton kernel's masks (``xmask = xindex < xnumel``): the bounds checks of a block that may overrun."""
_SYMBOL = re.compile(r"^ks\d+$")
"""Inductor's name for a size it passes at run time: a size that became a symbol."""


def recompile_lines(report: ScenarioReport) -> list[str]:
    """Where compiled recompiled: the guard that failed, and the kernels of compiled and of the variant the
    verdict suggests side by side (or the flag that runs it, where this run had none); nothing otherwise."""
    compiled = report.compiled
    found = report.verdict
    if compiled is None or not compiled.recompiles or found is None or found.cause != "recompiles":
        return []
    lines = [f"recompiles {compiled.recompiles}: the guard that failed: {_guard(compiled)}"]
    name = found.variant
    variant = report.variants.get(name) if name else None
    if variant is None or variant.measured is None:
        lines.append(f"  the change that stops it: {found.next_step}")
        return lines
    lines.append(f"  the change that stops it: the {name} variant, {variant.measured.recompiles} recompiles")
    lines.extend(_kernel_line("compiled", kernel) for kernel in compiled.kernels if kernel.code)
    lines.extend(_kernel_line(name or "", kernel) for kernel in variant.measured.kernels if kernel.code)
    return lines


def _guard(mode: ModeResult) -> str:
    reason = mode.recompile_reasons[0] if mode.recompile_reasons else "Dynamo gave no reason"
    return reason.removeprefix("- ").strip()


def _kernel_line(column: str, kernel: Kernel) -> str:
    code = kernel.code or ""
    signature = _SIGNATURE.search(code)
    arguments = [
        part.split()[-1].split(":")[0].strip() for part in (signature.group(1) if signature else "").split(",")
    ]
    arguments = [argument for argument in arguments if argument]
    symbols = [argument for argument in arguments if _SYMBOL.match(argument)]
    masks = sorted(set(_MASK.findall(code)))
    per_call = kernel.time_us / kernel.calls if kernel.time_us is not None and kernel.calls else None
    sizes = f"sizes as symbols: {', '.join(symbols)}" if symbols else "every size a constant"
    masked = f" · masks: {', '.join(masks)}" if masks else ""
    return (
        f"  {column:<10} {kernel.short_name}({', '.join(arguments)}) · {sizes}{masked} · "
        f"{format_time_us(per_call)} per call"
    )
