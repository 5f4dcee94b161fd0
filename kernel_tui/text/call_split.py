"""Where a call's time went, in words: one line per mode (``time split``) for the summary, the CLI and the lab
report, from each mode's ``call_breakdown``; and what became of the CUDA graphs a mode asked for."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kernel_tui.model.report.call_breakdown import PART_WORDS, PARTS
from kernel_tui.text.formatting import format_time_us

if TYPE_CHECKING:
    from kernel_tui.model.report.call_breakdown import CallBreakdown
    from kernel_tui.model.report.mode_result import ModeResult
    from kernel_tui.model.report.report import ScenarioReport


def _share(part_us: float, total_us: float) -> str:
    """A share of the parts together, so the shares add up to 100% (each part is a median of its own)."""
    return f"{100 * part_us / total_us:.0f}%" if total_us > 0 else "—"


def split_text(breakdown: CallBreakdown) -> str:
    """``call 40.4 µs ± 9.5: kernels 0.1 µs (0%) · Python and dispatch 17.6 µs (44%) · ...``; a part a device
    does not have (launch on a CPU, device idle) is left out."""
    call = breakdown.call_us
    parts = []
    for name in PARTS:
        value = breakdown.part(name)
        if value is None or (name == "launch" and breakdown.idle_us is None):
            continue  # a CPU: no device to wait for, nothing launched
        spread = breakdown.iqr_us.get(name)
        around = f" ± {format_time_us(spread / 2)}" if spread else ""
        parts.append(f"{PART_WORDS[name]} {format_time_us(value)}{around} ({_share(value, breakdown.parts_us)})")
    call_text = f"call {format_time_us(call)} ± {format_time_us(breakdown.call_iqr_us / 2)}"
    sums = "" if breakdown.adds_up else f" · parts add up to {format_time_us(breakdown.parts_us)}, outside the spread"
    return f"{call_text}: {' · '.join(parts)}{sums}"


def split_lines(report: ScenarioReport) -> list[str]:
    """``time split, compiled (profiled): ...`` per mode that has a breakdown, eager, compiled and variants."""
    modes: list[tuple[str, ModeResult | None]] = [("eager", report.eager), ("compiled", report.compiled)]
    modes += [(name, variant.measured) for name, variant in report.variants.items()]
    lines = []
    for name, mode in modes:
        if mode is not None and mode.call_breakdown is not None:
            # The profiler adds its own cost to every range it records: the timed call says what is real.
            timed = f", timed {format_time_us(mode.time_us)} without it" if mode.time_us is not None else ""
            lines.append(f"time split, {name} (profiled{timed}): {split_text(mode.call_breakdown)}")
    return lines


def cuda_graph_lines(report: ScenarioReport) -> list[str]:
    """``CUDA graphs, compiled: graph 0 skipped: cpu device (arg0_1), line 7``: per mode that asked for them."""
    modes: list[tuple[str, ModeResult | None]] = [("compiled", report.compiled)]
    modes += [(name, variant.measured) for name, variant in report.variants.items()]
    return [
        f"CUDA graphs, {name}: {decision.text()}"
        for name, mode in modes
        if mode is not None
        for decision in mode.cuda_graphs
    ]
