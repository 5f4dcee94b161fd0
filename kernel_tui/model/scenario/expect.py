"""Checking a lesson's claims (``EXPECT``) against a report: the course is only as true as these checks."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from kernel_tui.model.meaning.machine_load import RETRY_HINT
from kernel_tui.model.report.boundary import KINDS
from kernel_tui.model.report.module_table import kernel_parts
from kernel_tui.model.report.report import ExpectCheck, ScenarioReport
from kernel_tui.model.report.report_keys import MODES
from kernel_tui.model.scenario.scenario_file import MODULE_CLAIMS, claimed_module

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.launch import KernelLaunch
    from kernel_tui.model.report.mode_result import CompileStages, ModeResult
    from kernel_tui.model.report.module_table import ModuleRow

# How close a measured value must be: launches per run are exact; transfers are ratios of byte counts.
TOLERANCE = {
    "eager_transfers": 0.05,
    "compiled_transfers": 0.05,
    "ideal_transfers": 0.05,
    "eager_saved": 0.05,
    "compiled_saved": 0.05,
    "compiled_elements_per_thread": 0.05,
    # Peaks in arrays: the allocator also holds a call's few-byte scalars (a Python number made a tensor).
    "eager_peak": 0.05,
    "compiled_peak": 0.05,
    "eager_forward_peak": 0.05,
    "eager_backward_peak": 0.05,
    "compiled_forward_peak": 0.05,
    "compiled_backward_peak": 0.05,
}

PERCENT_POINTS = 1.0
"""How close a module's claimed percent of bytes or FLOPs must be: both are counted, not timed, so a point is
rounding."""


def _launches(report: ScenarioReport) -> list[KernelLaunch]:
    """The compiled kernels' known launches."""
    if report.compiled is None:
        return []
    return [k.launch for k in report.compiled.kernels if k.launch is not None and k.launch.threads is not None]


def _widest(report: ScenarioReport) -> KernelLaunch | None:
    """The compiled kernel that launches the most threads: the one doing the bulk of the work."""
    return max(_launches(report), key=lambda launch: launch.threads or 0, default=None)


def _thread_share(report: ScenarioReport) -> float | None:
    """A CPU kernel's threads over the threads PyTorch runs with: 1 when its parallel region uses them all."""
    widest = _widest(report)
    if widest is None or widest.grid is not None or not report.threads or widest.threads is None:
        return None
    return widest.threads / report.threads


def _overhead_dominates(mode: ModeResult | None) -> float | None:
    """1 when the profiled call spent more time around its kernels than in them, 0 when not."""
    parts = mode.call_breakdown if mode is not None else None
    return None if parts is None else float(parts.overhead_dominates)


def _overhead_unsettled(mode: ModeResult | None) -> str | None:
    """Why the runs of a mode cannot tell whether overhead or kernels took most of a call; None when they can."""
    parts = mode.call_breakdown if mode is not None else None
    return None if parts is None else parts.unsettled_reason()


def _variant_compiles(report: ScenarioReport) -> list[CompileStages]:
    """The compile variants' compiles, split by stage with their caches' answers (a preview measures none)."""
    measured = [variant.measured for variant in report.variants.values()]
    return [mode.compile_stages for mode in measured if mode is not None and mode.compile_stages is not None]


def _variants_fx_graph_hits(report: ScenarioReport) -> float | None:
    """Inductor's FX graph cache hits in the compile variants' compiles, all together; None without one."""
    compiles = _variant_compiles(report)
    return float(sum(stages.cache_hits["fx_graph"] for stages in compiles)) if compiles else None


def _variants_tuned_ops(report: ScenarioReport) -> float | None:
    """The operations the compile variants tuned (max-autotune timed two candidates or more), all together; None
    where no variant was measured. A count, never a winner or a time: which candidate wins swings with the load."""
    measured = [variant for variant in report.variants.values() if variant.measured is not None]
    return float(sum(len(variant.autotune) for variant in measured)) if measured else None


