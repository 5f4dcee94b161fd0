"""Where a call's time went, in words: one line per mode (``time split``) for the summary, the CLI and the lab
report, from each mode's ``call_breakdown``; what became of the CUDA graphs a mode asked for; where the compile's
time went by stage (``compile split``); and what the time means, the verdict over them all, with the figures
that cannot both be true."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kernel_tui.model.meaning.verdict import KERNEL_SUM
from kernel_tui.model.report.call_breakdown import PART_WORDS, PARTS
from kernel_tui.model.report.mode_result import CACHE_LEVELS, COMPILE_STAGES
from kernel_tui.text.formatting import format_time_us

if TYPE_CHECKING:
    from kernel_tui.model.report.call_breakdown import CallBreakdown
    from kernel_tui.model.report.mode_result import CompileStages, ModeResult
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


STAGE_WORDS = {
    "dynamo": "Dynamo",
    "aot_autograd": "AOT autograd",
    "cache_keys": "cache keys",
    "lowering": "Inductor lowering and scheduling",
    "codegen": "code generation",
    "compile": "C++/Triton compile",
    "load": "load",
    "other": "other (no torch timer)",
}
"""Each stage of ``COMPILE_STAGES`` as the compile split names it."""
CACHE_WORDS = {"fx_graph": "FX graph cache", "aot_autograd": "AOT autograd cache"}
"""Each level of ``CACHE_LEVELS`` as the compile split names it."""
assert set(STAGE_WORDS) == set(COMPILE_STAGES) and set(CACHE_WORDS) == set(CACHE_LEVELS)


def _seconds(value: float) -> str:
    return f"{value:.2f} s" if value >= 0.01 else f"{1e3 * value:.1f} ms"


def _counted(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def compile_split_text(compile_s: float, stages: CompileStages) -> str:
    """``compile 10.92 s, cold (FX graph cache 0 hits, 1 miss · …): Dynamo 0.11 s (1%) · …``: every stage that took
    time, its share of ``compile_s``, then the caches' answers that made it cold or warm."""
    total = sum(stages.seconds.values()) or 1.0
    parts = [
        f"{STAGE_WORDS[name]} {_seconds(value)} ({100 * value / total:.0f}%)"
        for name, value in stages.seconds.items()
        if value >= 0.0005 and name in STAGE_WORDS
    ]
    caches = " · ".join(
        f"{CACHE_WORDS[level]} {_counted(stages.cache_hits.get(level, 0), 'hit', 'hits')}, "
        f"{_counted(stages.cache_misses.get(level, 0), 'miss', 'misses')}"
        for level in CACHE_WORDS
    )
    warmth = {True: "warm", False: "cold", None: "no cache asked"}[stages.warm]
    return f"compile {_seconds(compile_s)}, {warmth} ({caches}): {' · '.join(parts)}"


def compile_lines(report: ScenarioReport) -> list[str]:
    """``compile split, compiled: …`` per mode whose compile was timed by stage, compiled and variants."""
    modes: list[tuple[str, ModeResult | None]] = [("compiled", report.compiled)]
    modes += [(name, variant.measured) for name, variant in report.variants.items()]
    return [
        f"compile split, {name}: {compile_split_text(mode.compile_s, mode.compile_stages)}"
        for name, mode in modes
        if mode is not None and mode.compile_s is not None and mode.compile_stages is not None
    ]


VERDICT_MARK = "▶"
"""Before the verdict, the first line of a result."""
CONTRADICTION_MARK = "⚠ cannot both be true:"
"""Before each pair of figures of a report that contradict each other: a warning, like the busy machine that
usually causes it, not an error."""


def verdict_lines(report: ScenarioReport) -> list[str]:
    """``▶ overhead-bound: … · try: …``, the verdict, then a line per contradiction the notes do not already say
    (a mode's ``noisy:`` note says that its kernels add up to more than its call); none without either."""
    found = report.verdict
    lines = []
    if found is not None:
        lines.append(f"{VERDICT_MARK} {found.line}" + (f" · try: {found.next_step}" if found.next_step else ""))
    for text in report.contradictions:
        name = text.split(":", 1)[0]
        mode = report.mode(name) if name in ("eager", "compiled") else None
        said = mode is not None and KERNEL_SUM in text and any(note.startswith("noisy") for note in mode.notes)
        if not said:
            lines.append(f"{CONTRADICTION_MARK} {text}")
    return lines
