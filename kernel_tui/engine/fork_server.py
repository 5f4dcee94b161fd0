"""A process that has imported torch once and forks a fresh engine from that state for each request.

Every run takes an engine no earlier run has touched (``transport.spare_engine``), and each engine used to
pay torch's imports again: about three CPU-seconds, the larger part of a small run's cost on a busy two-core
machine. Forked from here, an engine starts with torch imported and nothing run: no scenario ever runs in
this process, so each child is as fresh as an exec'd one.

Torch's modules are imported before the fork, and the engine's own request loop and measuring stages
(``serve.preloaded_code``: a checkout edited since is noticed before the next fork, which is refused, so that engine
runs the new code), and CUDA is never initialised here (a forked CUDA context is unusable). The front end
(``transport.forked_engines``) sends a request (the engine's argv, environment and folder, with its three standard
descriptors attached) and hears back the child's pid, then its exit status.
This process ends when the front end does (even while it still imports torch), and ends its engines' trees on
the way out.

Each engine is forked below a keeper of its own (``transport.keeper``, which an exec'd engine runs below too): a
child the scenario starts with ``CLONE_PARENT`` (a sibling of the engine) is the keeper's, not this server's or the
front end's, and the keeper's exit, which the front end hears as the engine's, means nothing the scenario started
is running. This server is a subreaper too, for what outlives a killed keeper.

Started with ``--listen PATH`` it serves every front end that connects to that socket (``KERNEL_TUI_FORK_SERVER_AT``:
the test suite's CLI runs share their worker's), each client's engines ending with its connection; it still
ends with the process that started it.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import sys
import threading
import traceback
from collections.abc import Iterator
from typing import Any

from kernel_tui.engine.serve.preloaded_code import Preloaded
from kernel_tui.transport import keeper, peer_user, proctree

PRELOADED = ("torch", "torch._dynamo", "torch._inductor.config", "torch.profiler")
"""What every engine imports before its first run; nothing that reads a device or starts a thread
(``tests/engine/test_fork_server.py`` checks both, for ``INDUCTOR`` too)."""
INDUCTOR = "torch._inductor.compile_fx"
"""Inductor itself, which ``torch.compile`` imports at an engine's first compile: about two CPU-seconds each
engine paid again. Imported here if it can be: one that cannot (a Triton that does not match this torch) must
fail in an engine's compile stage, eager measured, as it would without this server, not end the server."""
POLL_S = 0.25
MAX_REQUEST = 1 << 20
STALE = "kernel-tui's code changed on disk since this server imported it"


def main() -> None:
    from kernel_tui.engine.serve import crash_stacks

    # A crash here (in torch's imports) leaves its frames on the front end's stderr, as an engine's does; each
    # engine forked here inherits both handlers and points faulthandler at its own stderr.
    crash_stacks.enable()
    ready = _ready()  # the environment as given, before this process's own prelude below adds to it
    listener: socket.socket | None = None
    if sys.argv[1] == "--listen":
        # Bound before torch is imported: a client that finds the path connects at once and waits for "ready".
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        listener.bind(sys.argv[2])
        listener.listen()
        clients = []
    else:
        clients = [_Client(socket.socket(fileno=int(sys.argv[1])))]
    keeper.set_subreaper()
    with _ends_with_parent(os.getppid() if listener is not None else _front_end()):
        preloaded = prelude()
    crash_stacks.with_torch()
    for client in clients:
        _send(client.control, ready)
    serve(clients, listener, ready, preloaded)
    # Nothing here needs finalising, and tearing torch's modules down takes seconds the front end waits on.
    os._exit(0)