def cache_unasked(report: ScenarioReport) -> str | None:
    """Why the variants' FX graph cache hits cannot be graded: the cache was asked nothing (caches turned off, as
    ``TORCHINDUCTOR_FORCE_DISABLE_CACHES=1`` does, or a graph the cache bypasses); None when it was asked."""
    compiles = _variant_compiles(report)
    if not compiles or any(stages.cache_hits["fx_graph"] + stages.cache_misses["fx_graph"] for stages in compiles):
        return None
    return "Inductor's FX graph cache was asked nothing (caches off, or a graph it bypasses), not graded"


def _grid_blocks(launch: KernelLaunch | None) -> float | None:
    return math.prod(launch.grid) if launch is not None and launch.grid is not None else None


def _boundaries_of(kind: str) -> Callable[[ScenarioReport], float | None]:
    """How many of the compiled side's boundaries have a reason of ``kind``."""
    return lambda r: float(sum(b.kind == kind for b in r.compiled.boundaries)) if r.compiled else None


MEASURES: dict[str, Callable[[ScenarioReport], float | None]] = {
    "eager": lambda r: r.eager.kernel_count if r.eager else None,
    "compiled": lambda r: r.compiled.kernel_count if r.compiled else None,
    "eager_transfers": lambda r: r.eager.transfers if r.eager else None,
    "compiled_transfers": lambda r: r.compiled.transfers if r.compiled else None,
    "ideal_transfers": lambda r: r.ideal_transfers,
    "graph_breaks": lambda r: r.compiled.graph_breaks if r.compiled else None,
    "sweep_compiles": lambda r: r.sweep_compiles,
    "eager_forward": lambda r: r.eager.forward_launches if r.eager else None,
    "eager_backward": lambda r: r.eager.backward_launches if r.eager else None,
    "compiled_forward": lambda r: r.compiled.forward_launches if r.compiled else None,
    "compiled_backward": lambda r: r.compiled.backward_launches if r.compiled else None,
    "eager_saved": lambda r: r.saved_transfers("eager"),
    "compiled_saved": lambda r: r.saved_transfers("compiled"),
    "eager_peak": lambda r: r.peak_arrays("eager"),
    "compiled_peak": lambda r: r.peak_arrays("compiled"),
    "eager_forward_peak": lambda r: r.peak_arrays("eager", "forward"),
    "eager_backward_peak": lambda r: r.peak_arrays("eager", "backward"),
    "compiled_forward_peak": lambda r: r.peak_arrays("compiled", "forward"),
    "compiled_backward_peak": lambda r: r.peak_arrays("compiled", "backward"),
    # How the compiled kernels were launched (``kernel_tui.model.report.launch``): a GPU's grid, warps and elements per
    # thread of the kernel launching the most threads; the fewest threads any compiled kernel launches; on a
    # CPU, the most threads a compiled kernel runs on over the threads PyTorch runs with.
    "compiled_grid": lambda r: _grid_blocks(_widest(r)),
    "compiled_warps": lambda r: getattr(_widest(r), "warps", None),
    "compiled_elements_per_thread": lambda r: getattr(_widest(r), "elements_per_thread", None),
    "compiled_fewest_threads": lambda r: min((launch.threads or 0 for launch in _launches(r)), default=None),
    "compiled_thread_share": _thread_share,
    "eager_overhead_dominates": lambda r: _overhead_dominates(r.eager),
    "compiled_overhead_dominates": lambda r: _overhead_dominates(r.compiled),
    "boundaries": lambda r: float(len(r.compiled.boundaries)) if r.compiled else None,
    **{f"boundaries_{kind}": _boundaries_of(kind) for kind in KINDS},
    "variants_fx_graph_hits": _variants_fx_graph_hits,
    "variants_tuned_ops": _variants_tuned_ops,
}
UNSETTLED: dict[str, Callable[[ScenarioReport], str | None]] = {
    "eager_overhead_dominates": lambda r: _overhead_unsettled(r.eager),
    "compiled_overhead_dominates": lambda r: _overhead_unsettled(r.compiled),
}
"""Why a timed claim's runs disagree, by claim (None when they agree): such a claim reads "not measured" with the
reason, neither held nor failed, as the verdict of a busy machine's noise would be a guess."""
AT_LEAST = frozenset(MODES)
"""The launch-count claims, one per mode (``eager``, ``compiled``), whose measure may be only the least a GPU
launches (a preview's sort or fused layer, one row it cannot count): a claim of as many or more is not known to
hold or fail, one of fewer fails."""
NEEDS_SWEEP = frozenset({"sweep_compiles"})
"""The claims that only a size sweep can check: the CLI's ``--no-sweep``, a replay without one and the CUDA
preview all leave them unchecked."""
NEEDS_CACHES = frozenset({"variants_fx_graph_hits"})
"""The claims that read the compile caches' hits: a CUDA preview compiles with the caches off (and no variants),
so it lists them as not checked; elsewhere a cache asked nothing leaves them not graded (``cache_unasked``)."""
NEEDS_TUNING = frozenset({"variants_tuned_ops"})
"""The claims that read what max-autotune timed: a CUDA preview compiles with max-autotune off (and no variants), so
it lists them as not checked."""
UNDECIDED_IN_PREVIEW = NEEDS_SWEEP | NEEDS_CACHES | NEEDS_TUNING
"""What a CUDA preview cannot check, each listed in its report with the reason."""


