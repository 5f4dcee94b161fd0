"""How a front end learns that its engine is gone: the engine's death (exit code, signal, refusal to start,
stderr tail, crash dump), and the wait that ran out while it still ran.

A death the engine did not choose is told with the stage it was in (the run's record: ``run_record.crash_stage``,
or its warm-up) and, where it left a crash dump (``model.death.crash_dump``), the scenario's own frame in it: the
one line names the file, the line and the stage, and the details hold the crashing frames."""

from __future__ import annotations

import signal
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from kernel_tui.model.names.safe_text import safe_text

if TYPE_CHECKING:
    from kernel_tui.model.death.crash_dump import CrashDump
    from kernel_tui.model.report.report import ScenarioError
    from kernel_tui.transport.protocol import Hello, Warmup
    from kernel_tui.transport.run_record import RunRecord
    from kernel_tui.transport.stderr_kept import StderrKept

REFUSAL_PREFIX = "kernel-tui engine: "


@dataclass
class EngineDied(Exception):
    """The engine ended while a front end was waiting on it.

    Not frozen: raising and re-raising sets ``__traceback__`` on the exception (``contextlib`` does, when it
    passes through a ``with`` block's generator), which a frozen dataclass refuses."""

    returncode: int | None
    stderr_tail: str
    reason: str = ""
    """Why the front end ended it (a time-out, a cancel); '' where it died by itself."""
    dump: str = ""
    """Its crash dump, whole from its first line ('' if it left none)."""
    before_dump: str = ""
    """Its stderr's last lines before the dump."""
    warming_up: bool = False
    """It died in its warm-up compile: it announced one (``Hello.warmup``) and had not said that it ended."""
    device: str = ""
    """The device its hello named ('' before a hello)."""

    def __post_init__(self) -> None:
        # The tail is what a scenario wrote on stderr: shown in the app's details and in the report, never as a
        # terminal's escape.
        self.stderr_tail = safe_text(self.stderr_tail)
        self.reason = safe_text(self.reason)
        self.dump = safe_text(self.dump)
        self.before_dump = safe_text(self.before_dump)

    @classmethod
    def of(cls, code: int | None, kept: StderrKept, hello: Hello | None, warmup: Warmup | None) -> EngineDied:
        """The death of an engine that ended by itself with ``code``, its stderr ``kept``; ``hello`` and ``warmup``
        its messages of those kinds (None: none came)."""
        return cls(
            code,
            kept.tail(),
            dump=kept.dump(),
            before_dump=kept.before_dump(),
            warming_up=hello is not None and hello.warmup is not None and warmup is None,
            device=hello.device if hello is not None else "",
        )

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

    def stage(self, record: RunRecord | None = None) -> str:
        """The stage the engine died in, in words ('' where it was ended, or where it is not known): its warm-up,
        else the last stage ``record`` (its run's) announced."""
        if self.reason:
            return ""
        if self.warming_up:
            return "warm-up"
        from kernel_tui.transport.run_record import crash_stage

        stage = crash_stage(record) if record is not None else ""
        return f"preview {stage}" if stage and self.device == "cuda-preview" else stage

    def crash(self) -> CrashDump | None:
        from kernel_tui.model.death.crash_dump import parse

        return parse(self.dump) if self.dump else None

    def error(self, file: str | Path | None = None, record: RunRecord | None = None) -> ScenarioError:
        """This death as the error of the run of ``file`` it ended (None: the engine's start); ``record``, that
        run's, says the stage it died in. Where it left a crash dump, the error points at the scenario's own
        frame in it, and its details are the crashing frames, then what the engine said before."""
        from kernel_tui.model.death.engine_death import engine_error

        stage, dump = self.stage(record), self.crash()
        if not stage and dump is None:
            return engine_error(self.describe(), file=file, details=self.stderr_tail)
        frame = dump.frame_in(file) if dump is not None and file is not None else None
        message = self.describe() + (f" in the {stage}" if stage else "")
        if frame is not None:
            message += f", in {frame.function}"
        elif dump is not None and dump.crashing_frame():
            message += f", at {dump.crashing_frame()}"
        facts = [f"stage: {stage or 'not known'}"]
        if record is not None and record.stage:
            facts.append(f"last step announced: {record.stage}: {record.detail}")
        if dump is not None and dump.crashing_frame():
            facts.append(f"crashing frame: {dump.crashing_frame()}")
        if dump is None:
            details = "\n".join(facts) + "\n\n" + self.stderr_tail
        else:
            said = self.before_dump.rstrip()
            details = "\n".join(facts) + "\n\n" + dump.details()
            details += f"\nThe engine's stderr before the crash:\n{said}\n" if said else ""
        error = engine_error(message, file=file, details=details)
        return error if frame is None else replace(error, line=frame.line)


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
