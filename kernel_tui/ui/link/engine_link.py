"""The app's one door to the engine: a small wrapper around ``EngineClient`` that tests replace with a fake.

Everything here is called from worker threads except ``cancel`` and ``close``, which the UI calls and
which only kill the engine's process group: the blocked run then ends with ``EngineDied`` in its own
thread, and the next run starts a fresh engine.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable, Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from kernel_tui.ui.link.state_folder import state_dir

if TYPE_CHECKING:
    # The client, the protocol's dataclasses and the run lifecycle are imported when the engine is first
    # used, after the explorer's first frame: they are about 8 ms of its start-up.
    from kernel_tui.transport.client import EngineClient
    from kernel_tui.transport.protocol import Arch, Hello, RunMessage, Warmup
    from kernel_tui.ui.link.run_lifecycle import EngineRun, RunLifecycle, RunMessages

OUTPUT_LINES = 200
ENGINE_LOG = "engine.log"
CompileVariants = dict[str, dict[str, Any]]
"""Compile variants by name, each a set of ``torch.compile`` keyword arguments (``RunRequest.variants``)."""
RUN_TIMEOUT_S = 600.0
"""Same limit as ``kernel-tui run``: a cold compile of a large scenario fits; a hung engine does not."""
LONGEST_HOLD_S = 2 * RUN_TIMEOUT_S
"""The longest a run waits for another to let go of the engine, which holds it for its start (120 s at most)
and its run's time-out: beyond that a bug, not an engine, holds it, and the waiting run fails saying so."""


class EngineLink(Protocol):
    """What the explorer needs from an engine; ``ClientEngineLink`` is the real one."""

    log_path: Path | None
    """Where the engine's own output is logged, for the details pane; None where nothing is logged."""

    def start(self) -> Hello:
        """Start the engine if it is not running; return its hello (device, device_name, torch_version)."""
        ...

    def warmup_result(self) -> Warmup | None:
        """The engine's ``Warmup`` message once the first compile it runs while the learner reads (announced
        by ``Hello.warmup``) has ended; None while it runs, or when no engine warms up (saved results)."""
        ...

    def run(
        self, path: Path, *, sweep: bool, size: int | None = None, variants: CompileVariants | None = None
    ) -> RunMessages:
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

    def __init__(self, device: str, arch: Arch | None = None) -> None:
        self._output: collections.deque[str] = collections.deque(maxlen=OUTPUT_LINES)
        self._lines = 0
        """Lines of output so far, the latest ``OUTPUT_LINES`` of them kept."""
        self.log_path: Path | None = state_dir() / ENGINE_LOG
        """Everything the engine wrote on stderr this session (what scenarios printed): a log to open."""
        self._log: TextIO | None = None
        from kernel_tui.transport.boot import warm_up_wanted

        # The learner reads the first lesson before running it: time enough to warm the compiler.
        self._warm_up = warm_up_wanted()
        self._device = device
        self._arch = arch
        """With ``cuda-preview``: the GPU architecture every run asks for (None: the engine's default)."""
        self._made_client: EngineClient | None = None
        self._made_lifecycle: dict[str, RunLifecycle] = {}

    @property
    def lifecycle(self) -> RunLifecycle:
        """Every run and start asked of the engine, one holding it at a time: a run that replaces a cancelled
        one waits until the cancelled one has let go of the client, or both would read its message queue."""
        made = self._made_lifecycle.get("made")
        if made is None:
            from kernel_tui.ui.link.run_lifecycle import RunLifecycle

            # Made at the first run or start, on the UI's thread or a worker's: setdefault keeps one of the two.
            made = self._made_lifecycle.setdefault("made", RunLifecycle())
        return made

    @property
    def _client(self) -> EngineClient:
        # Made by the run or start that holds the engine, one at a time, so never by two threads at once;
        # a close reads ``_made_client`` and leaves a client not made yet to see that the app is closing.
        if self._made_client is None:
            from kernel_tui.transport.client import EngineClient

            self._made_client = EngineClient(
                self._device, stderr_sink=self._record_output, warm_up=self._warm_up, arch=self._arch
            )
        return self._made_client

    def start(self) -> Hello:
        from kernel_tui.ui.link.run_lifecycle import take_turn

        turn = self.lifecycle.ask(None)
        take_turn(self.lifecycle, turn, LONGEST_HOLD_S)
        started = False
        try:
            hello = self._start(turn)
            started = True
        finally:
            self.lifecycle.ended(turn, report=started)
        return hello

    def _start(self, run: EngineRun) -> Hello:
        from kernel_tui.transport.engine_died import EngineDied
        from kernel_tui.ui.link.run_lifecycle import CLOSING_REASON

        client = self._client
        # ``stopping`` is set before a cancel or close ends the client: see EngineClient.start's ``abandoned``.
        hello = client.start(abandoned=lambda: run.stopping)
        if self.lifecycle.closed:
            # close() ran while the engine was starting: don't leave a child behind.
            client.close()
            raise EngineDied(None, "", CLOSING_REASON)
        return hello

    def warmup_result(self) -> Warmup | None:
        return self._made_client.warmup_result if self._made_client is not None else None

    def run(
        self, path: Path, *, sweep: bool, size: int | None = None, variants: CompileVariants | None = None
    ) -> RunMessages:
        from kernel_tui.ui.link.run_lifecycle import RunMessages

        run = self.lifecycle.ask(path)
        return RunMessages(run, self._messages(run, path, sweep, size, variants))

    def _messages(
        self, run: EngineRun, path: Path, sweep: bool, size: int | None, variants: CompileVariants | None
    ) -> Generator[RunMessage, None, None]:
        from kernel_tui.transport.engine_died import EngineDied
        from kernel_tui.transport.protocol import Done
        from kernel_tui.ui.link.run_lifecycle import take_turn

        # Cancelled before it began: the engine (perhaps warmed up for later) is left alone.
        take_turn(self.lifecycle, run, LONGEST_HOLD_S)
        reported = False
        try:
            self._start(run)
            client = self._client
            self.lifecycle.started(run)
            for message in client.run(
                str(path), size=size, sweep=sweep, timeout=RUN_TIMEOUT_S, variants=variants, run_id=run.run_id
            ):
                if run.stopping:
                    # The cancel landed while the engine was (re)starting, so it killed nothing.
                    client.close()
                    raise EngineDied(None, client.stderr_tail(), run.stop_reason)
                reported = isinstance(message, Done)
                yield message
        finally:
            self.lifecycle.ended(run, report=reported)

    def cancel(self) -> None:
        holder = self.lifecycle.cancel()
        if holder is not None:
            # Ending a process group and reaping it can take a moment: never on the caller's (UI) thread.
            threading.Thread(target=self._stop, daemon=True).start()
        # Otherwise no cancelled run holds the engine (it may be warming up for a later one); a cancelled
        # run that has not begun sees its cancel as soon as it does.

    def close(self) -> None:
        self.lifecycle.close()
        self._stop()

    def _stop(self) -> None:
        # A start that has no process yet sees, once it has one, that its run is stopping, and ends it.
        client = self._made_client
        if client is not None:
            client.close()

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


def client_engine_link(device: str, arch: Arch | None = None) -> EngineLink:
    """The factory the command line uses; ``arch`` travels in each run's request, not the environment."""
    return ClientEngineLink(device, arch)
