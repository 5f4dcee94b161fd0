"""A run that has gone quiet says so: ``kernel-tui run`` on a ``fn`` that hangs printed nothing for ten minutes,
until its time-out. While the engine sends no word, a line on stderr every ``KERNEL_TUI_QUIET_S`` names the file,
the stage it is in, how long it has been quiet, and when and how the run ends."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

# Silence worth a line: KERNEL_TUI_QUIET_S (``model.settings``), 30 s unset; a cold compile on two busy cores says
# nothing for longer than most steps take.


class QuietWatch:
    """Told of each message (``heard``); says so on ``say`` each time the engine has been quiet ``quiet_s`` more."""

    def __init__(self, name: str, timeout_s: float | None, say: Callable[[str], None]) -> None:
        from kernel_tui.model.settings import seconds_or_default

        self._name = name
        self._timeout_s = timeout_s
        self._say = say
        self._quiet_s = seconds_or_default("KERNEL_TUI_QUIET_S")
        self._stage = "start"
        self._started = self._heard_at = time.monotonic()
        self._ended = threading.Event()

    def heard(self, stage: str | None = None) -> None:
        self._heard_at = time.monotonic()
        if stage:
            self._stage = stage

    def _watch(self) -> None:
        said_at = self._heard_at
        while not self._ended.wait(min(1.0, self._quiet_s)):
            now = time.monotonic()
            if now - max(self._heard_at, said_at) < self._quiet_s:
                continue
            said_at = now
            quiet = now - self._heard_at
            ends = f"it ends at --timeout {self._timeout_s:g} s" if self._timeout_s else "it has no --timeout"
            self._say(
                f"{self._name}: still in {self._stage}, no word from the engine for {quiet:.0f} s "
                f"({now - self._started:.0f} s into the run; {ends}; Ctrl-C stops it)"
            )

    @contextmanager
    def watching(self) -> Iterator[QuietWatch]:
        thread = threading.Thread(target=self._watch, name="kernel-tui quiet watch", daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._ended.set()
            thread.join()
