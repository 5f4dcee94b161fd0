"""The next run's engine, started while the current one runs: every scenario runs in an engine no earlier
scenario has touched, without waiting for one to start.

A scenario is arbitrary code in the engine's own process: it can replace the engine's message encoder, patch
``nn.Linear.forward`` or ``json.dumps``, add an audit hook or a global module hook, leave a dispatch mode
entered. Restoring a snapshot of known state after it missed a new class of such state each round, so the
process is the one isolation: each engine runs one scenario and ends, and the next run takes this spare, started
when the run before it was sent (and warmed up, where the client warms up).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from kernel_tui.transport import proctree

if TYPE_CHECKING:
    from kernel_tui.transport.protocol import Hello


class StartableEngine(Protocol):
    """What a spare needs of an engine client (``client.EngineClient``), which itself keeps a spare: named here so
    that the two modules do not import each other."""

    @property
    def running(self) -> bool: ...

    hello: Hello | None

    def start(self, timeout: float = ..., *, abandoned: Callable[[], bool] | None = None) -> Hello: ...

    def close(self) -> None: ...

    @property
    def pid(self) -> int | None: ...


Engine = TypeVar("Engine", bound=StartableEngine)

READY_POLL_S = 0.1
"""How often a run waiting for the spare to start checks whether it was cancelled meanwhile."""


class SpareEngine(Generic[Engine]):
    """An engine client started on a thread of its own; ``ready`` waits for its hello, ``drop`` ends it."""

    def __init__(self, client: Engine) -> None:
        self.client = client
        self._dropped = threading.Event()
        self._thread = threading.Thread(target=self._start, name="kernel-tui spare engine", daemon=True)
        self._thread.start()

    def _start(self) -> None:
        try:
            self.client.start(abandoned=self._dropped.is_set)
        except Exception:  # noqa: BLE001 - EngineDied, OSError: the run that wanted it starts one itself and says why
            self.client.close()

    def ready(self, abandoned: Callable[[], bool] | None = None) -> bool:
        """Whether it started (waiting for its hello); False at once when ``abandoned()`` says so meanwhile."""
        while self._thread.is_alive():
            if abandoned is not None and abandoned():
                return False
            self._thread.join(READY_POLL_S)
        return self.client.running and self.client.hello is not None

    def resume(self) -> None:
        """Continue its process group: the scenario that ran while it waited may have stopped it (SIGSTOP), and
        its run would then wait on it until timed out. Called once nothing that scenario started is left."""
        pid = self.client.pid
        if pid is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGCONT)
        fields = proctree.stat_fields(pid)
        keeper = int(fields[1]) if fields is not None else 0
        if keeper > 1 and keeper != os.getpid():  # its keeper (``transport.keeper``), which reports its end
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(keeper, signal.SIGCONT)

    def drop(self) -> None:
        """End it, started or still starting."""
        self._dropped.set()
        self.client.close()
