"""Peak memory in words: the summary's memory line, eager → compiled, with what Inductor's plan did about it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kernel_tui.model.report.report_keys import MODES, SECTIONS
from kernel_tui.text.formatting import format_bytes, format_transfers

if TYPE_CHECKING:
    from kernel_tui.model.report.mode_result import ModeResult
    from kernel_tui.model.report.report import ScenarioReport


def memory_line(report: ScenarioReport) -> str | None:
    """``peak memory 8.0 MiB (2.0×) → 4.0 MiB (1.0×) · forward 2.0× → 0.25×, backward ... · compiled buffers:
    1 allocated, 0 reused, 0 freed early, against eager's 7 results``; None before any peak was counted."""
    modes = [(name, mode) for name in MODES if (mode := report.mode(name)) is not None]
    if not any(mode.peak_bytes is not None for _, mode in modes):
        return None
    peaks = " → ".join(
        f"{format_bytes(mode.peak_bytes)} ({format_transfers(report.peak_arrays(name))})" for name, mode in modes
    )
    estimate = " (estimated)" if report.is_preview else ""
    parts = [f"peak memory{estimate} {peaks}"]
    if any(mode.forward_peak_bytes is not None for _, mode in modes):
        parts.append(
            ", ".join(
                f"{section} " + " → ".join(format_transfers(report.peak_arrays(name, section)) for name, _ in modes)
                for section in SECTIONS
            )
        )
    compiled, eager = report.compiled, report.eager
    if compiled is not None and compiled.buffers_allocated is not None:
        parts.append(_plan_text(compiled, eager))
    if compiled is not None and compiled.recomputed:
        ops = ", ".join(op.removeprefix("aten::") for op in compiled.recomputed)
        parts.append(f"compiled backward recomputes {ops} instead of keeping the results")
    higher = _higher_compiled(eager, compiled)
    if higher:
        parts.append(higher)
    return " · ".join(parts)


def _plan_text(compiled: ModeResult, eager: ModeResult | None) -> str:
    plan = (
        f"compiled buffers: {compiled.buffers_allocated} allocated, {compiled.buffers_reused} reused, "
        f"{compiled.buffers_freed_early} freed early"
    )
    if eager is not None and eager.buffers_allocated is not None:
        plan += f", against eager's {eager.buffers_allocated} results"
    return plan


def _higher_compiled(eager: ModeResult | None, compiled: ModeResult | None) -> str | None:
    """Why compiled needs more at its peak, where it does."""
    if eager is None or compiled is None or eager.peak_bytes is None or compiled.peak_bytes is None:
        return None
    if compiled.peak_bytes <= eager.peak_bytes * 1.01:
        return None
    if (compiled.saved_bytes or 0) > (eager.saved_bytes or 0):
        return (
            f"compiled peaks higher: its forward keeps {format_bytes(compiled.saved_bytes)} for backward, "
            f"eager's {format_bytes(eager.saved_bytes)}"
        )
    return (
        "compiled peaks higher: its plan keeps a buffer until the last kernel that reads it has run, where eager "
        "frees each result as soon as Python drops it"
    )
