"""Checking a lesson's claims (``EXPECT``) against a report: the course is only as true as these checks."""

from __future__ import annotations

from collections.abc import Callable

from kernel_tui.report import ExpectCheck, ScenarioReport

# How close a measured value must be: launches per run are exact; transfers are ratios of byte counts.
TOLERANCE = {
    "eager_transfers": 0.05,
    "compiled_transfers": 0.05,
    "ideal_transfers": 0.05,
    "eager_saved": 0.05,
    "compiled_saved": 0.05,
}

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
}
NEEDS_SWEEP = frozenset({"sweep_compiles"})
"""The claims that only a size sweep can check: the CLI's ``--no-sweep``, a replay without one and the CUDA
preview all leave them unchecked."""


def check_claims(claims: dict[str, float], report: ScenarioReport, *, swept: bool) -> dict[str, ExpectCheck]:
    """Each claim with what was measured; a claim about the sweep is left out when no sweep ran, and reads
    "not measured" (``ok`` None) when the sweep ended before its last size."""
    checks = {}
    cut_short = sweep_cut_short(report)
    for key, claimed in claims.items():
        if key in NEEDS_SWEEP and not swept:
            continue
        measured = MEASURES[key](report)
        if key in NEEDS_SWEEP and cut_short is not None:
            checks[key] = ExpectCheck(claimed=claimed, measured=measured, ok=None, reason=cut_short)
            continue
        ok = measured is not None and abs(measured - claimed) <= TOLERANCE.get(key, 0.001)
        checks[key] = ExpectCheck(claimed=claimed, measured=measured, ok=ok)
    return checks


def sweep_cut_short(report: ScenarioReport) -> str | None:
    """Why the sweep did not measure every size it planned (its time budget, memory, an error), or None when
    it did: a claim about the whole sweep cannot be judged from part of it."""
    if report.error is not None and report.error.stage in ("sweep", "engine"):
        return f"the sweep did not finish ({report.error.stage}: {report.error.message.splitlines()[0]})"
    unmeasured = [point for point in report.sweep if point.eager_us is None or point.compiled_us is None]
    if not unmeasured:
        return None
    return unmeasured[0].note or f"the sweep ended before {unmeasured[0].size:,} elements"
