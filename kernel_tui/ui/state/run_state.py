"""What the explorer knows about one scenario's latest run: where it got to, and what it measured so far.

``RunBook`` holds one ``ScenarioRun`` per scenario run so far and which one the engine is working on; the
run's id is the engine link's, and only the active run's messages are folded into its record
(``transport.run_record``), so those of a run that was cancelled or replaced are dropped. Nothing here
touches Textual.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # The record's module imports the protocol: loaded with the first run, after the explorer's first frame.
    from kernel_tui.model.report.report import ScenarioError, ScenarioReport
    from kernel_tui.transport.protocol import RunMessage
    from kernel_tui.transport.run_record import RunRecord


class RunStatus(Enum):
    """Where a run is."""

    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"


@dataclass
class ScenarioRun:
    """One run of one scenario: its ``RunRecord`` (what the engine's messages said, folded by the one
    ``run_record.fold``) and what only the app keeps of it (when it started and ended, its output's marks)."""

    record: RunRecord
    started_at: float
    finished_at: float | None = None
    output_from: int = 0
    output_to: int | None = None
    """The engine output's marks (``EngineLink.output_mark``) when the run started and ended: its details
    show what this run printed, not warnings a run of another lesson left before it."""

    @property
    def status(self) -> RunStatus:
        if not self.record.ended:
            return RunStatus.RUNNING
        if self.record.cancelled:
            return RunStatus.CANCELLED
        return RunStatus.FAILED if self.record.error is not None else RunStatus.DONE

    @property
    def running(self) -> bool:
        return self.status is RunStatus.RUNNING

    def take(self, message: RunMessage, now: float) -> None:
        """Fold one of the engine's messages into the record; the run's end is timed ``now``."""
        from kernel_tui.transport.run_record import fold

        self.record = fold(self.record, message)
        self._timed(now)

    def ended_without_report(self, error: ScenarioError, now: float, *, cancelled: bool = False) -> None:
        """The engine died, overran or was cancelled before the final report."""
        from kernel_tui.transport.run_record import ended_without_report

        self.record = ended_without_report(self.record, error, cancelled=cancelled)
        self._timed(now)

    def _timed(self, now: float) -> None:
        if self.record.ended and self.finished_at is None:
            self.finished_at = now

    def elapsed(self, now: float) -> float:
        return (self.finished_at if self.finished_at is not None else now) - self.started_at

    def progress(self) -> tuple[float, int]:
        """(steps done, steps in all) over the engine's stages; the sweep counts one step per size."""
        # Imported here: a run has started, so the protocol has been; the explorer's first frame needs neither.
        from kernel_tui.transport.protocol import STAGE_ORDER

        record = self.record
        stages: list[str] = [stage for stage in STAGE_ORDER if record.sweep or stage != "sweep"]
        sweep_steps = (record.sweep_total or 1) if record.sweep else 0
        total = len(stages) - (1 if record.sweep else 0) + sweep_steps
        if self.status is not RunStatus.RUNNING:
            return float(total), total
        if record.stage == "sweep":
            return float(len(stages) - 1 + min(len(record.points), sweep_steps)), total
        done = stages.index(record.stage) if record.stage in stages else 0
        return float(done), total


class RunBook(Mapping[Path, ScenarioRun]):
    """Every scenario's latest run by path, and the one the engine is working on (at most one at a time)."""

    def __init__(self) -> None:
        self.runs: dict[Path, ScenarioRun] = {}
        self.active: ScenarioRun | None = None
        """The run the engine is working on; its messages are the only ones listened to."""

    def __getitem__(self, path: Path) -> ScenarioRun:
        return self.runs[path]

    def __iter__(self) -> Iterator[Path]:
        return iter(self.runs)

    def __len__(self) -> int:
        return len(self.runs)

    def start(self, run_id: int, path: Path, *, sweep: bool, now: float) -> ScenarioRun:
        """A new run of ``path``, numbered ``run_id`` by the engine link, now the active one (a run still
        active must be cancelled first)."""
        from kernel_tui.transport.run_record import RunRecord

        assert self.active is None, "cancel the active run before starting another"
        run = ScenarioRun(RunRecord(run_id, path, sweep), started_at=now)
        self.runs[path] = run
        self.active = run
        return run

    def live(self, run_id: int) -> ScenarioRun | None:
        """The active run if a message with ``run_id`` is about it; None: the message is stale, drop it."""
        return self.active if self.active is not None and self.active.record.run_id == run_id else None

    def cancel(self, now: float) -> ScenarioRun | None:
        """Mark the active run cancelled and let go of it; returns it (None if nothing was running)."""
        # Imported here: a run exists only after the first frame, which does without the report's dataclasses.
        from kernel_tui.model.death.engine_death import engine_error
        from kernel_tui.ui.link.run_lifecycle import CANCELLED_REASON

        cancelled = self.active
        if cancelled is not None:
            cancelled.ended_without_report(engine_error(CANCELLED_REASON), now, cancelled=True)
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
            return "claims" if failed_claims(run.record.report) else "done"
        return str(run.status.value)
