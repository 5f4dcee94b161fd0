"""The front end's side of the engine: start it as a fresh interpreter, send runs, read messages back.

The engine is a child process in its own process group (Inductor starts compile workers), so that
cancel and quit can end all of it at once. Its stderr, where whatever a scenario prints ends up, is
read by a thread that forwards it to a sink and keeps the tail for when the engine dies.
"""

from __future__ import annotations

import collections
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from kernel_tui import protocol

STDERR_TAIL_LINES = 40
# Kineto prints these on every profile whatever its log level; they are torch's noise, not the scenario's.
PROFILER_CHATTER = re.compile(r"^(USDT|STAGE):\d{4}-\d\d-\d\d ")


@dataclass(frozen=True)
class EngineDied(Exception):
    """The engine ended while a front end was waiting on it."""

    returncode: int | None
    stderr_tail: str
    reason: str = ""

    def describe(self) -> str:
        if self.reason:
            return self.reason
        code = self.returncode
        if code is None:
            return "the engine stopped answering"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"the engine was killed by {name}"
        return f"the engine exited with code {code}"

    def __str__(self) -> str:
        return self.describe()


def engine_command(device: str) -> list[str]:
    return [sys.executable, "-m", "kernel_tui.engine", "--device", device]


class EngineClient:
    """One engine child process; ``run`` streams a scenario's messages, ``close`` ends it all."""

    def __init__(
        self,
        device: str = "auto",
        *,
        stderr_sink: Callable[[str], None] | None = None,
        command: list[str] | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.device = device
        self._stderr_sink = stderr_sink
        self._command = command or engine_command(device)
        self._env = env
        self._process: subprocess.Popen[str] | None = None
        self._messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._next_run_id = 0
        self.hello: dict[str, Any] | None = None

    # -- lifecycle -----------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self, timeout: float = 120.0) -> dict[str, Any]:
        """Start the engine and wait for its hello; returns it (device, torch version, ...)."""
        if self.running and self.hello is not None:
            return self.hello
        self.close()
        self._messages = queue.Queue()
        self._stderr_tail.clear()
        env = dict(os.environ if self._env is None else self._env)
        env.setdefault("PYTHONUNBUFFERED", "1")
        self._process = subprocess.Popen(
            self._command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
            start_new_session=True,
            env=env,
        )
        # Each reader gets this engine's queue: a dying engine's end marker must not land in a newer one's.
        threading.Thread(
            target=self._read_protocol, args=(self._process.stdout, self._messages), daemon=True
        ).start()
        threading.Thread(target=self._read_stderr, args=(self._process.stderr,), daemon=True).start()
        hello = self._next_message(timeout)
        if hello.get("type") == "timeout":
            self.close()
            raise EngineDied(None, self.stderr_tail(), f"the engine did not start within {timeout:g} s")
        if hello.get("type") != "hello" or hello.get("protocol") != protocol.PROTOCOL_VERSION:
            self.close()
            raise EngineDied(None, self.stderr_tail(), f"the engine spoke another protocol: {hello!r:.200}")
        self.hello = hello
        return hello

    def kill(self) -> None:
        """Signal the engine's whole process group to end now, without waiting: safe on a UI thread.

        A ``run`` blocked on the engine then raises EngineDied; ``close`` reaps what is left."""
        process = self._process
        if process is not None and process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def close(self) -> None:
        """End the engine's whole process group, compile workers included."""
        process, self._process = self._process, None
        self.hello = None
        if process is None:
            return
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
        for stream in (process.stdin, process.stdout, process.stderr):
            try:
                if stream:
                    stream.close()
            except OSError:
                pass

    def __enter__(self) -> EngineClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def stderr_tail(self) -> str:
        return "".join(self._stderr_tail)

    # -- runs --------------------------------------------------------------------------------------

    def run(
        self,
        path: str,
        *,
        size: int | None = None,
        sizes: list[int] | None = None,
        sweep: bool = True,
        timeout: float | None = None,
        trace_dir: str | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Yield the engine's messages for one scenario, ending with its ``done`` message.

        Raises EngineDied if the engine ends or overruns ``timeout``; the engine is then closed, and
        the next ``run`` starts a fresh one.
        """
        self.start()
        assert self._process is not None and self._process.stdin is not None
        self._next_run_id += 1
        run_id = self._next_run_id
        try:
            self._process.stdin.write(
                protocol.run_request(
                    run_id, os.path.abspath(path), size=size, sizes=sizes, sweep=sweep,
                    trace_dir=None if trace_dir is None else os.path.abspath(trace_dir),
                )
            )
            self._process.stdin.flush()
        except OSError:
            pass  # a dead engine is reported by the read below, with its exit code
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                tail = self.stderr_tail()
                self.close()
                raise EngineDied(None, tail, f"no result within {timeout:g} s: the engine was stopped")
            message = self._next_message(remaining)
            if message.get("run_id") != run_id:
                continue
            yield message
            if message["type"] == "done":
                return

    def _next_message(self, timeout: float | None) -> dict[str, Any]:
        try:
            message = self._messages.get(timeout=timeout)
        except queue.Empty:
            if timeout is not None and not self.running:
                message = None
            else:
                return {"type": "timeout"}
        if message is None:
            process = self._process
            code = None
            if process is not None:
                try:
                    code = process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    code = None
            # The stderr reader may still be draining the last lines of a dying engine.
            time.sleep(0.05)
            tail = self.stderr_tail()
            self.close()
            raise EngineDied(code, tail)
        return message

    def _read_protocol(self, stream: IO[str], messages: queue.Queue[dict[str, Any] | None]) -> None:
        try:
            for line in stream:
                if not line.strip():
                    continue
                try:
                    messages.put(protocol.decode(line))
                except protocol.ProtocolError as error:
                    self._stderr_tail.append(f"[protocol] {error}\n")
        except (OSError, ValueError):
            pass
        messages.put(None)

    def _read_stderr(self, stream: IO[str]) -> None:
        try:
            for line in stream:
                self._stderr_tail.append(line)
                if self._stderr_sink is not None and not PROFILER_CHATTER.match(line):
                    self._stderr_sink(line)
        except (OSError, ValueError):
            pass
