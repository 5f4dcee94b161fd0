"""What the explorer knows about one scenario's latest run: where it got to, and what it measured so far.

``RunBook`` holds one ``ScenarioRun`` per scenario run so far, which one the engine is working on, and the
run ids that tell a live run's messages from those of a run that was cancelled or replaced. The explorer
updates it from the worker's messages; the widgets are then told what to show from it. Nothing here
touches Textual.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kernel_tui.model.report import ScenarioError, ScenarioReport, SweepPoint


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
    output_from: int = 0
    output_to: int | None = None
    """The engine output's marks (``EngineLink.output_mark``) when the run started and ended: its details
    show what this run printed, not warnings a run of another lesson left before it."""

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
        # Imported here: a run has started, so the protocol has been; the explorer's first frame needs neither.
        from kernel_tui.transport.protocol import STAGE_ORDER

        stages: list[str] = [stage for stage in STAGE_ORDER if self.sweep or stage != "sweep"]
        sweep_steps = (self.sweep_total or 1) if self.sweep else 0
        total = len(stages) - (1 if self.sweep else 0) + sweep_steps
        if self.status is not RunStatus.RUNNING:
            return float(total), total
        if self.stage == "sweep":
            return float(len(stages) - 1 + min(len(self.points), sweep_steps)), total
        done = stages.index(self.stage) if self.stage in stages else 0
        return float(done), total


class RunBook(Mapping[Path, ScenarioRun]):
    """Every scenario's latest run by path, and the one the engine is working on (at most one at a time)."""

    def __init__(self) -> None:
        self.runs: dict[Path, ScenarioRun] = {}
        self.active: ScenarioRun | None = None
        """The run the engine is working on; its messages are the only ones listened to."""
        self._last_id = 0

    def __getitem__(self, path: Path) -> ScenarioRun:
        return self.runs[path]

    def __iter__(self) -> Iterator[Path]:
        return iter(self.runs)

    def __len__(self) -> int:
        return len(self.runs)

    def start(self, path: Path, *, sweep: bool, now: float) -> ScenarioRun:
        """A new run of ``path``, now the active one (a run still active must be cancelled first)."""
        assert self.active is None, "cancel the active run before starting another"
        self._last_id += 1
        run = ScenarioRun(self._last_id, path, sweep, started_at=now)
        self.runs[path] = run
        self.active = run
        return run

    def live(self, run_id: int) -> ScenarioRun | None:
        """The active run if a message with ``run_id`` is about it; None: the message is stale, drop it."""
        return self.active if self.active is not None and self.active.run_id == run_id else None

    def cancel(self, now: float) -> ScenarioRun | None:
        """Mark the active run cancelled and let go of it; returns it (None if nothing was running)."""
        # Imported here: a run exists only after the first frame, which does without the report's dataclasses.
        from kernel_tui.model.engine_death import engine_error
        from kernel_tui.ui.run_lifecycle import CANCELLED_REASON

        cancelled = self.active
        if cancelled is not None:
            cancelled.failed(engine_error(CANCELLED_REASON), now, cancelled=True)
            self.active = None
        return cancelled

    def ended(self, run: ScenarioRun) -> None:
        """``run`` finished or failed: the engine is free."""
        if self.active is run:
            self.active = None

    def forget(self, path: Path) -> None:
        self.runs.pop(path, None)

    def mark(self, path: Path, failed_claims: Callable[[ScenarioReport | None], object]) -> str | None:
        """What the scenario list shows beside ``path``: nothing before a run, else how its latest run went."""
        run = self.runs.get(path)
        if run is None:
            return None
        if run.status is RunStatus.DONE:
            return "claims" if failed_claims(run.report) else "done"
        return str(run.status.value)
