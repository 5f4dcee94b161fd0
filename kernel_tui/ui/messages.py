"""Messages from the engine worker to the explorer screen: small dataclasses named as facts that happened.

The worker thread turns the engine's protocol dicts into these (parsing happens off the UI thread) and
posts them; ``post_message`` is thread-safe. Each carries the ``run_id`` of the run it belongs to, so a
message from a run that was cancelled or replaced is recognised and dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from textual.message import Message

from kernel_tui.report import ScenarioError, ScenarioReport, SweepPoint


@dataclass
class EngineStarted(Message):
    """The engine process is up and said hello (device, device name, torch version, threads)."""

    hello: dict[str, Any]


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


_POINT_FIELDS = frozenset(field.name for field in fields(SweepPoint))


def from_engine(run_id: int, path: Path, message: dict[str, Any]) -> Message | None:
    """The typed message for one protocol dict of a run (``None`` for a type the app has no use for)."""
    kind = message.get("type")
    if kind == "progress":
        return StageStarted(run_id, path, str(message.get("stage", "")), str(message.get("detail") or ""))
    if kind == "partial":
        return ReportUpdated(run_id, path, ScenarioReport.from_dict(message["report"]))
    if kind == "sweep_point":
        # Fields this version does not know (a newer engine) are left out rather than failing the run.
        point = {key: value for key, value in message["point"].items() if key in _POINT_FIELDS}
        return SweepPointMeasured(run_id, path, SweepPoint(**point))
    if kind == "done":
        return RunFinished(run_id, path, ScenarioReport.from_dict(message["report"]))
    return None
