"""The app's one door to the engine: a small wrapper around ``EngineClient`` that tests replace with a fake.

Everything here is called from worker threads except ``cancel`` and ``close``, which the UI calls and
which only kill the engine's process group: the blocked run then ends with ``EngineDied`` in its own
thread, and the next run starts a fresh engine.
"""

from __future__ import annotations

import collections
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from kernel_tui.ui.drafts import state_dir

if TYPE_CHECKING:
    # The client and the protocol's dataclasses are imported when the engine is first used, after the
    # explorer's first frame: they are about 6 ms of its start-up.
    from kernel_tui.transport.client import EngineClient
    from kernel_tui.transport.protocol import Hello, RunMessage, Warmup

OUTPUT_LINES = 200
ENGINE_LOG = "engine.log"
CompileVariants = dict[str, dict[str, Any]]
"""Compile variants by name, each a set of ``torch.compile`` keyword arguments (``RunRequest.variants``)."""
RUN_TIMEOUT_S = 600.0
"""Same limit as ``kernel-tui run``: a cold compile of a large scenario fits; a hung engine does not."""


class EngineLink(Protocol):
    """What the explorer needs from an engine; ``ClientEngineLink`` is the real one."""

    def start(self) -> Hello:
        """Start the engine if it is not running; return its hello (device, device_name, torch_version)."""
        ...

    def run(
        self, path: Path, *, sweep: bool, size: int | None = None, variants: CompileVariants | None = None
    ) -> Iterator[RunMessage]:
        """Ask for a run now; read the returned iterator (in a worker thread) for its protocol messages.

        ``size`` is the elements per input tensor for the kernel tables; None: the scenario's own SIZE.
        ``variants`` are compile variants by name, added to (or overriding) the file's ``VARIANTS``.

        The run counts as asked for the moment this returns, so a ``cancel`` right after stops it even
        if it has not begun. Reading raises ``kernel_tui.transport.client.EngineDied`` if the engine ends first
        (crash, timeout or cancel); the last message is ``Done``.
        """
        ...

    def cancel(self) -> None:
        """Cancel every run asked for so far, ending the engine if one of them holds it; returns at once."""
        ...

    def close(self) -> None:
        """End the engine for good (the app is quitting)."""
        ...

    def output(self, since: int = 0, until: int | None = None) -> str:
        """What the scenarios printed lately (the engine's stderr), for the details screen: the lines from
        ``since`` up to ``until`` (counts from ``output_mark``), so a run's details show its own output."""
        ...

    def output_mark(self) -> int:
        """How many lines of output there have been so far (where a run's own output starts and ends)."""
        ...


EngineLinkFactory = Callable[[str], EngineLink]
"""Builds a link for a device name (``auto``, ``cpu``, ``cuda``); the app calls it once."""


