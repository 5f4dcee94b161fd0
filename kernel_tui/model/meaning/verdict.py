"""What the time means: one verdict per scenario, eager against compiled, from a fixed list of causes, and the
figures of a report that cannot both be true.

The verdict reads only the report's own facts (the graph breaks and recompiles Dynamo reported, the compiled call's
time split, the boundaries Inductor left around a library call, the kernels' share of the copy ceiling, the
speedup and its interval over the timing rounds, the kernel counts) and names the first cause of ``CAUSES`` that
holds, in that order: a cause that changes what runs (a break, a recompile) explains the time before any cost of
running it does. Its line quotes the report's figures and says the one thing to try next. A speedup is said only
when its interval excludes 1. Torch-free: the engine, ``kernel-tui run`` and the explorer all read it from here.

A CUDA preview runs nothing, so it has counts and no times: there the verdict names only the causes counts show (a
break, a recompile, a library call kept apart, kernels fused into fewer, said without a speedup) and otherwise says
that what sets the time is ``not_measured``: overhead and the memory ceiling are read from times, and a guess from
the bytes alone would read as a measurement.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

from kernel_tui.model.report.boundary import experiment_flag

if TYPE_CHECKING:
    from kernel_tui.model.report.mode_result import ModeResult

CAUSES = {
    "graph_breaks": "Dynamo split fn into several graphs: eager Python runs between them and no kernel fuses across",
    "recompiles": "a guard failed on a later call, so fn was compiled again (a shape or a Python value changed)",
    "overhead": "the compiled call is mostly guards, wrapper and dispatch around kernels too small to matter",
    "library_apart": "a library call (a matmul) stayed apart, so its bias or epilogue went through memory",
    "memory_bound": "compiled is memory-bound and moves no fewer bytes than eager: memory sets both times",
    "no_difference": "eager and compiled take the same time within the noise: the speedup's interval includes 1",
    "fused": "Inductor fused eager's kernels into fewer, and compiled is faster for it (a preview: fewer, untimed)",
    "unexplained": "none of the causes above fits the measurement",
    "not_measured": "a preview times nothing, and its counts show none of the causes above: overhead or memory, untold",
}
"""The fixed list of causes, in the order they are tried, each with what it means (docs/json.md)."""
KERNEL_SUM = "its kernels add up to"
"""How a contradiction of a mode's kernels and its timed call begins, after the mode's name."""
SIZE_GUARD = "size mismatch"
"""How Dynamo words a tensor's size guard that failed (``tensor 'x' size mismatch at index 0``): a recompile that a
symbolic size (``dynamic=True``, ``mark_dynamic``) would have spared."""
TIMED_PROFILED_RATIO = 10.0
"""A timed call this many times its profiled one: profiling only adds cost, so one of the two is wrong."""


@dataclass(frozen=True)
class Verdict:
    """Why compiled took the time it did against eager: a cause of ``CAUSES``, its line, its figures, what to try."""

    cause: str
    """A key of ``CAUSES``."""
    line: str
    """The verdict in one line, its figures the report's own."""
    numbers: dict[str, float]
    """The figures the line quotes, by name (``overhead_us``, ``graph_breaks``, ``ceiling_pct``…)."""
    next_step: str
    """The one thing to try next."""
    variant: str | None = None
    """The compile variant that tries it (a name of ``boundary.EXPERIMENTS``), where one does: ``x`` in the explorer
    adds and runs it, ``kernel-tui run --variant`` takes the flag the next step quotes."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class _Facts:
    eager: ModeResult
    compiled: ModeResult
    spread: tuple[float, float] | None
    speedup: float | None


def verdict(
    eager: ModeResult | None,
    compiled: ModeResult | None,
    speedup_range: tuple[float, float] | None,
    speedup: float | None,
    preview: bool = False,
) -> Verdict | None:
    """The first cause of ``CAUSES`` that holds for a report's two modes, its speedup's interval over the timing
    rounds and its median (``ScenarioReport.verdict``); None without both modes measured, and for an untimed run
    none of whose causes holds. In a ``preview`` only the causes its counts show, else ``not_measured``."""
    if eager is None or compiled is None:
        return None
    facts = _Facts(eager, compiled, speedup_range, speedup)
    if preview:
        counted = _graph_breaks(facts) or _recompiles(facts) or _library_apart(facts) or _counted(facts)
        if counted.variant is None:
            return counted
        return replace(counted, next_step=f"in a measured run ({PREVIEW_NO_VARIANT}), {counted.next_step}")
    for decide in (_graph_breaks, _recompiles, _overhead, _library_apart, _memory_bound, _no_difference, _fused):
        found = decide(facts)
        if found is not None:
            return found
    return _unexplained(facts)


PREVIEW_NO_VARIANT = "--device cpu or cuda: a preview compiles no variant"
"""Where a preview's next step runs a variant: ``kernel-tui run --variant`` refuses a preview."""
UNTIMED = "not measured in the preview, which times nothing"
"""What a preview's verdict says of a time: the cause a time would show is left untold, not guessed."""