@contextlib.contextmanager
def _ends_with_parent(parent: int) -> Iterator[None]:
    """While torch is imported (15-20 s on a busy machine) nothing reads the front end's socket: a front end
    killed meanwhile left this server importing on. A thread watches the parent until then; none is left
    running after, since this process forks."""
    done = threading.Event()
    if os.getppid() != parent:
        os._exit(0)

    def watch() -> None:
        while not done.wait(POLL_S):
            if os.getppid() != parent:
                os._exit(0)

    watcher = threading.Thread(target=watch, name="kernel-tui fork server lifeline", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()


def _front_end() -> int:
    """The front end that started this server, as it said in the environment: it may be gone already, and this
    process then a child of init or of a subreaper."""
    said = os.environ.get(proctree.PARENT_ENV, "")
    return int(said) if said.isdigit() else os.getppid()


def prelude() -> Preloaded:
    """What every engine forked here starts with: torch imported as the engine imports it (``engine.__main__``),
    Inductor too, the hashes its cache keys need, and the engine's own code (as stamped on disk: ``Preloaded``)."""
    os.environ.setdefault("KINETO_LOG_LEVEL", "5")
    import logging
    import warnings

    logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)
    # Python 3.12 warns at each fork of a process with a native thread (one of torch's, idle): the child
    # runs only the forking thread, as DataLoader workers do, and starts its own.
    warnings.filterwarnings("ignore", category=DeprecationWarning, message=".*fork.*")
    import importlib

    for name in PRELOADED:
        importlib.import_module(name)
    with contextlib.suppress(Exception):
        importlib.import_module(INDUCTOR)
        _hash_installed_sources()
    return Preloaded.imported()


def _hash_installed_sources() -> None:
    """Inductor's cache keys hash torch's and Triton's installed files, once per process and then kept: about a
    CPU-second with Triton, which every engine paid at its first compile. Hashed here, every engine inherits
    them. Both are private to Inductor; a torch without one only leaves its engines to hash it themselves."""
    from torch._inductor import codecache

    for key in ("torch_key", "triton_key"):
        with contextlib.suppress(Exception):
            getattr(codecache, key)()


class _Client:
    """One front end's connection: the engines forked for it, and whether it takes no more (retired)."""

    def __init__(self, control: socket.socket) -> None:
        self.control = control
        self.engines: dict[int, int] = {}
        """Each engine's pid and the tag of the request that forked it, which its reply and its exit carry."""
        self.retired = False

    @property
    def done(self) -> bool:
        return self.retired and not self.engines


def _ready() -> dict[str, Any]:
    """What a client checks before it forks here (``transport.boot.server_identity``): the interpreter, the
    checkout and the import environment that every engine forked here inherits."""
    from kernel_tui.transport.boot import server_identity

    executable, package, environment = server_identity(dict(os.environ))
    return {"ready": os.getpid(), "executable": executable, "package": package, "environment": environment}


def serve(clients: list[_Client], listener: socket.socket | None, ready: dict[str, Any], preloaded: Preloaded) -> None:
    """Fork engines on request until the front end that started this process ends. Without a listener the
    one client is that front end, and this ends with its connection (or, retired, after its engines); with
    one (``--listen``, a server that many front ends share) each client's engines end with its connection."""
    front_end = os.getppid()
    try:
        while os.getppid() == front_end and (listener is not None or clients):
            sockets = [client.control for client in clients] + ([listener] if listener is not None else [])
            readable, _, _ = select.select(sockets, [], [], POLL_S)
            _report_exits(clients)
            for waiting in readable:
                if waiting is listener:
                    try:
                        connection = listener.accept()[0]
                    except OSError:
                        continue
                    if not peer_user.same_user(connection):
                        # Whoever connects gets engines that run scenarios as this server's user: another local
                        # user (a socket a umask of 000 left open to all) is turned away unanswered.
                        connection.close()
                        continue
                    accepted = _Client(connection)
                    clients.append(accepted)
                    _send(accepted.control, ready)
                    continue
                client = next(client for client in clients if client.control is waiting)
                if not _take_request(client, sockets, preloaded):
                    clients.remove(client)
                    _end(client)
            for client in [client for client in clients if client.done]:
                clients.remove(client)
                client.control.close()
    except OSError:
        pass
    finally:
        for client in clients:
            _end(client)
        proctree.kill(proctree.descendants(os.getpid()))  # what outlived a killed keeper


def _take_request(client: _Client, sockets: list[socket.socket], preloaded: Preloaded) -> bool:
    """Handle one request of ``client``; False once its front end has gone. ``sockets``: every socket of this
    server, which the engine must not hold (a front end would wait on a listener nobody accepts on). A request
    after kernel-tui's preloaded code changed on disk is refused as ``stale``: its engine would run the old code."""
    try:
        data, fds, _flags, _address = socket.recv_fds(client.control, MAX_REQUEST, 3)
    except OSError:
        return False
    if not data:
        return False
    try:
        request = json.loads(data)
        if request.get("retire"):
            client.retired = True  # replaced by another server: its engines run on, and it ends after them
            return True
        if not preloaded.current():
            _send(client.control, {"failed": STALE, "stale": True, "tag": request.get("tag", 0)})
            return True
        try:
            kept, engine = _fork_engine(request, fds, sockets)
        except Exception as exc:  # noqa: BLE001 - a refused request: the front end starts that engine itself
            _send(client.control, {"failed": f"{type(exc).__name__}: {exc}", "tag": request.get("tag", 0)})
        else:
            client.engines[kept] = request.get("tag", 0)
            _send(client.control, {"forked": engine, "tag": client.engines[kept]})
    finally:
        for fd in fds:
            os.close(fd)
    return True