class ClientEngineLink:
    """The real engine: one ``EngineClient`` child process, shared by the runs one after another."""

    def __init__(self, device: str) -> None:
        self._output: collections.deque[str] = collections.deque(maxlen=OUTPUT_LINES)
        self._lines = 0
        """Lines of output so far, the latest ``OUTPUT_LINES`` of them kept."""
        self.log_path: Path | None = state_dir() / ENGINE_LOG
        """Everything the engine wrote on stderr this session (what scenarios printed): a log to open."""
        self._log: TextIO | None = None
        # The learner reads the first lesson before running it: time enough to warm the compiler.
        # KERNEL_TUI_WARM_UP=0 turns it off (the test suite does, where no one reads a lesson first).
        self._warm_up = os.environ.get("KERNEL_TUI_WARM_UP", "1") != "0"
        self._device = device
        self._made_client: EngineClient | None = None
        self._making_client = threading.Lock()
        """A start (worker thread) and a close (UI thread) that both make the client must make one."""
        # One run (or start) at a time: a run that replaces a cancelled one must wait until the
        # cancelled one has let go of the client, or both would read the same message queue.
        self._busy = threading.Lock()
        self._starting = threading.Event()
        self._requested = 0
        """Runs asked for so far, counted on the caller's thread the moment each is asked for."""
        self._cancelled_upto = 0
        """Every run numbered up to this one is cancelled, whether it has begun or not."""
        self._running: int | None = None
        """The run holding the engine now."""
        self._closed = False

    @property
    def _client(self) -> EngineClient:
        with self._making_client:
            if self._made_client is None:
                from kernel_tui.transport.client import EngineClient

                self._made_client = EngineClient(self._device, stderr_sink=self._record_output, warm_up=self._warm_up)
            return self._made_client

    def start(self) -> Hello:
        with self._busy:
            return self._start()

    def _start(self) -> Hello:
        from kernel_tui.transport.client import EngineDied

        if self._closed:
            raise EngineDied(None, "", "the app is closing")
        self._starting.set()
        try:
            hello = self._client.start()
        finally:
            self._starting.clear()
        if self._closed:
            # close() ran while the engine was starting: don't leave a child behind.
            self._client.close()
            raise EngineDied(None, "", "the app is closing")
        return hello

    def warmup_result(self) -> Warmup | None:
        """The engine's ``Warmup`` message once its first compile has ended; None while it runs."""
        return self._made_client.warmup_result if self._made_client is not None else None

    def run(
        self, path: Path, *, sweep: bool, size: int | None = None, variants: CompileVariants | None = None
    ) -> Iterator[RunMessage]:
        self._requested += 1
        return self._messages(self._requested, path, sweep, size, variants)

    def _messages(
        self, number: int, path: Path, sweep: bool, size: int | None, variants: CompileVariants | None
    ) -> Iterator[RunMessage]:
        from kernel_tui.transport.client import EngineDied

        with self._busy:
            self._running = number
            try:
                if number <= self._cancelled_upto:
                    # Cancelled before it began: the engine (perhaps warmed up for later) is left alone.
                    raise EngineDied(None, "", "cancelled")
                self._start()
                for message in self._client.run(
                    str(path), size=size, sweep=sweep, timeout=RUN_TIMEOUT_S, variants=variants
                ):
                    if number <= self._cancelled_upto:
                        # The cancel landed while the engine was (re)starting, so it killed nothing.
                        self._client.close()
                        raise EngineDied(None, self._client.stderr_tail(), "cancelled")
                    yield message
            finally:
                self._running = None

    def cancel(self) -> None:
        self._cancelled_upto = self._requested
        # Ending a process group and reaping it can take a moment: never on the caller's (UI) thread.
        threading.Thread(target=self._stop_cancelled, daemon=True).start()

    def _stop_cancelled(self) -> None:
        running = self._running
        if running is not None and running <= self._cancelled_upto:
            self._stop()
        # Otherwise no cancelled run holds the engine (it may be warming up for a later one); a cancelled
        # run that has not begun sees its cancel as soon as it does.

    def close(self) -> None:
        self._closed = True
        self._stop()

    def _stop(self) -> None:
        self._client.close()
        # A start in progress may not have its process yet, and would then wait for a hello that takes
        # seconds (torch imports): keep ending it until that start has given up.
        deadline = time.monotonic() + 5.0
        while self._starting.is_set() and time.monotonic() < deadline:
            time.sleep(0.01)
            self._client.close()

    def output(self, since: int = 0, until: int | None = None) -> str:
        first = self._lines - len(self._output)  # the mark of the oldest line kept
        end = self._lines if until is None else min(until, self._lines)
        kept = list(self._output)
        return "".join(kept[max(since - first, 0) : max(end - first, 0)])

    def output_mark(self) -> int:
        return self._lines

    def _record_output(self, line: str) -> None:
        self._output.append(line)
        self._lines += 1
        try:
            if self._log is None and self.log_path is not None:
                self.log_path.parent.mkdir(parents=True, exist_ok=True)
                self._log = self.log_path.open("w", encoding="utf-8", buffering=1)
            if self._log is not None:
                self._log.write(line)
        except OSError:
            self.log_path = None  # an unwritable state folder costs the log file, not the run


def client_engine_link(device: str) -> EngineLink:
    """The factory the command line uses."""
    return ClientEngineLink(device)
