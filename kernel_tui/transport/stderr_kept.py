"""What a front end keeps of its engine's stderr: the last lines, and a crash dump whole from its first line on.

The last 40 lines are the details of most deaths (an exit, a refusal, a time-out). A crash dump is longer: a
compiling engine's is 60 and more lines, its crash frames first, so a tail would keep the extension modules and
torch's outer native frames and cut the frames that say where. From the line a dump begins with
(``model.death.crash_dump.DUMP_START``) every line is kept, up to a bound, and so is the tail as it stood before it.
"""

from __future__ import annotations

import collections

from kernel_tui.model.death.crash_dump import DUMP_START

STDERR_TAIL_LINES = 40
DUMP_LINES_KEPT = 4000
"""A dump's lines kept (each already bounded by the line reader): torch prints every thread's native frames, a
few dozen threads on a many-core machine."""
DYING_S = 10.0
"""How long an engine that began a crash dump may take to end: torch's native handler, which writes after
faulthandler, is not async-signal-safe and can hang (a crash inside malloc); its tree is ended then."""


class StderrKept:
    """An engine's stderr as its death's details need it. Shared by whichever client holds the engine."""

    def __init__(self) -> None:
        self._tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._before_dump = ""
        self._dump: list[str] | None = None

    def append(self, line: str) -> bool:
        """Keep ``line``; True when it is the first line of a crash dump (the engine is dying)."""
        self._tail.append(line)
        if self._dump is not None:
            if len(self._dump) < DUMP_LINES_KEPT:
                self._dump.append(line)
            return False
        if DUMP_START.match(line.rstrip("\n")):
            self._before_dump = "".join(list(self._tail)[:-1])
            self._dump = [line]
            return True
        return False

    def clear(self) -> None:
        self._tail.clear()
        self._before_dump = ""
        self._dump = None

    def tail(self) -> str:
        return "".join(self._tail)

    def dump(self) -> str:
        """The crash dump, whole ('' if none began)."""
        return "".join(self._dump or ())

    def before_dump(self) -> str:
        """The last lines before the dump began: what the engine (or the scenario) said last."""
        return self._before_dump
