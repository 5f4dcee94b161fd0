"""Engines forked from a fork server that has torch imported (``engine.fork_server``), where that gives the
same engine an exec would: each start then costs a fork, not torch's imports again.

An engine is forked only when its command is the engine's own boot and the environment variables that torch
and Python read at import (``boot.IMPORT_ENV_PREFIXES``) are those the server imported under; otherwise, or when
the server cannot start or refuses, the caller execs it as before (``launch`` returns None).
KERNEL_TUI_FORK_SERVER=0 turns forking off. KERNEL_TUI_FORK_SERVER_AT=PATH names a server that many front
ends share (``serve_shared``): a front end forks there when the server's interpreter, checkout and import
environment are its own, and starts its own server otherwise.

A forked engine is not this process's child: its fork server reaps it and reports its exit status, which
``ForkedEngine`` hands on through the part of ``subprocess.Popen`` the client uses. An exec'd engine is not this
process's child either: it is exec'd below a keeper (``transport.keeper``, as a forked one is forked below one),
whose exit is the engine's (``KeptEngine``).
"""

from __future__ import annotations

import atexit
import io
import itertools
import json
import os
import queue
import select
import socket
import subprocess
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import IO, Any

from kernel_tui.transport import keeper, peer_user, proctree
from kernel_tui.transport.boot import import_environment, server_identity

START_TIMEOUT_S = 180.0
REPLY_TIMEOUT_S = 30.0
READY_POLL_S = 0.1
CLOSE_WAIT_S = 1.0
MAX_SERVERS = 2
"""Fork servers kept at once (each holds torch imported): a third environment replaces the oldest."""


SHARED_ENV = "KERNEL_TUI_FORK_SERVER_AT"


def _identity_of(ready: dict[str, Any]) -> tuple[str, str, tuple[tuple[str, str], ...]]:
    environment = tuple((str(key), str(value)) for key, value in ready.get("environment", ()))
    return str(ready.get("executable")), str(ready.get("package")), environment


class ForkedEngine:
    """The part of ``subprocess.Popen`` the engine client uses, for an engine a fork server started."""

    def __init__(self, pid: int, stdin: IO[str], server: ForkServer) -> None:
        self.pid = pid
        self.stdin: IO[str] | None = stdin
        self.returncode: int | None = None
        self._ended = threading.Event()
        self._server = server

    def _exited(self, code: int) -> None:
        self.returncode = code
        self._ended.set()

    def poll(self) -> int | None:
        if self.returncode is None and not self._server.alive and not proctree.is_running(self.pid):
            self._exited(-9)  # its server died first: the exit status died with it
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if not self._ended.wait(timeout if self._server.alive else min(timeout or 0.1, 0.1)):
            if self.poll() is None:
                raise subprocess.TimeoutExpired(str(self.pid), timeout or 0)
        assert self.returncode is not None
        return self.returncode


class KeptEngine:
    """The part of ``subprocess.Popen`` the engine client uses, for an engine exec'd below a keeper this process
    started: the engine's pid (its writes are the ones the protocol channel takes, its group the one a close ends),
    the keeper's exit status, which is the engine's once all the scenario started has ended too."""

    def __init__(self, pid: int, kept: subprocess.Popen[str]) -> None:
        self.pid = pid
        self.stdin: IO[str] | None = kept.stdin
        self._keeper = kept

    @property
    def returncode(self) -> int | None:
        return self._keeper.returncode

    def poll(self) -> int | None:
        return self._keeper.poll()

    def wait(self, timeout: float | None = None) -> int:
        return self._keeper.wait(timeout)


EngineProcess = subprocess.Popen[str] | ForkedEngine | KeptEngine


class StartAbandoned(OSError):
    """Whoever wanted the engine stopped wanting it while its fork server was still importing torch."""


