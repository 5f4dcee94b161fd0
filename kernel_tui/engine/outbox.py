"""One run's messages on their way out, as the protocol's own dataclasses, and the last stage and partial report
sent: what a run that ends abruptly is reported with (``server``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kernel_tui.transport.protocol import Partial, RunMessage, Stage, StageStartedMessage, SweepPointMessage

if TYPE_CHECKING:
    from kernel_tui.model.report import ScenarioReport, SweepPoint


class RunOutbox:
    """What the stages of a run report through: each method sends one typed message of this run."""

    def __init__(self, run_id: int, send: Callable[[RunMessage], None]) -> None:
        self.run_id = run_id
        self._send = send
        self.stage: Stage = "load"
        self.last_partial: ScenarioReport | None = None

    @classmethod
    def nowhere(cls) -> RunOutbox:
        """Where nobody listens for progress (tests, benches)."""
        return cls(0, lambda message: None)

    def progress(self, stage: Stage, detail: str, total: int | None = None) -> None:
        """A stage begins; ``total``: how many steps it takes when it has several (the sweep's sizes)."""
        self.send(StageStartedMessage(self.run_id, stage, detail, total))

    def partial(self, report: ScenarioReport) -> None:
        """What is known so far, sent while the run goes on."""
        self.send(Partial(self.run_id, report))

    def sweep_point(self, point: SweepPoint) -> None:
        self.send(SweepPointMessage(self.run_id, point))

    def send(self, message: RunMessage) -> None:
        if isinstance(message, StageStartedMessage):
            self.stage = message.stage
        elif isinstance(message, Partial):
            self.last_partial = message.report
        self._send(message)
