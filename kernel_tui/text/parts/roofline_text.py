"""The roofline's numbers as a learner reads them: FLOPs, intensity, GFLOP/s, ceilings and the dominant side.

Shared by the CLI, the lab report and the app. Anything not counted reads ``?``, never 0: a kernel whose
FLOPs are unknown is not a kernel that does no arithmetic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kernel_tui.text.formatting import PREVIEW

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.mode_result import ModeResult
    from kernel_tui.model.report.report import Ceilings, ScenarioReport

UNKNOWN = "?"
SHORT_BOUND = {"memory-bound": "memory", "compute-bound": "compute", "overhead-bound": "ovhd"}
"""For the tables' FLOP/B bound column, 12 wide (``0.083 memory``); the line under them says it in full."""


def _three_figures(value: float) -> str:
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    if abs(value) >= 1:
        return f"{value:.2f}"
    return f"{value:.2g}"


def format_flops(flops: float | None) -> str:
    """``2.15 G``, ``1.05 M``, ``512``; ``?`` when not counted."""
    if flops is None:
        return UNKNOWN
    for prefix, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(flops) >= scale:
            return f"{_three_figures(flops / scale)} {prefix}"
    return f"{flops:g}"


def format_intensity(value: float | None) -> str:
    """FLOPs per byte with three significant figures; ``?`` when unknown."""
    return UNKNOWN if value is None else _three_figures(value)


def format_gflops(value: float | None) -> str:
    return "—" if value is None else _three_figures(value)


def format_bound(bound: str | None, short: bool = False) -> str:
    if bound is None:
        return "unknown"
    return SHORT_BOUND.get(bound, bound) if short else bound


def ceilings_line(ceilings: Ceilings | None) -> str:
    """``ceilings: copy 42.4 GB/s · matmul 43.1 GFLOP/s (float32) · ridge 1.02 FLOP/B``."""
    if ceilings is None or (ceilings.bandwidth_gbs is None and ceilings.matmul_gflops is None):
        return "ceilings: not measured"
    copy = f"copy {format_gflops(ceilings.bandwidth_gbs)} GB/s"
    dtype = f" ({ceilings.dtype})" if ceilings.dtype else ""
    matmul = f"matmul {format_gflops(ceilings.matmul_gflops)} GFLOP/s{dtype}"
    ridge = f"ridge {format_intensity(ceilings.ridge)} FLOP/B" if ceilings.ridge is not None else "ridge unknown"
    when = f" ({ceilings.conditions})" if ceilings.conditions else ""
    return f"ceilings: {copy} · {matmul} · {ridge}{when}"


def mode_bound_text(mode: ModeResult | None) -> str:
    """``compute-bound (69% of kernel time)``, or what is known without a class."""
    if mode is None or mode.bound is None:
        return "unknown"
    unclassified = mode.unclassified_share or 0.0
    if mode.bound_share is None:
        share = ""
    elif unclassified < 0.005:
        share = f" ({mode.bound_share:.0%} of kernel time)"
    else:
        # A kernel with uncounted FLOPs has no side: the share is of the rest, and says how much that leaves out.
        share = f" ({mode.bound_share:.0%} of the classified kernel time; {unclassified:.0%} unclassified)"
    return f"{mode.bound}{share}"


def roofline_summary(report: ScenarioReport) -> str:
    """One line: FLOPs and intensity eager → compiled, and which side of the ridge dominates each call."""
    eager, compiled = report.eager, report.compiled
    if eager is None:
        return ""
    flops = format_flops(eager.flops)
    intensity = format_intensity(eager.intensity)
    side = mode_bound_text(eager)
    if compiled is not None:
        flops += f" → {format_flops(compiled.flops)}"
        intensity += f" → {format_intensity(compiled.intensity)}"
        side = f"eager {side}, compiled {mode_bound_text(compiled)}"
    parts = [f"FLOPs {flops}", f"intensity {intensity} FLOP/B"]
    if report.ceilings is not None and report.ceilings.ridge is not None:
        parts.append(side)
    return " · ".join(parts)


ROOFLINE_HEADERS = ("FLOPs", "FLOP/B", "GB/s", "GFLOP/s", "bound")
"""The roofline table's columns after the mode and the kernel, in the CLI and the lab report."""


def roofline_cells(report: ScenarioReport, kernel: Kernel) -> tuple[str, ...]:
    """A kernel's row under ``ROOFLINE_HEADERS``; a preview measured no rates, and says so."""
    rates = (PREVIEW, PREVIEW) if report.is_preview else (format_gflops(kernel.gbs), format_gflops(kernel.gflops))
    return (format_flops(kernel.flops), format_intensity(kernel.intensity), *rates, format_bound(kernel.bound))
