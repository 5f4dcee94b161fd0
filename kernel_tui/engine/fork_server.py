"""A process that has imported torch once and forks a fresh engine from that state for each request.

Every run takes an engine no earlier run has touched (``transport.spare_engine``), and each engine used to
pay torch's imports again: about three CPU-seconds, the larger part of a small run's cost on a busy two-core
machine. Forked from here, an engine starts with torch imported and nothing run: no scenario ever runs in
this process, so each child is as fresh as an exec'd one.

Only torch's own modules are imported before the fork, never kernel-tui's engine (a checkout edited while the
app runs gives the next engine the new code), and CUDA is never initialised here (a forked CUDA context is
unusable). The front end (``transport.forked_engines``) sends a request (the engine's argv, environment and
folder, with its three standard descriptors attached) and hears back the child's pid, then its exit status.
This process ends when the front end does, and ends its engines' trees on the way out.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import sys
import traceback
from typing import Any

from kernel_tui.transport import proctree

PRELOADED = ("torch", "torch._dynamo", "torch._inductor.config", "torch.profiler")
"""What every engine imports before its first run; nothing that reads a device or starts a thread."""
POLL_S = 0.25
MAX_REQUEST = 1 << 20


def main() -> None:
    control = socket.socket(fileno=int(sys.argv[1]))
    # The engine's own prelude, so that torch is imported here as it would be there (engine.__main__).
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
    _send(control, {"ready": os.getpid()})
    serve(control)
    # Nothing here needs finalising, and tearing torch's modules down takes seconds the front end waits on.
    os._exit(0)


def serve(control: socket.socket) -> None:
    front_end = os.getppid()
    engines: set[int] = set()
    retired = False
    try:
        while os.getppid() == front_end and not (retired and not engines):
            readable, _, _ = select.select([control], [], [], POLL_S)
            _report_exits(control, engines)
            if not readable:
                continue
            data, fds, _flags, _address = socket.recv_fds(control, MAX_REQUEST, 3)
            if not data:
                break
            request = json.loads(data)
            if request.get("retire"):
                retired = True  # replaced by another server: its engines run on, and it ends after them
                continue
            try:
                pid = _fork_engine(request, fds, control)
            except Exception as exc:  # noqa: BLE001 - a refused request: the front end starts that engine itself
                _send(control, {"failed": f"{type(exc).__name__}: {exc}"})
            else:
                engines.add(pid)
                _send(control, {"forked": pid})
            finally:
                for fd in fds:
                    os.close(fd)
    except OSError:
        pass
    finally:
        for pid in engines:
            proctree.end_tree(pid)


def _report_exits(control: socket.socket, engines: set[int]) -> None:
    while engines:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        engines.discard(pid)
        _send(control, {"exit": pid, "code": os.waitstatus_to_exitcode(status)})


def _fork_engine(request: dict[str, Any], fds: list[int], control: socket.socket) -> int:
    argv, env, cwd = list(request["argv"]), dict(request["env"]), str(request["cwd"])
    if len(fds) != 3:
        raise ValueError(f"{len(fds)} descriptors, not stdin, stdout and stderr")
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:
        os.setsid()  # a process group of its own, as start_new_session gives an exec'd engine
        control.close()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        os.environ[proctree.PARENT_ENV] = str(os.getppid())
        signal.signal(signal.SIGINT, signal.default_int_handler)
        sys.argv = argv
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
    control.send(json.dumps(message).encode())


if __name__ == "__main__":
    main()
