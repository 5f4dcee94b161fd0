"""How a front end learns that its engine is gone: the engine's death (exit code, signal, refusal to start,
stderr tail), and the wait that ran out while it still ran."""

from __future__ import annotations

import signal
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kernel_tui.model.safe_text import safe_text

if TYPE_CHECKING:
    from kernel_tui.model.report import ScenarioError

REFUSAL_PREFIX = "kernel-tui engine: "


@dataclass
class EngineDied(Exception):
    """The engine ended while a front end was waiting on it.

    Not frozen: raising and re-raising sets ``__traceback__`` on the exception (``contextlib`` does, when it
    passes through a ``with`` block's generator), which a frozen dataclass refuses."""

    returncode: int | None
    stderr_tail: str
    reason: str = ""

    def __post_init__(self) -> None:
        # The tail is what a scenario wrote on stderr: shown in the app's details and in the report, never as a
        # terminal's escape.
        self.stderr_tail = safe_text(self.stderr_tail)
        self.reason = safe_text(self.reason)

    def describe(self) -> str:
        if self.reason:
            return self.reason
        code = self.returncode
        if code is None:
            return f"the engine stopped answering: {self.refusal}" if self.refusal else "the engine stopped answering"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"the engine was killed by {name}"
        if code == 3 and self.refusal:
            return f"the engine exited with code 3: {self.refusal}"
        return f"the engine exited with code {code}"

    @property
    def refusal(self) -> str:
        """Why the engine refused to start, in its own words ('' if it did not): code 3 is the engine refusing
        the torch it found (below kernel-tui's floor) or the device it was asked for (no GPU, a preview whose
        patches miss their target). Its own words say what would work."""
        if self.returncode not in (3, None):
            return ""
        refusals = [line.removeprefix(REFUSAL_PREFIX) for line in self.stderr_tail.splitlines() if is_refusal(line)]
        return refusals[-1] if refusals else ""

    def __str__(self) -> str:
        return self.describe()

    def error(self, file: str | Path | None = None) -> ScenarioError:
        """This death as the error of the run of ``file`` it ended (None: the engine's start)."""
        from kernel_tui.model.engine_death import engine_error

        return engine_error(self.describe(), file=file, details=self.stderr_tail)


def is_refusal(line: str) -> bool:
    """Whether an engine's stderr line is its refusal to start (``EngineDied.refusal`` repeats it)."""
    line = line.rstrip("\n")
    return (
        line.startswith(REFUSAL_PREFIX)
        and not line.startswith(f"{REFUSAL_PREFIX}ignoring")
        and not line.endswith(": ending")  # the lifeline's word on why it ended
    )


class NoMessageInTime(Exception):
    """The engine, still running, sent nothing within the time a front end was willing to wait."""
