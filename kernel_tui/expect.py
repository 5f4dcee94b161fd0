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


def line_measure(key: str) -> Callable[[ScenarioReport], float | None]:
    """The measure of a claim about lines (``scenario_file.LINE_CLAIMS``): ``eager_line_7``, ``compiled_line_7``,
    ``fused_lines_6_7_8``."""
    from kernel_tui.by_line import calls_from_line

    kind, numbers = key.split("_line", 1)
    lines = [int(number) for number in numbers.lstrip("s").strip("_").split("_")]

    def launches_on(report: ScenarioReport) -> float | None:
        mode = report.eager if kind == "eager" else report.compiled
        if mode is None:
            return None
        if kind == "fused":
            return sum(kernel.calls for kernel in mode.kernels if set(lines) <= set(kernel.lines))
        return sum(calls_from_line(kernel, lines[0]) for kernel in mode.kernels)

    return launches_on


def check_claims(claims: dict[str, float], report: ScenarioReport, *, swept: bool) -> dict[str, ExpectCheck]:
    """Each claim with what was measured; a claim about the sweep is left out when no sweep ran."""
    checks = {}
    for key, claimed in claims.items():
        if key in NEEDS_SWEEP and not swept:
            continue
        measured = (MEASURES.get(key) or line_measure(key))(report)
        ok = measured is not None and abs(measured - claimed) <= TOLERANCE.get(key, 0.001)
        checks[key] = ExpectCheck(claimed=claimed, measured=measured, ok=ok)
    return checks