class ForkServer:
    """One fork server process and the control socket to it; ``fork`` starts an engine once it is ``ready``."""

    def __init__(self, control: socket.socket, process: subprocess.Popen[bytes] | None, identity: Any) -> None:
        self._control = control
        self._process = process
        """None for a shared server: another process started it and ends it."""
        self._identity = identity
        """What the server must say it is in its ready message (``server_identity``); None: any."""
        self.mismatched = False
        """The server said it is another interpreter, checkout or import environment: fork nothing there."""
        self.stale = False
        """The server refused a fork because kernel-tui's code it imported has changed on disk since: replaced."""
        self.started_at = time.monotonic()
        self._replies: queue.Queue[dict[str, Any]] = queue.Queue()
        # Keyed by the request's tag, not the engine's pid: pids come round again (32,768 of them, and every
        # compile spends a few), and the exit of an engine whose reply came too late must not end a newer one.
        self._engines: dict[int, ForkedEngine] = {}
        self._early_exits: dict[int, int] = {}
        self._tags = itertools.count(1)
        self._lock = threading.Lock()
        self._request_lock = threading.Lock()
        self._ready = threading.Event()
        self.alive = True
        threading.Thread(target=self._read, name="kernel-tui fork server", daemon=True).start()

    @classmethod
    def spawn(cls, boot: list[str], env: dict[str, str]) -> ForkServer:
        """A server of this front end's own, which ends when this process does."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            process = subprocess.Popen(
                [*boot, str(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                env=env,
            )
        except OSError:
            ours.close()
            raise
        finally:
            theirs.close()
        return cls(ours, process, None)

    @classmethod
    def attach(cls, path: str, env: dict[str, str]) -> ForkServer:
        """The shared server listening at ``path``; raises OSError if nothing listens there."""
        control = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            control.connect(path)
            if not peer_user.same_user(control):
                # Its engines would be handed this front end's descriptors and speak for its runs.
                raise PermissionError(f"the fork server at {path} runs as another user")
        except OSError:
            control.close()
            raise
        return cls(control, None, server_identity(env))

    def wait_ready(self, abandoned: Callable[[], bool] | None) -> bool:
        """Whether the server has imported torch and takes requests; raises StartAbandoned if ``abandoned()``
        says so meanwhile. False if it ended or overran START_TIMEOUT_S (then it is closed)."""
        while not self._ready.wait(READY_POLL_S):
            if not self.alive:
                return False
            if abandoned is not None and abandoned():
                raise StartAbandoned("the engine was stopped while its fork server started")
            if time.monotonic() - self.started_at > START_TIMEOUT_S:
                self.close()
                return False
        return self.alive

    def _reply(self, tag: int, timeout: float) -> dict[str, Any]:
        """The server's reply to request ``tag``: one to an earlier request, which came after its wait ran out,
        is passed over. {} if none came in ``timeout`` or the server is gone."""
        deadline = time.monotonic() + timeout
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                reply = self._replies.get(timeout=remaining)
            except queue.Empty:
                return {}
            if not reply or reply.get("tag") == tag:
                return reply
        return {}

    def _read(self) -> None:
        try:
            while data := self._control.recv(65536):
                message = json.loads(data)
                if "exit" in message:
                    with self._lock:
                        engine = self._engines.pop(message["tag"], None)
                        if engine is None:
                            self._early_exits[message["tag"]] = message["code"]
                    if engine is not None:
                        engine._exited(message["code"])
                elif "ready" in message:
                    if self._identity is not None and _identity_of(message) != self._identity:
                        self.mismatched = True
                        break
                    self._ready.set()
                else:
                    self._replies.put(message)
        except (OSError, ValueError):
            pass
        self.alive = False
        self._replies.put({})

    def fork(self, argv: list[str], env: dict[str, str], stdout: int, stderr: int) -> ForkedEngine | None:
        """An engine running ``argv`` under ``env`` in this process's folder, writing on ``stdout`` and
        ``stderr``, its stdin a new ``request_channel``; None if the server refused or is gone."""
        if not self.alive:
            return None
        stdin_read, stdin_write = request_channel()
        tag = next(self._tags)
        request = json.dumps({"argv": argv, "env": env, "cwd": os.getcwd(), "tag": tag}).encode()
        try:
            with self._request_lock:
                socket.send_fds(self._control, [request], [stdin_read, stdout, stderr])
                reply = self._reply(tag, REPLY_TIMEOUT_S)
        except OSError:
            reply = {}
        finally:
            os.close(stdin_read)
        if "forked" not in reply:
            self.stale = self.stale or bool(reply.get("stale"))
            os.close(stdin_write)
            return None
        pid = int(reply["forked"])
        engine = ForkedEngine(pid, io.TextIOWrapper(io.FileIO(stdin_write, "w"), line_buffering=True), self)
        with self._lock:
            code = self._early_exits.pop(tag, None)
            if code is None:
                self._engines[tag] = engine
        if code is not None:
            engine._exited(code)
        return engine

    def retire(self) -> None:
        """Take no more requests and end once the engines forked so far have: they are in use."""
        try:
            self._control.send(json.dumps({"retire": True}).encode())
        except OSError:
            pass

    def close(self) -> None:
        self.alive = False
        try:
            # A close alone would wait for the reader thread's recv to return: the server would not see the end.
            self._control.shutdown(socket.SHUT_RDWR)
            self._control.close()
        except OSError:
            pass
        if self._process is None:
            return
        try:
            self._process.wait(timeout=CLOSE_WAIT_S)
        except subprocess.TimeoutExpired:
            self._process.kill()  # still importing torch: nothing of value is lost
            self._process.wait()


_servers: OrderedDict[tuple[tuple[str, str], ...], ForkServer] = OrderedDict()
_servers_lock = threading.Lock()
_closed = threading.Event()
_refused: set[tuple[tuple[str, str], ...]] = set()
"""Environments whose fork server did not start: their engines are exec'd, without trying again each time."""
_refused_shared: set[tuple[tuple[str, str], ...]] = set()
"""Environments the shared server (``SHARED_ENV``) cannot serve: their front end starts a server of its own."""


