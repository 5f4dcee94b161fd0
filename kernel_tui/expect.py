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
    """Each claim with what was measured; a claim about the sweep is left out when no sweep ran."""
    checks = {}
    for key, claimed in claims.items():
        if key in NEEDS_SWEEP and not swept:
            continue
        measured = MEASURES[key](report)
        ok = measured is not None and abs(measured - claimed) <= TOLERANCE.get(key, 0.001)
        checks[key] = ExpectCheck(claimed=claimed, measured=measured, ok=ok)
    return checks
