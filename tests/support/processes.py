"""What is running and listening: /proc readers shared by the tests that check clean-up."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from kernel_tui.transport import forked_engines
from kernel_tui.transport.boot import python_command
from kernel_tui.transport.proctree import is_running, stat_fields
from support.pace import overdue

__all__ = ["is_running"]


def wait_for(predicate: Callable[[], bool], timeout: float, step: float = 0.05) -> bool:
    """Whether ``predicate()`` came true within ``timeout`` seconds, scaled by how busy the machine is."""
    started = time.monotonic()
    while not overdue(started, timeout):
        if predicate():
            return True
        time.sleep(step)
    return predicate()


def processes_in_group(pgid: int) -> list[int]:
    """Live (non-zombie) processes whose process group is ``pgid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = stat_fields(int(entry.name))
            if fields is not None and fields[0] != "Z" and int(fields[2]) == pgid:
                found.append(int(entry.name))
    return found


def listening_sockets(pid: int) -> list[str]:
    """TCP sockets in LISTEN state, and bound UDP sockets, held open by process ``pid``."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = fd.readlink().as_posix()
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for table in ("tcp", "tcp6", "udp", "udp6"):
        for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            listening = fields[3] == "0A" if table.startswith("tcp") else True
            if fields[9] in inodes and listening:
                found.append(f"{table} {fields[1]}")
    return found


@contextmanager
def listening_fork_server() -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """A fork server listening on a socket of its own (``forked_engines.serve_shared``), and the socket's path,
    for the environment of this process as the client gives it to every engine; ended and removed on exit."""
    folder = tempfile.mkdtemp(prefix="kernel-tui-tests-")  # short: a socket's path is at most 107 bytes
    path = os.path.join(folder, "fork-server")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}  # as the client sets it for every engine
    server = forked_engines.serve_shared(path, python_command("kernel_tui.engine.fork_server"), env)
    try:
        # Listening once its socket is bound (before it imports torch): a front end started sooner finds no server
        # at the path and starts one of its own, as it should (a fresh clone's run met that, 4 December).
        started = time.monotonic()
        while not os.path.exists(path):
            assert server.poll() is None, f"the shared fork server ended with {server.returncode} before listening"
            assert not overdue(started, 30), "the shared fork server did not bind its socket within 30 s"
            time.sleep(0.02)
        yield server, path
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(folder, ignore_errors=True)