def _counted(facts: _Facts) -> Verdict:
    """A preview's verdict past the causes of its structure: fused where compiled runs fewer kernels than eager,
    else ``not_measured``; either quotes both modes' kernels and bytes, and says the speedup is not measured."""
    eager, compiled = facts.eager, facts.compiled
    numbers: dict[str, float] = {"eager_kernels": eager.kernel_count, "compiled_kernels": compiled.kernel_count}
    moved = ""
    if eager.bytes_total is not None and compiled.bytes_total is not None:
        numbers |= {"eager_bytes": eager.bytes_total, "compiled_bytes": compiled.bytes_total}
        moved = f", moving {_bytes(compiled.bytes_total)} a call against eager's {_bytes(eager.bytes_total)}"
    time_it = "time it on a GPU (--device cuda) or on the CPU: a preview counts kernels and bytes, not time"
    if compiled.kernel_count < eager.kernel_count:
        return Verdict(
            "fused",
            f"fused {eager.kernel_count:g} kernels into {compiled.kernel_count:g}{moved}; whether that makes it "
            f"faster, or guards and launches outweigh its kernels, is {UNTIMED}",
            numbers,
            time_it,
        )
    return Verdict(
        "not_measured",
        f"compiled runs {compiled.kernel_count:g} kernel{'s' if compiled.kernel_count != 1 else ''} to eager's "
        f"{eager.kernel_count:g}{moved}: no break, recompile or library call apart; whether overhead or memory "
        f"sets the time is {UNTIMED}",
        numbers,
        time_it,
    )


def _unexplained(facts: _Facts) -> Verdict | None:
    """None for an untimed run (``--no-time``): with no speedup, what is left to explain is nothing measured."""
    spread = facts.spread
    if spread is None:
        return None
    low, high = spread
    side = "faster" if low > 1 else "slower" if high < 1 else "no faster"
    return Verdict(
        "unexplained",
        f"compiled {side} ({low:.3g}× to {high:.3g}× eager's speed), and none of the listed causes fits",
        {"speedup_low": low, "speedup_high": high},
        "read the time split and the kernel tables side by side",
    )


def _graph_breaks(facts: _Facts) -> Verdict | None:
    compiled = facts.compiled
    breaks = compiled.graph_breaks or 0
    if not breaks:
        return None
    first = compiled.graph_break_reasons[0] if compiled.graph_break_reasons else "Dynamo gave no reason"
    return Verdict(
        "graph_breaks",
        f"graph breaks: {breaks} break{'s' if breaks != 1 else ''} split fn into several graphs ({first})",
        {"graph_breaks": breaks},
        "move the line that breaks out of fn, or compile with fullgraph=True to see each break as an error",
    )


def _recompiles(facts: _Facts) -> Verdict | None:
    compiled = facts.compiled
    times = compiled.recompiles or 0
    if not times:
        return None
    first = compiled.recompile_reasons[0] if compiled.recompile_reasons else "Dynamo gave no reason"
    line = f"recompiles: fn was compiled again {times} time{'s' if times != 1 else ''} ({first})"
    if SIZE_GUARD not in first:
        # A Python value's guard (a flag, a counter): no size to make symbolic, so no variant would help.
        return Verdict(
            "recompiles", line, {"recompiles": times}, "keep the value the guard checks the same between calls"
        )
    return Verdict(
        "recompiles",
        line,
        {"recompiles": times},
        f"run the dynamic variant (--variant {experiment_flag('dynamic')}, x in the explorer): compiled with every "
        "size a symbol, one graph serves each call; in your code, torch._dynamo.mark_dynamic(x, 0) before the first "
        "call does it for the dimension that changes",
        "dynamic",
    )


def _overhead(facts: _Facts) -> Verdict | None:
    split = facts.compiled.call_breakdown
    if split is None or not split.overhead_dominates or not split.overhead_settled:
        return None
    return Verdict(
        "overhead",
        f"overhead-bound: {_us(split.overhead_us)} of guards, wrapper and dispatch around {_us(split.kernels_us)} "
        f"of kernels in a {_us(split.call_us)} compiled call",
        {"overhead_us": split.overhead_us, "kernels_us": split.kernels_us, "call_us": split.call_us},
        "give each call more work (batch the calls), or on a GPU try mode='reduce-overhead' (CUDA graphs)",
    )


