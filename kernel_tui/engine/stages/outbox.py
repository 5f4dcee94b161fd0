"""One run's messages on their way out, any of the protocol's run messages through one ``send``, folded into the
run's record as they go: what a run that ends abruptly is reported with (``server``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Concatenate, ParamSpec

from kernel_tui.transport.run_record import RunRecord, fold

if TYPE_CHECKING:
    from kernel_tui.transport.protocol import RunMessage, RunRequest

Arguments = ParamSpec("Arguments")


class RunOutbox:
    """What the stages of a run report through: ``send(kind, ...)`` makes and sends one message of this run."""

    def __init__(self, record: RunRecord, send: Callable[[RunMessage], None]) -> None:
        self.record = record
        """The run as its messages sent so far tell it, folded by the front ends' own ``run_record.fold``: a
        run that ends abruptly is reported from it, as a front end reports an engine that died."""
        self._send = send

    @classmethod
    def for_request(cls, request: RunRequest, send: Callable[[RunMessage], None]) -> RunOutbox:
        return cls(RunRecord(request.run_id, Path(request.path), request.sweep), send)

    @classmethod
    def nowhere(cls) -> RunOutbox:
        """Where nobody listens for progress (tests, benches)."""
        return cls(RunRecord(0, Path(), sweep=False), lambda message: None)

    def send(
        self,
        kind: Callable[Concatenate[int, Arguments], RunMessage],
        /,
        *args: Arguments.args,
        **kwargs: Arguments.kwargs,
    ) -> None:
        """Send ``kind(run_id, *args, **kwargs)``: any run message, numbered as this run, so that no stage can
        send one under another run's number, and a message added to the protocol needs nothing here."""
        message = kind(self.record.run_id, *args, **kwargs)
        self.record = fold(self.record, message)
        self._send(message)
