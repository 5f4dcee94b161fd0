"""Messages from the engine worker to the explorer screen: small dataclasses named as facts that happened.

The worker thread turns the engine's protocol messages into these (parsing happens off the UI thread) and
posts them; ``post_message`` is thread-safe. Each carries the ``run_id`` of the run it belongs to, so a
message from a run that was cancelled or replaced is recognised and dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    # The protocol is imported by the worker that reads the engine, after the explorer's first frame.
    from kernel_tui.model.report import ScenarioError, ScenarioReport, SweepPoint
    from kernel_tui.transport import protocol


@dataclass
class EngineStarted(Message):
    """The engine process is up and said hello (device, device name, torch version, threads)."""

    hello: protocol.Hello


@dataclass
class EngineStartFailed(Message):
    """The engine could not be started; ``error`` says why, with its stderr tail as details."""

    error: ScenarioError


@dataclass
class StageStarted(Message):
    """The engine began a stage of a run (load, inputs, eager, compile, profile, sweep)."""

    run_id: int
    path: Path
    stage: str
    detail: str
    total: int | None = None
    """How many steps the stage takes, when it has several (the sweep's sizes)."""

    def can_replace(self, message: Message) -> bool:
        # Only the latest stage matters to the status line: a newer one queued right behind an older
        # one of the same run lets the older one be dropped.
        return isinstance(message, StageStarted) and message.run_id == self.run_id


@dataclass
class ReportUpdated(Message):
    """A partial report arrived: what is known so far (eager first, then compiled)."""

    run_id: int
    path: Path
    report: ScenarioReport


@dataclass
class SweepPointMeasured(Message):
    """One point of the runtime-against-size sweep was measured. Never replaced: every point counts."""

    run_id: int
    path: Path
    point: SweepPoint


@dataclass
class RunFinished(Message):
    """The engine sent its final report for a run (which may itself carry a scenario error)."""

    run_id: int
    path: Path
    report: ScenarioReport


@dataclass
class RunFailed(Message):
    """A run ended without a report: the engine died, timed out, or was cancelled."""

    run_id: int
    path: Path
    error: ScenarioError
    cancelled: bool = False


def from_engine(run_id: int, path: Path, message: protocol.RunMessage) -> Message | None:
    """The app's message for one protocol message of a run (``None`` for one the app has no use for)."""
    from kernel_tui.transport import protocol

    return protocol.dispatch(
        message,
        stage_started=lambda started: StageStarted(run_id, path, started.stage, started.detail, started.total),
        partial=lambda partial: ReportUpdated(run_id, path, partial.report),
        sweep_point=lambda sweep_point: SweepPointMeasured(run_id, path, sweep_point.point),
        done=lambda done: RunFinished(run_id, path, done.report),
    )