def line_measure(key: str) -> Callable[[ScenarioReport], float | None]:
    """The measure of a claim about lines (``scenario_file.LINE_CLAIMS``): ``eager_line_7``, ``compiled_line_7``,
    ``fused_lines_6_7_8``."""

    kind, numbers = key.split("_line", 1)
    lines = [int(number) for number in numbers.lstrip("s").strip("_").split("_")]

    def launches_on(report: ScenarioReport) -> float | None:
        mode = report.eager if kind == "eager" else report.compiled
        if mode is None:
            return None
        if kind == "fused":
            return sum(kernel.calls for kernel in mode.kernels if set(lines) <= set(kernel.lines))
        return sum(kernel.calls_from_line(lines[0]) for kernel in mode.kernels)

    return launches_on


def module_amount(kernels: Sequence[Kernel], path: str, field: str) -> float | None:
    """What the launches of module ``path`` did of ``field`` (``bytes`` or ``flops``), all its kernel rows together:
    a row's own figure where the row is the module's alone, the module's part where the engine measured each launch
    (``Kernel.module_work``); None where a row of several modules could only be shared out by launches, which is no
    measurement to grade a claim on."""
    total = 0.0
    for kernel in kernels:
        parts = dict.fromkeys(part for part, _ in kernel_parts(kernel))
        if path not in parts:
            continue
        work = {item.path: getattr(item, field) for item in kernel.module_work}
        whole = kernel.bytes_total if field == "bytes" else kernel.flops
        amount = work.get(path) if path in work else whole if len(parts) == 1 else None
        if amount is None:
            return None
        total += amount
    return total


def module_measure(key: str) -> Callable[[ScenarioReport], float | None]:
    """The measure of a claim about one module (``scenario_file.MODULE_CLAIMS``): whether it is the mode's first
    module by bytes or FLOPs (1 or 0), or its percent of the mode's bytes or FLOPs."""
    match = MODULE_CLAIMS.match(key)
    assert match is not None, key  # the scenario file's reader let only such keys through
    mode, kind, path = match["mode"], match["kind"], claimed_module(match["path"])

    def measured(report: ScenarioReport) -> float | None:
        result = report.mode(mode)
        if result is None:
            return None
        field = kind.removesuffix("_percent").removeprefix("hotspot_")
        whole = result.bytes_total if field == "bytes" else result.flops
        if kind.startswith("hotspot"):
            return first_module(report.modules, mode, field, whole, path)
        amount = module_amount(result.kernels, path, field)
        return None if amount is None or not whole else 100 * amount / whole

    return measured


def first_module(rows: Sequence[ModuleRow], mode: str, field: str, whole: int | None, path: str) -> float | None:
    """1 when module ``path`` moves (``field`` ``bytes``) or computes (``flops``) more than any other module of the
    per-module table, 0 when another does; None where neither is known. A module whose amount is unknown (a fused
    kernel's FLOPs) can hold at most what the known ones leave of the mode's ``whole``."""
    amounts = {row.path: getattr(row, f"{mode}_{field}") for row in rows}
    if amounts.get(path) is None:
        return None
    mine = amounts.pop(path)
    known = [amount for amount in amounts.values() if amount is not None]
    if any(amount >= mine for amount in known):
        return 0.0
    if len(known) == len(amounts):
        return 1.0
    left = None if whole is None else whole - mine - sum(known)  # what the modules of unknown amount share
    return 1.0 if left is not None and left < mine else None


