"""One run as its protocol messages describe it: ``fold`` takes in one message, for the app and the CLI alike.

The engine link numbers each run when it is asked for (the app's ``RunLifecycle``, the CLI's
``EngineClient``); the record starts with that number and ``fold`` takes in only the messages that carry it,
so a message of a run that was cancelled or replaced changes nothing. What the app shows of a run
(``ui.run_state.ScenarioRun``), what ``kernel-tui run`` prints, and the report of a run whose engine died
(``died_report``) are all read from this one record. Nothing here touches Textual or torch.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from kernel_tui.model.death.engine_death import EngineFacts
from kernel_tui.model.death.engine_death import died_report as death_report
from kernel_tui.transport import protocol

if TYPE_CHECKING:
    from kernel_tui.model.report.report import ScenarioError, ScenarioReport, SweepPoint

Said = TypeVar("Said")
"""A kind of message, read from ``said`` by its type."""


@dataclass(frozen=True)
class RunRecord:
    """What the messages of one run said so far."""

    run_id: int
    """The number the engine link gave the run; only messages carrying it are taken in."""
    path: Path
    sweep: bool
    """Whether the run was asked to sweep sizes (its progress counts one step per size)."""
    stage: str = ""
    """The stage the engine said it began last ('' before the first)."""
    detail: str = ""
    sweep_total: int | None = None
    """How many sizes the sweep measures, once the engine said so."""
    report: ScenarioReport | None = None
    """The latest report: a partial one while the run goes on, the final one once ``done``."""
    points: tuple[SweepPoint, ...] = ()
    """The sweep's points as they arrived (the final report's own once it came)."""
    done: bool = False
    """The final report arrived."""
    error: ScenarioError | None = None
    """Why the run failed: the final report's scenario error, or why the engine ended it."""
    cancelled: bool = False
    """Ended by a cancel: not an error, and no report."""
    said: tuple[protocol.RunMessage, ...] = ()
    """Every message of the run that has no fold of its own above, in the order it came (``latest``,
    ``every``): a message added to the protocol is kept, and read by its type, with no change here."""

    @property
    def ended(self) -> bool:
        return self.done or self.cancelled or self.error is not None

    def latest(self, kind: type[Said]) -> Said | None:
        """The last message of type ``kind`` the run sent (one with no fold of its own), None before any."""
        return next((message for message in reversed(self.said) if isinstance(message, kind)), None)

    def every(self, kind: type[Said]) -> tuple[Said, ...]:
        """Every message of type ``kind`` the run sent (one with no fold of its own), in order."""
        return tuple(message for message in self.said if isinstance(message, kind))


def fold(record: RunRecord, message: protocol.RunMessage) -> RunRecord:
    """``record`` with ``message`` taken in; unchanged for a message of another run or one after the run ended."""
    if message.run_id != record.run_id or record.ended:
        return record
    # The folds that aggregate; any other message is kept as it came, in ``said``.
    folded = protocol.dispatch(
        message,
        stage_started=lambda started: replace(
            record,
            stage=started.stage,
            detail=started.detail,
            sweep_total=started.total if started.stage == "sweep" else record.sweep_total,
        ),
        partial=lambda partial: replace(record, report=partial.report),
        sweep_point=lambda measured: replace(record, points=(*record.points, measured.point)),
        done=lambda done: replace(
            record,
            report=done.report,
            points=done.report.sweep if done.report.sweep else record.points,
            done=True,
            error=done.report.error,
        ),
    )
    return folded if folded is not None else replace(record, said=(*record.said, message))


def ended_without_report(record: RunRecord, error: ScenarioError, *, cancelled: bool = False) -> RunRecord:
    """``record`` after its run ended with no final report: the engine died, overran, or was cancelled."""
    if record.ended:
        return record
    return replace(record, error=None if cancelled else error, cancelled=cancelled)


CRASH_STAGES = {"eager": "eager profile", "profile": "compiled profile"}
"""A stage the engine announced, as a crash report names it, where the two differ: ``eager`` runs and profiles
``fn`` eagerly, and ``profile`` follows a compile."""


def crash_stage(record: RunRecord) -> str:
    """The stage the run was in, for the report of an engine that died in it ('' before its first): the last the
    engine announced, a sweep as its point being measured (the points that arrived, plus one)."""
    if record.stage == "sweep":
        total = f" of {record.sweep_total}" if record.sweep_total else ""
        return f"sweep point {len(record.points) + 1}{total}"
    return CRASH_STAGES.get(record.stage, record.stage)


def died_report(
    record: RunRecord,
    error: ScenarioError,
    engine: EngineFacts,
    *,
    size: int | None,
) -> ScenarioReport:
    """The report of a run whose engine died: everything the record holds (the last partial report and the
    sweep points streamed since), with the scenario's claims checked against it."""
    return death_report(
        error,
        str(record.path.resolve()),
        engine,
        measured=record.report,
        points=record.points,
        size=size,
        swept=record.sweep,
    )


def engine_facts(hello: protocol.Hello | None, device: str) -> EngineFacts:
    """What is known of an engine from its hello (None: it never said hello, so only the device asked for)."""
    if hello is None:
        return EngineFacts(device)
    return EngineFacts(hello.device, hello.device_name, hello.torch_version, hello.threads)
