"""The stages of one run, in order, for a measurement and a CUDA preview alike: load, inputs, eager, compile, sweep.

Each stage is announced (``StageStartedMessage``); the report so far goes out after eager, and after a compile
that more may follow (``Partial``); a failure in a stage (StageError) ends the run with a report that keeps
everything measured before it; then the scenario's claims are checked, a file's that did not load too (a file
that parses but fails to run still claims what it claims, and all of that fails).

What a stage does is the device's: ``measure.Measurement`` runs, profiles and times the code on this machine's CPU
or GPU; ``preview.Preview`` generates a GPU's code and runs it on fake tensors (``preview_training`` for a
training step).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from kernel_tui.engine.stages.fast_path_note import fast_path_note
from kernel_tui.engine.stages.loader import LoadedScenario, StageError
from kernel_tui.model.report.module_table import module_table
from kernel_tui.model.report.report_skeleton import read_info
from kernel_tui.transport.protocol import Partial, StageStartedMessage

if TYPE_CHECKING:
    from kernel_tui.engine.stages.outbox import RunOutbox
    from kernel_tui.model.report.report import ScenarioReport
    from kernel_tui.transport.protocol import Stage


class ScenarioStages:
    """One loaded scenario's stages on one device; the object keeps what a stage hands the next (inputs,
    operator counts), so each stage takes and returns only the report."""

    details: Mapping[Stage, str]
    """The words each of ``inputs``, ``eager`` and ``compile`` is announced with."""
    partial_after_compile = False
    """Whether the report goes out once compiled: a measurement's sweep may follow for minutes; a preview's
    report is final then."""

    def inputs(self) -> None:
        """Make the inputs ``fn`` is called with."""
        raise NotImplementedError

    def eager(self, report: ScenarioReport) -> ScenarioReport:
        raise NotImplementedError

    def compile(self, report: ScenarioReport, outbox: RunOutbox) -> ScenarioReport:
        """The compiled side; a compile that fails is the report's error (stage ``compile``), eager kept."""
        raise NotImplementedError

    def sweep(self, report: ScenarioReport, outbox: RunOutbox) -> ScenarioReport:
        """Runtime against size; a device that has no sweep leaves the report as it is."""
        return report


class DeviceRun(Protocol):
    """One run on one device: how its report starts, how the scenario loads, its stages, and its claims."""

    claims_device: str
    """Whose claims the scenario is checked against (``cuda`` for a preview)."""

    def start(self, path: Path, size: int | None) -> ScenarioReport:
        """The report before anything ran (``report_skeleton``)."""
        ...

    def load(self, path: Path) -> LoadedScenario:
        """The scenario, run; StageError at stage ``load``."""
        ...

    def stages(self, scenario: LoadedScenario, report: ScenarioReport) -> tuple[ScenarioStages, ScenarioReport]:
        """The loaded scenario's stages, and the report with what the device knows before they run."""
        ...

    def finish(self, report: ScenarioReport, claims: dict[str, float], claimed_size: int | None) -> ScenarioReport:
        """The report with the scenario's claims, made at ``claimed_size`` (its ``SIZE``), checked against it."""
        ...


def run_stages(path: Path, device: DeviceRun, outbox: RunOutbox, *, size: int | None, sweep: bool) -> ScenarioReport:
    """Everything one run of ``path`` on ``device`` reports, its progress told to ``outbox`` as it goes."""
    report = device.start(path, size)
    info = None
    try:
        outbox.send(StageStartedMessage, "load", str(path))
        scenario = device.load(path)
        info = scenario.info
        report = replace(report, title=info.title, size=size or info.size, source=scenario.source)
        stages, report = device.stages(scenario, report)
        outbox.send(StageStartedMessage, "inputs", stages.details["inputs"])
        stages.inputs()
        outbox.send(StageStartedMessage, "eager", stages.details["eager"])
        report = stages.eager(report)
        outbox.send(Partial, report)
        outbox.send(StageStartedMessage, "compile", stages.details["compile"])
        report = stages.compile(report, outbox)
        if report.error is None and stages.partial_after_compile:
            outbox.send(Partial, report)
        if sweep and report.compiled is not None:
            report = stages.sweep(report, outbox)
    except StageError as failure:
        report = replace(report, error=failure.error)
    # Only a file that failed to load is read again for its claims.
    described = info if info is not None else read_info(path)
    claims = described.claims_for(device.claims_device) if described is not None else {}
    report = replace(report, modules=module_table(report.eager, report.compiled))
    return device.finish(fast_path_note(report), claims, described.size if described is not None else None)