def measure_of(key: str) -> Callable[[ScenarioReport], float | None]:
    """How a claim's key is measured: by name, else as a claim about lines or about a module."""
    if key in MEASURES:
        return MEASURES[key]
    return module_measure(key) if MODULE_CLAIMS.match(key) else line_measure(key)


def tolerance(key: str) -> float:
    """How far a measurement may be from the claim: a module's percent of bytes or FLOPs within a point."""
    match = MODULE_CLAIMS.match(key)
    if match is not None and match["kind"].endswith("_percent"):
        return PERCENT_POINTS
    return TOLERANCE.get(key, 0.001)


def check_claims(
    claims: dict[str, float], report: ScenarioReport, *, swept: bool, claimed_size: int | None = None
) -> dict[str, ExpectCheck]:
    """Each claim with what was measured; a claim about the sweep is left out when no sweep ran, and reads
    "not measured" (``ok`` None) when the sweep ended before its last size. ``claimed_size``: the scenario's own
    ``SIZE``, where a claim that fails at another size is not graded (``_judged_at_its_size``)."""
    checks = {}
    cut_short = sweep_cut_short(report)
    for key, claimed in claims.items():
        if key in NEEDS_SWEEP and not swept:
            continue
        measured = measure_of(key)(report)
        if key in NEEDS_SWEEP and cut_short is not None:
            checks[key] = ExpectCheck(claimed=claimed, measured=measured, ok=None, reason=cut_short)
            continue
        lower_bound = key in AT_LEAST and (mode := report.mode(key)) is not None and mode.count_is_lower_bound
        if lower_bound and measured is not None and claimed >= measured:
            launches = "launch" if measured == 1 else "launches"
            reason = f"the preview counts at least {measured:g} {launches}, one row for passes it cannot count"
            checks[key] = ExpectCheck(claimed=claimed, measured=measured, ok=None, reason=reason)
            continue
        if key in NEEDS_CACHES and (unasked := cache_unasked(report)) is not None:
            checks[key] = ExpectCheck(claimed=claimed, measured=measured, ok=None, reason=unasked)
            continue
        unsettled = UNSETTLED[key](report) if key in UNSETTLED else None
        if unsettled is not None:
            checks[key] = ExpectCheck(claimed=claimed, measured=measured, ok=None, reason=f"{unsettled}; {RETRY_HINT}")
            continue
        ok = measured is not None and abs(measured - claimed) <= tolerance(key)
        checks[key] = ExpectCheck(claimed=claimed, measured=measured, ok=ok)
    return _judged_at_its_size(checks, report.size, claimed_size)


def _judged_at_its_size(
    checks: dict[str, ExpectCheck], size: int | None, claimed_size: int | None
) -> dict[str, ExpectCheck]:
    """``checks`` with a claim that fails at a size other than the one the lesson makes it at (its ``SIZE``) read
    as not graded, with what it measured: lesson 28's "set SIZE = 2**22 and run again" marked the lesson
    "✗ 2 claims did not hold" for claims it makes at 8 elements, which it expects to change there."""
    if claimed_size is None or size is None or size == claimed_size:
        return checks
    judged = {}
    for key, check in checks.items():
        if check.failed:
            shown = "nothing" if check.measured is None else f"{check.measured:g}"
            reason = f"claimed at {claimed_size:,} elements (SIZE); at {size:,} it measured {shown}, not graded"
            check = replace(check, ok=None, reason=reason)
        judged[key] = check
    return judged


def sweep_cut_short(report: ScenarioReport) -> str | None:
    """Why the sweep did not measure every size it planned (its time budget, memory, an error), or None when
    it did: a claim about the whole sweep cannot be judged from part of it."""
    if report.error is not None and report.error.stage in ("sweep", "engine"):
        return f"the sweep did not finish ({report.error.stage}: {report.error.message.splitlines()[0]})"
    unmeasured = [point for point in report.sweep if point.eager_us is None or point.compiled_us is None]
    if not unmeasured:
        return None
    return unmeasured[0].note or f"the sweep ended before {unmeasured[0].size:,} elements"