def serve_shared(path: str, server_boot: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    """Start a fork server listening at ``path`` for every front end whose environment names it
    (``SHARED_ENV``); it ends when the calling process does, or when it is terminated."""
    return subprocess.Popen(
        [*server_boot, "--listen", path],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )


def start(
    command: list[str],
    boots: tuple[list[str], list[str]],
    env: dict[str, str],
    outputs: tuple[int, int],
    abandoned: Callable[[], bool] | None = None,
) -> EngineProcess:
    """The engine ``command`` starts, writing on ``outputs`` (stdout, stderr): forked where ``launch`` can,
    else exec'd in a session of its own, below a keeper where there is ``fork`` (``keeper``).
    ``boots``: the engine's and the fork server's boot commands."""
    forked = launch(command, *boots, env, *outputs, abandoned)
    if forked is not None:
        return forked
    told, tell = os.pipe() if keeper.available() else (-1, -1)
    theirs, ours = request_channel()
    try:
        process = subprocess.Popen(
            command if tell < 0 else keeper.command(command, tell),
            stdin=theirs,
            stdout=outputs[0],
            stderr=outputs[1],
            text=True,
            start_new_session=True,
            env=env,
            pass_fds=() if tell < 0 else (tell,),
        )
    except OSError:
        os.close(ours)
        if told >= 0:
            os.close(told)
        raise
    finally:
        os.close(theirs)
        if tell >= 0:
            os.close(tell)
    process.stdin = io.TextIOWrapper(io.FileIO(ours, "w"), line_buffering=True)
    return process if told < 0 else _kept(process, told)


def _kept(process: subprocess.Popen[str], told: int) -> KeptEngine:
    """The engine below the keeper ``process``, once the keeper has said its pid on ``told``."""
    with os.fdopen(told, "rb") as reply:
        ready, _, _ = select.select([reply], [], [], REPLY_TIMEOUT_S)
        engine = reply.read() if ready else b""
    if not engine.isdigit():
        process.kill()
        process.wait()
        if process.stdin is not None:
            process.stdin.close()
        raise OSError("the engine's keeper ended before it started the engine")
    return KeptEngine(int(engine), process)


def request_channel() -> tuple[int, int]:
    """The engine's end and the front end's of a new request stream: a socket pair, not a pipe. Another process of
    this user (a scenario in the engine before) can open a pipe through ``/proc/PID/fd/0`` and write a request
    the engine would take as the front end's; a socket cannot be opened so."""
    engines, front_ends = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    return engines.detach(), front_ends.detach()


def launch(
    command: list[str],
    engine_boot: list[str],
    server_boot: list[str],
    env: dict[str, str],
    stdout: int,
    stderr: int,
    abandoned: Callable[[], bool] | None = None,
    replacing: bool = False,
) -> ForkedEngine | None:
    """``command`` forked from a fork server if it is ``engine_boot`` plus arguments; None: exec it yourself.
    Raises StartAbandoned if ``abandoned()`` says so while the server starts. A server whose kernel-tui code is
    out of date (an edited checkout) is retired and this engine forked from a new one (``replacing``: already so)."""
    if os.environ.get("KERNEL_TUI_FORK_SERVER", "1") == "0" or not sys.platform.startswith("linux"):
        return None
    if command[: len(engine_boot)] != engine_boot or not hasattr(socket, "send_fds"):
        return None
    server = _server_for(server_boot, env)
    if server is None:
        return None
    if not server.wait_ready(abandoned):
        if _closed.is_set():
            raise StartAbandoned("the front end is ending")
        with _servers_lock:
            if server.mismatched:
                _refused_shared.add(import_environment(env))  # another checkout's or torch's: start our own
                _servers.pop(import_environment(env), None)
            else:
                _refused.add(import_environment(env))
        if server.mismatched:
            server.close()
            return launch(command, engine_boot, server_boot, env, stdout, stderr, abandoned)
        return None
    engine = server.fork(["kernel_tui.engine", *command[len(engine_boot) :]], env, stdout, stderr)
    if engine is None and server.stale:
        _replace(server, env)
        if not replacing:  # a checkout still being edited as the new server imports it: this one is exec'd
            return launch(command, engine_boot, server_boot, env, stdout, stderr, abandoned, replacing=True)
    return engine


def _replace(server: ForkServer, env: dict[str, str]) -> None:
    """Fork nothing more from ``server``, whose engines would run old code: its engines run on, and the next start
    in ``env`` starts a server of this front end's own (a shared one is another's to end)."""
    key = import_environment(env)
    with _servers_lock:
        if _servers.get(key) is server:
            del _servers[key]
        if server._process is None:
            _refused_shared.add(key)
    server.retire()


def _server_for(boot: list[str], env: dict[str, str]) -> ForkServer | None:
    """The server for ``env``'s import environment, started (not waited for) if there is none."""
    key = import_environment(env)
    with _servers_lock:
        if key in _refused:
            return None
        server = _servers.get(key)
        if server is not None and server.alive:
            _servers.move_to_end(key)
            return server
        shared = env.get(SHARED_ENV)
        server = None
        if shared and key not in _refused_shared:
            try:
                server = ForkServer.attach(shared, env)
            except OSError:
                _refused_shared.add(key)  # gone, or never started: this front end starts its own
        if server is None:
            try:
                server = ForkServer.spawn(boot, env)
            except OSError:
                _refused.add(key)
                return None
        _servers[key] = server
        while len(_servers) > MAX_SERVERS:
            _servers.popitem(last=False)[1].retire()
        return server


@atexit.register
def _close_servers() -> None:
    _closed.set()
    with _servers_lock:
        while _servers:
            _servers.popitem()[1].close()
