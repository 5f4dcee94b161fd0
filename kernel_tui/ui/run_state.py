"""What the explorer knows about one scenario's latest run: where it got to, and what it measured so far.

The explorer screen owns one ``ScenarioRun`` per scenario it has run and updates it from the worker's
messages; the widgets are then told what to show from it. Nothing here touches Textual.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from kernel_tui.protocol import STAGES
from kernel_tui.report import ScenarioError, ScenarioReport, SweepPoint


class RunStatus(Enum):
    """Where a run is."""

    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"


@dataclass
class ScenarioRun:
    """One run of one scenario, as the messages so far describe it."""

    run_id: int
    path: Path
    sweep: bool
    started_at: float
    status: RunStatus = RunStatus.RUNNING
    stage: str = ""
    detail: str = ""
    report: ScenarioReport | None = None
    points: list[SweepPoint] = field(default_factory=list)
    sweep_total: int | None = None
    """How many sizes the sweep measures, once the engine said so."""
    error: ScenarioError | None = None
    """A scenario error from the final report, or why the engine ended (crash, timeout)."""
    finished_at: float | None = None

    @property
    def running(self) -> bool:
        return self.status is RunStatus.RUNNING

    def stage_started(self, stage: str, detail: str, total: int | None = None) -> None:
        """``total``: the steps the stage takes, as the engine's progress message says (the sweep's sizes)."""
        self.stage, self.detail = stage, detail
        if stage == "sweep":
            self.sweep_total = total

    def point_measured(self, point: SweepPoint) -> None:
        self.points.append(point)

    def finished(self, report: ScenarioReport, now: float) -> None:
        self.report = report
        if report.sweep:
            self.points = list(report.sweep)
        self.error = report.error
        self.status = RunStatus.DONE if report.error is None else RunStatus.FAILED
        self.finished_at = now

    def failed(self, error: ScenarioError, now: float, *, cancelled: bool = False) -> None:
        self.error = None if cancelled else error
        self.status = RunStatus.CANCELLED if cancelled else RunStatus.FAILED
        self.finished_at = now

    def elapsed(self, now: float) -> float:
        return (self.finished_at if self.finished_at is not None else now) - self.started_at

    def progress(self) -> tuple[float, int]:
        """(steps done, steps in all) over the engine's stages; the sweep counts one step per size."""
        stages = list(STAGES) if self.sweep else [stage for stage in STAGES if stage != "sweep"]
        sweep_steps = (self.sweep_total or 1) if self.sweep else 0
        total = len(stages) - (1 if self.sweep else 0) + sweep_steps
        if self.status is not RunStatus.RUNNING:
            return float(total), total
        if self.stage == "sweep":
            return float(len(stages) - 1 + min(len(self.points), sweep_steps)), total
        done = stages.index(self.stage) if self.stage in stages else 0
        return float(done), total
