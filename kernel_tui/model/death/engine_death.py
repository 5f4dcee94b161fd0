"""A run the engine did not finish, as a result: the one place an engine's death becomes an error and a report.

The engine dies (a crash, a time-out, a cancel, a scenario that ends its process) or fails inside itself (a
bug); whoever saw it (the engine's server for its own failures, ``kernel-tui run`` and the app for a dead
child) says why, with the stderr tail or traceback, and hands over what was measured before it. The error is
always at the ``engine`` stage; the report keeps every number that arrived and still names the device, torch
and the size, so a script reading ``--json`` and a learner reading the app see what was lost and what was not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from kernel_tui.model.report.report import ScenarioError, ScenarioReport, SweepPoint
from kernel_tui.model.report.report_skeleton import read_info, report_skeleton
from kernel_tui.model.scenario.expect import check_claims

ENGINE_STAGE = "engine"


def engine_error(reason: str, *, file: str | Path | None = None, details: str = "") -> ScenarioError:
    """Why the engine ended a run (or could not start): ``reason`` is the one line shown, ``details`` the
    engine's stderr tail or the traceback, one key away; ``file`` the scenario it was running, if any."""
    return ScenarioError(ENGINE_STAGE, reason, None, None if file is None else str(file), details)


@dataclass(frozen=True)
class EngineFacts:
    """What is known of the engine that died: its hello's device, device name, torch and threads."""

    device: str
    device_name: str = ""
    torch_version: str = ""
    threads: int | None = None


def died_report(
    error: ScenarioError,
    scenario: str,
    engine: EngineFacts,
    *,
    measured: ScenarioReport | None = None,
    points: Sequence[SweepPoint] | None = None,
    size: int | None = None,
    swept: bool | None = None,
) -> ScenarioReport:
    """The report of a run that ended with ``error`` (any stage: a scenario's ``sys.exit`` mid-run keeps its
    own): ``measured``, the last partial report, with ``points`` as its sweep (None: the partial's own), else a
    report with no numbers naming the ``engine`` it ran on and the ``size`` asked for (None: the file's).

    A file that cannot be read is titled by its name without ``.py``, as every other report is. ``swept``:
    given, the file's claims are checked against what was measured, the sweep's only if a sweep was asked for;
    None leaves them unchecked."""
    # Read only where the file has something to add: a partial report carries its title and size already.
    info = read_info(scenario) if measured is None or swept is not None else None
    if measured is not None:
        report = replace(measured, error=error)
        if points is not None:
            report = replace(report, sweep=tuple(points))
    else:
        report = report_skeleton(
            scenario,
            engine.device,
            engine.device_name,
            engine.torch_version,
            size=size,
            info=info,
            threads=engine.threads,
            error=error,
        )
    if info is not None and swept is not None:
        report = replace(
            report, expect=check_claims(info.claims_for(report.device), report, swept=swept, claimed_size=info.size)
        )
    return report