def _end(client: _Client) -> None:
    for pid in client.engines:
        proctree.end_tree(pid)
    client.control.close()


def _report_exits(clients: list[_Client]) -> None:
    """Reap every child: keepers, whose exit (their engine's) goes to their client, and what a killed keeper left
    to this subreaper, which is ended then."""
    keeper_ended = False
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
        for client in clients:
            if pid in client.engines:
                keeper_ended = True
                tag = client.engines.pop(pid)
                _send(client.control, {"exit": pid, "tag": tag, "code": os.waitstatus_to_exitcode(status)})
    if keeper_ended:
        keepers = {pid for client in clients for pid in client.engines}
        for stray in proctree.children(os.getpid()):
            if stray not in keepers:
                proctree.end_tree(stray)


def _cuda_unusable_in_this_fork() -> bool:
    """Whether torch marks this forked child as unable to use CUDA ("Cannot re-initialize CUDA in forked
    subprocess"): the server touched the CUDA driver before it forked. The first run on a GPU (an H200, torch
    2.11) had every engine fail so, though the server had not initialized CUDA (``torch.cuda.is_initialized()``
    was False after each of its imports): the child cannot be told apart before it forks, only after."""
    torch = sys.modules.get("torch")
    return torch is not None and bool(torch.cuda._is_in_bad_fork())


def _fork_engine(request: dict[str, Any], fds: list[int], sockets: list[socket.socket]) -> tuple[int, int]:
    """Fork the engine ``request`` asks for below a keeper of its own; the keeper's pid and the engine's."""
    argv, env, cwd = list(request["argv"]), dict(request["env"]), str(request["cwd"])
    if len(fds) != 3:
        raise ValueError(f"{len(fds)} descriptors, not stdin, stdout and stderr")
    told, tell = os.pipe()
    server = os.getpid()
    kept = os.fork()
    if kept:
        os.close(tell)
        with os.fdopen(told, "rb") as reply:
            engine = reply.read()
        if not engine.isdigit():
            raise OSError("the engine's keeper ended before it forked the engine")
        return kept, int(engine)
    try:
        os.close(told)
        for each in sockets:
            each.close()
        keeper.set_subreaper()
        engine_pid = os.fork()
        if engine_pid == 0:
            os.close(tell)
            _become_engine(argv, env, cwd, fds)
        os.write(tell, str(engine_pid).encode())
        os.close(tell)
        for fd in fds:
            os.close(fd)
        keeper.keep(engine_pid, server)
    finally:
        os._exit(1)


def _become_engine(argv: list[str], env: dict[str, str], cwd: str, fds: list[int]) -> None:
    code = 1
    try:
        os.setsid()  # a process group of its own, as start_new_session gives an exec'd engine
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        keeper.engine_environment(os.getppid())
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for each in (signal.SIGHUP, signal.SIGTERM):
            signal.signal(each, signal.SIG_DFL)
        sys.argv = argv
        if _cuda_unusable_in_this_fork():
            # Become the engine an exec would have started: the same pid and descriptors, a fresh torch.
            from kernel_tui.transport.boot import python_command

            command = python_command("kernel_tui.engine", *argv[1:])
            os.execve(command[0], command, dict(os.environ))
        from kernel_tui.engine.__main__ import main as engine_main

        engine_main()
        code = 0
    except SystemExit as end:
        code = end.code if isinstance(end.code, int) else (0 if end.code is None else 1)
    except BaseException:  # noqa: BLE001 - reported on the engine's stderr, as an exec'd engine's would be
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)


def _send(control: socket.socket, message: dict[str, Any]) -> None:
    try:
        control.send(json.dumps(message).encode())
    except OSError:
        pass  # that front end has gone: its connection reads as ended next, and its engines end then


if __name__ == "__main__":
    main()