def _library_apart(facts: _Facts) -> Verdict | None:
    apart = [boundary for boundary in facts.compiled.boundaries if boundary.kind in ("library", "template")]
    if not apart:
        return None
    first = apart[0]
    moved = f", {_bytes(first.buffer_bytes)} through memory" if first.buffer_bytes is not None else ""
    numbers: dict[str, float] = {"boundaries": len(apart)}
    if first.buffer_bytes is not None:
        numbers["buffer_bytes"] = first.buffer_bytes
    try_next = (
        f"try the {first.experiment} variant (--variant {experiment_flag(first.experiment)}, x in the explorer), "
        "a matmul template that can take the epilogue"
        if first.experiment
        else "keep the bias inside the library call (an addmm with nothing after it), or run it on a GPU"
    )
    return Verdict(
        "library_apart",
        f"a library call kept apart: {first.producer} → {first.consumer}{moved} ({first.reason})",
        numbers,
        try_next,
        first.experiment,
    )


def _memory_bound(facts: _Facts) -> Verdict | None:
    eager, compiled = facts.eager, facts.compiled
    if compiled.bound != "memory-bound" or compiled.bytes_total is None or eager.bytes_total is None:
        return None
    if compiled.bytes_total < eager.bytes_total:
        return None  # compiled took traffic away: that, not the ceiling, is the story (``fused``)
    timed = [kernel for kernel in compiled.kernels if kernel.time_us and kernel.ceiling_pct is not None]
    if not timed:
        return None
    main = max(timed, key=lambda kernel: kernel.time_us or 0.0)
    assert main.ceiling_pct is not None
    return Verdict(
        "memory_bound",
        f"memory-bound at {main.ceiling_pct:.0f}% of the copy ceiling: {main.short_name} moves the same "
        f"{_bytes(compiled.bytes_total)} as eager, with too little arithmetic per byte for a compiler to win",
        {"ceiling_pct": main.ceiling_pct, "bytes": compiled.bytes_total},
        "move fewer bytes (a smaller dtype, fewer passes over the data): memory, not the compiler, sets the time",
    )


def _no_difference(facts: _Facts) -> Verdict | None:
    spread = facts.spread
    if spread is None or not spread[0] <= 1.0 <= spread[1]:
        return None
    low, high = spread
    return Verdict(
        "no_difference",
        f"no difference within the noise: compiled ran at {low:.3g}× to {high:.3g}× eager's speed over the rounds",
        {"speedup_low": low, "speedup_high": high},
        "measure at a larger size (s sweeps the sizes) to see whether the two part ways",
    )


def _fused(facts: _Facts) -> Verdict | None:
    spread, speedup, eager, compiled = facts.spread, facts.speedup, facts.eager, facts.compiled
    if spread is None or speedup is None or spread[0] <= 1.0 or compiled.kernel_count >= eager.kernel_count:
        return None
    return Verdict(
        "fused",
        f"compiled {speedup:.3g}× faster ({spread[0]:.3g}–{spread[1]:.3g}×): it fused {eager.kernel_count:g} "
        f"kernels into {compiled.kernel_count:g}",
        {
            "speedup": speedup,
            "speedup_low": spread[0],
            "speedup_high": spread[1],
            "eager_kernels": eager.kernel_count,
            "compiled_kernels": compiled.kernel_count,
        },
        "compare its bytes with the ideal (the summary line): what fusion can still save is the difference",
    )


def contradictions(modes: dict[str, ModeResult | None]) -> tuple[str, ...]:
    """Figures of a report's modes (by name) that cannot both be true, in words: a mode's kernels adding up to
    more than its timed call, a timed call ``TIMED_PROFILED_RATIO`` times its profiled one."""
    found = []
    for name, mode in modes.items():
        if mode is None or mode.time_us is None:
            continue
        kernels_us = sum(kernel.time_us or 0.0 for kernel in mode.kernels)
        if kernels_us > mode.time_us and _us(kernels_us) != _us(mode.time_us):
            found.append(
                f"{name}: {KERNEL_SUM} {_us(kernels_us)}, more than the {_us(mode.time_us)} "
                "its whole call took when timed"
            )
        split = mode.call_breakdown
        if split is not None and split.call_us > 0 and mode.time_us >= TIMED_PROFILED_RATIO * split.call_us:
            found.append(
                f"{name}: the timed call took {_us(mode.time_us)}, {mode.time_us / split.call_us:.0f}× "
                f"the profiled one ({_us(split.call_us)}), though profiling only adds cost"
            )
    return tuple(found)


def _us(value: float) -> str:
    if value >= 1e6:
        return f"{value / 1e6:.2f} s"
    if value >= 1e3:
        return f"{value / 1e3:.2f} ms"
    return f"{value:.1f} µs"


def _bytes(value: int) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(value) >= scale:
            return f"{value / scale:.1f} {unit}"
    return f"{value} B"
