"""The front end's side of the engine: start it as a fresh process, send runs, read messages back.

The engine is a child process in its own process group (Inductor starts compile workers), so that
cancel and quit can end all of it at once. Its stderr, where whatever a scenario prints ends up, is
read by a thread that forwards it to a sink and keeps the tail for when the engine dies.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from kernel_tui.transport import engine_channel, forked_engines, proctree, protocol
from kernel_tui.transport.boot import engine_command, python_command, warm_up_wanted
from kernel_tui.transport.engine_died import EngineDied, NoMessageInTime
from kernel_tui.transport.line_reader import DRAIN_AFTER_EXIT_S, LONG_LINE_KEPT, read_lines
from kernel_tui.transport.protocol import (
    Arch,
    Done,
    EngineMessage,
    Hello,
    ProtocolError,
    RunMessage,
    RunRequest,
    Warmup,
)
from kernel_tui.transport.stderr_kept import DYING_S, StderrKept

if TYPE_CHECKING:
    from kernel_tui.transport.spare_engine import SpareEngine

# Kineto prints these on every profile whatever its log level; they are torch's noise, not the scenario's.
PROFILER_CHATTER = re.compile(r"^(USDT|STAGE):\d{4}-\d\d-\d\d ")


CLOSE_WAIT_S = 5.0
STDERR_DRAIN_S = 1.0  # how long a dead engine's report waits for its last stderr if a stranger holds the pipe
STOPPED_WHILE_STARTING = "the engine was stopped while it started"
SIGNAL_SLICE_S = 0.2
"""How long the main thread waits for a message at a time, so that it sees a signal within this."""


Received = EngineMessage | ProtocolError | None
"""What the protocol reader passes on: a message, a line that was none, or (None) the end of the stream."""


class EngineClient:
    """One engine child process; ``run`` streams a scenario's messages, ``close`` ends it all."""

    def __init__(
        self,
        device: str = "auto",
        *,
        stderr_sink: Callable[[str], None] | None = None,
        command: list[str] | None = None,
        env: dict[str, str] | None = None,
        arch: Arch | None = None,
        warm_up: bool = False,
    ) -> None:
        """``arch``: the GPU architecture a ``cuda-preview`` engine generates code for, in every run request that
        names none (default sm_90).

        ``warm_up``: the engine compiles a tiny function right after its hello, while nobody waits for it
        (the explorer: the learner reads the lesson); ``warmup_result`` says when it has ended.

        Each run is in an engine no earlier run has touched: the engine ends after its one run, and the next run
        takes the spare started when this one was sent (``spare_engine``)."""
        self.device = device
        self._stderr_sink = stderr_sink
        self._command = command or engine_command(device) + (["--warm-up"] if warm_up else [])
        # A spare is started ahead of its run, time enough to pay the first compile too (Inductor's imports and
        # probes, in every fresh engine), unless the environment they start under turns it off.
        spares_warm_up = warm_up_wanted(os.environ if env is None else env)
        self._spare_command = command or engine_command(device) + (["--warm-up"] if spares_warm_up else [])
        self._arch = arch
        self.warmup_result: Warmup | None = None
        """The engine's ``warmup`` message once its warm-up compile has ended (done or failed)."""
        self._env = env
        self._process: forked_engines.EngineProcess | None = None
        self._messages: queue.Queue[Received] = queue.Queue()
        self._stderr_tail = StderrKept()
        self._stderr_reader: threading.Thread | None = None
        self._next_run_id = 0
        self._strangers: set[int] = set()
        self.hello: Hello | None = None
        self._spare: SpareEngine[EngineClient] | None = None
        self._adopter: EngineClient | None = None
        """The client that took this one's engine as its spare: the warm-up's end is news to it."""
        self._adoption = threading.Lock()
        """Held while the warm-up's end is kept, and while an adopter takes it over: else it could land on this
        client just after the adopter copied what was here."""

    # -- lifecycle -----------------------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        """The engine's process id (its process group's too), None before it starts."""
        process = self._process
        return None if process is None else process.pid

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self, timeout: float = 120.0, *, abandoned: Callable[[], bool] | None = None) -> Hello:
        """Start the engine and wait for its hello; returns it (device, torch version, ...).

        ``abandoned``: whether whoever asked for the engine no longer wants it (a cancel, the app closing),
        asked once its process exists. Their ``close`` on another thread ends the process if there is one
        already; if there was none yet, this sees them here, so no engine is left waited on for its hello."""
        if self.running and self.hello is not None:
            return self.hello
        if (adopted := self._take_spare(abandoned)) is not None:
            return adopted
        self._end_engine()
        if abandoned is not None and abandoned():
            raise EngineDied(None, "", STOPPED_WHILE_STARTING)
        self._messages = queue.Queue()
        self._stderr_tail.clear()
        self.warmup_result = None
        env = dict(os.environ if self._env is None else self._env)
        env.setdefault("PYTHONUNBUFFERED", "1")
        env[proctree.PARENT_ENV] = str(os.getpid())
        # The readers own the read ends of the pipes and close them when they are done; Popen's file
        # objects would block a close on a reader stuck in read() while a stranger holds the write end.
        out_read, out_write, credited = engine_channel.open_channel()
        err_read, err_write = os.pipe()
        try:
            self._process = forked_engines.start(
                self._command,
                (python_command("kernel_tui.engine"), python_command("kernel_tui.engine.fork_server")),
                env,
                (out_write, err_write),
                abandoned,
            )
        except forked_engines.StartAbandoned:
            for fd in (out_read, err_read):
                os.close(fd)
            raise EngineDied(None, "", STOPPED_WHILE_STARTING) from None
        except OSError:
            for fd in (out_read, err_read):
                os.close(fd)
            raise
        finally:
            os.close(out_write)
            os.close(err_write)
        process = self._process
        # Each reader gets this engine's queue: a dying engine's end marker must not land in a newer one's.
        receive = engine_channel.receiver(out_read, process.pid if credited else None, self._stranger_wrote)
        threading.Thread(
            target=self._read_protocol, args=(out_read, process, self._messages, receive), daemon=True
        ).start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, args=(err_read, process), daemon=True)
        self._stderr_reader.start()
        # Read after the process is set: a close that read it unset was asked for before this check.
        if abandoned is not None and abandoned():
            self._end_engine()
            raise EngineDied(None, self.stderr_tail(), STOPPED_WHILE_STARTING)
        deadline = time.monotonic() + timeout
        while True:
            try:
                hello = self._next_message(max(0.0, deadline - time.monotonic()))
            except NoMessageInTime:
                self._end_engine()
                raise EngineDied(None, self.stderr_tail(), f"the engine did not start within {timeout:g} s") from None
            # A stray line is in the stderr tail, and the hello may follow it; another version's never will.
            if not isinstance(hello, ProtocolError) or isinstance(hello, protocol.VersionMismatch):
                break
        if not isinstance(hello, Hello):
            self._end_engine()
            raise EngineDied(None, self.stderr_tail(), f"the engine spoke another protocol: {hello}"[:300])
        self.hello = hello
        return hello

    def kill(self) -> None:
        """Signal the engine's whole process group to end now, without waiting: safe on a UI thread.

        A ``run`` blocked on the engine then raises EngineDied; ``close`` reaps what is left."""
        process = self._process
        if process is not None and process.poll() is None:
            proctree.end_tree(process.pid)

    def close(self) -> None:
        """End the engine and everything it started (compile workers, a scenario's own processes), in a
        bounded time whatever holds its pipes; and the spare, if one was started."""
        spare, self._spare = self._spare, None
        if spare is not None:
            spare.drop()
        self._end_engine()

    def _take_spare(self, abandoned: Callable[[], bool] | None) -> Hello | None:
        """The spare's engine as this client's, once it has said hello; None where there is no spare or it
        could not start (the caller starts one the usual way, and hears why if that fails too)."""
        spare, self._spare = self._spare, None
        if spare is None:
            return None
        # The run before is over, and with its engine (its keeper's exit, which ``_end_engine`` waits for) all that
        # it started: nothing is left that could stop the spare again, so a stop it met meanwhile is undone.
        self._end_engine()
        spare.resume()
        if not spare.ready(abandoned):
            spare.drop()
            return None
        engine = spare.client
        # Its reader threads hold these very queue and deque objects: taken over as they are.
        self._process, engine._process = engine._process, None
        self._messages, self._stderr_tail, self._strangers = engine._messages, engine._stderr_tail, engine._strangers
        self._stderr_reader = engine._stderr_reader
        with engine._adoption:
            self.hello, self.warmup_result = engine.hello, engine.warmup_result
            engine._adopter = self
        return self.hello

    def _start_spare(self) -> None:
        if self._spare is None:
            from kernel_tui.transport.spare_engine import SpareEngine

            self._spare = SpareEngine(
                EngineClient(
                    self.device,
                    stderr_sink=self._stderr_sink,
                    command=self._spare_command,
                    env=self._env,
                    arch=self._arch,
                )
            )

    def _end_engine(self) -> None:
        process, self._process = self._process, None
        self.hello = None
        if process is None:
            return
        if process.poll() is None:
            proctree.end_tree(process.pid)
        else:
            # Ended by itself: its process group may live on (a scenario's child).
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            process.wait(timeout=CLOSE_WAIT_S)
        except subprocess.TimeoutExpired:
            pass
        # Every line it wrote reaches the sink before its run is over: the reader lagged on a busy box, and a front
        # end that gives the next run a sink of its own (the GPU check's log per lesson) got the line there.
        reader, self._stderr_reader = self._stderr_reader, None
        if reader is not None and reader is not threading.current_thread():
            reader.join(STDERR_DRAIN_S)
        try:
            if process.stdin:
                process.stdin.close()
        except OSError:
            pass

    def __enter__(self) -> EngineClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._end_engine()

    def stderr_tail(self) -> str:
        return self._stderr_tail.tail()

    # -- runs --------------------------------------------------------------------------------------

    def next_run_id(self) -> int:
        """A number for the next run, this link's own: ``run_record.RunRecord`` starts with it."""
        self._next_run_id += 1
        return self._next_run_id

    def run(
        self,
        path: str,
        *,
        size: int | None = None,
        sizes: list[int] | None = None,
        sweep: bool = True,
        timeout: float | None = None,
        trace_dir: str | None = None,
        variants: dict[str, dict[str, Any]] | None = None,
        arch: Arch | None = None,
        remeasure_ceiling: bool = False,
        timed: bool = True,
        run_id: int | None = None,
        then_another: bool = True,
    ) -> Iterator[RunMessage]:
        """Yield the engine's messages for one scenario, ending with its ``Done``; ``arch``,
        ``remeasure_ceiling`` and ``timed`` are the run's settings (``RunRequest``).

        ``run_id``: the caller's number for the run (the app's ``RunLifecycle``), sent so that one number follows
        it from the key press to the engine's replies; None: numbered here.

        ``then_another``: whether a run may follow (its spare engine is started now); False for the last.

        Raises EngineDied if the engine ends or overruns ``timeout``; it is closed, and the next ``run`` starts anew.
        """
        self.start()
        assert self._process is not None and self._process.stdin is not None
        if run_id is None:
            run_id = self.next_run_id()
        request = RunRequest(
            run_id,
            os.path.abspath(path),
            size=size,
            sizes=None if sizes is None else tuple(sizes),
            sweep=sweep,
            trace_dir=None if trace_dir is None else os.path.abspath(trace_dir),
            variants=variants or None,
            arch=arch if arch is not None else self._arch,
            remeasure_ceiling=remeasure_ceiling,
            timed=timed,
        )
        try:
            self._process.stdin.write(protocol.encode(request))
            self._process.stdin.flush()
        except OSError:
            pass  # a dead engine is reported by the read below, with its exit code
        if then_another:
            self._start_spare()
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                message = self._next_message(remaining)
            except NoMessageInTime:
                tail = self.stderr_tail()
                self._end_engine()
                raise EngineDied(None, tail, f"no result within {timeout:g} s: the engine was stopped") from None
            if not isinstance(message, RunMessage) or message.run_id != run_id:
                continue  # a bad line is in the stderr tail already; a stale run's message is no news
            ended = protocol.dispatch(message, done=self._run_ended)
            yield message
            if ended:
                return

    def _run_ended(self, done: Done) -> bool:
        # The engine ends after its one run (it runs one scenario, whose changes die with it); its tree is ended
        # here too, in case the scenario's processes outlive it.
        self._end_engine()
        return True

    def _next_message(self, timeout: float | None) -> EngineMessage | ProtocolError:
        """The next message, or the error a line that was none raised; NoMessageInTime when ``timeout``
        passes first, EngineDied when the engine has ended."""
        try:
            message = self._wait_for_message(timeout)
        except queue.Empty:
            if timeout is None or self.running:
                raise NoMessageInTime from None
            # It has ended: its reader passes on what it wrote last, then its end, within its drain.
            try:
                message = self._messages.get(timeout=DRAIN_AFTER_EXIT_S + STDERR_DRAIN_S)
            except queue.Empty:
                message = None
        if message is None:
            process = self._process
            code = None
            if process is not None:
                try:
                    code = process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    code = None
            # Its last lines may still be on their way (a fixed pause lost them on a busy machine).
            if self._stderr_reader is not None:
                self._stderr_reader.join(STDERR_DRAIN_S)
            death = EngineDied.of(code, self._stderr_tail, self.hello, self.warmup_result)
            self._end_engine()
            raise death
        return message

    def _wait_for_message(self, timeout: float | None) -> Received:
        """The next message, waited for in short slices: a signal (Ctrl-C, SIGTERM) may be delivered to a
        reader thread, and a main thread asleep in one long wait would only see it when the wait ends."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise queue.Empty
            try:
                wait = SIGNAL_SLICE_S if remaining is None else min(remaining, SIGNAL_SLICE_S)
                return self._messages.get(timeout=wait)
            except queue.Empty:
                continue

    def _stranger_wrote(self, pid: int, size: int) -> None:
        """A process other than the engine (a scenario's child) wrote on the protocol channel: not read."""
        if pid not in self._strangers:
            self._strangers.add(pid)
            line = f"kernel-tui: ignored what process {pid}, not the engine, wrote on the engine's channel\n"
            self._stderr_tail.append(line)
            if self._stderr_sink is not None:
                self._stderr_sink(line)

    def _read_protocol(
        self,
        fd: int,
        process: forked_engines.EngineProcess,
        messages: queue.Queue[Received],
        receive: Callable[[], bytes | None],
    ) -> None:
        def warmup_ended(message: Warmup) -> None:
            # Not part of any run: kept here for whoever asks, whether a run is being read or not.
            with self._adoption:
                (self._adopter or self).warmup_result = message

        def on_line(line: str) -> None:
            if not line.strip():
                return
            try:
                message = protocol.decode(line)
            except ProtocolError as error:
                self._stderr_tail.append(f"[protocol] {error}\n")
                # Passed on too: a front end waiting for a hello must hear at once that none will come.
                messages.put(error)
                return
            if isinstance(message, protocol.Request):
                messages.put(ProtocolError(f"the engine sent a request: {message}"))
                return
            # Every other message is passed on as it is: one the reader has no name for yet still reaches its
            # run (a handler per type here dropped any message added to the protocol after it).
            if isinstance(message, Warmup):
                warmup_ended(message)
            else:
                messages.put(message)

        read_lines(fd, process, on_line, receive=receive)
        messages.put(None)

    def _read_stderr(self, fd: int, process: forked_engines.EngineProcess) -> None:
        def on_line(line: str) -> None:
            if self._stderr_tail.append(line):
                proctree.end_tree_later(process.pid, DYING_S, still_running=lambda: process.poll() is None)
            if self._stderr_sink is not None and not PROFILER_CHATTER.match(line):
                self._stderr_sink(line)

        # Bounded: what a scenario prints is kept for the error details and shown, not stored whole.
        read_lines(fd, process, on_line, keep=LONG_LINE_KEPT)
