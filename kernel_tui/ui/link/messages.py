"""The one Textual message from the engine's worker threads to the explorer: ``EngineSaid``, an envelope.

It carries the protocol's own message as it came (``Hello``, ``StageStartedMessage``, ``Partial``,
``SweepPointMessage``, ``Done``), or one of the two facts the link adds where the engine said nothing: it
could not start (``StartFailed``), or a run ended without its report (``RunEnded``). A protocol message needs
no twin here: a new one reaches the explorer's handler as it is. The worker thread parses the engine's lines
(off the UI thread) and posts the envelope; ``post_message`` is thread-safe.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from textual.message import Message

if TYPE_CHECKING:
    # The protocol is imported by the worker that reads the engine, after the explorer's first frame.
    from kernel_tui.model.report.report import ScenarioError
    from kernel_tui.transport import protocol


@dataclass(frozen=True)
class StartFailed:
    """The engine could not be started; ``error`` says why, with its stderr tail as details."""

    error: ScenarioError


@dataclass(frozen=True)
class RunEnded:
    """A run ended without a report: the engine died, timed out, or was cancelled."""

    run_id: int
    error: ScenarioError
    cancelled: bool = False


if TYPE_CHECKING:
    News: TypeAlias = protocol.Hello | protocol.RunMessage | StartFailed | RunEnded
    """What an envelope carries: the engine's own word, or the link's where the engine said nothing."""


@dataclass
class EngineSaid(Message):
    """One thing heard from the engine side, for the run of ``path`` (None: about the engine itself)."""

    news: News
    path: Path | None = None

    def can_replace(self, message: Message) -> bool:
        # Only the latest stage matters to the status line: a newer one queued right behind an older one of the
        # same run lets the older one be dropped. Sweep points and reports are never replaced: each counts.
        from kernel_tui.transport.protocol import StageStartedMessage

        if not isinstance(message, EngineSaid):
            return False
        older, newer = message.news, self.news
        return (
            isinstance(older, StageStartedMessage)
            and isinstance(newer, StageStartedMessage)
            and older.run_id == newer.run_id
        )
