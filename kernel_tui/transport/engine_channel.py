"""The protocol channel: only the engine's own bytes are read as messages.

The engine keeps the channel on a private descriptor and points it at /dev/null in every process it forks
(``engine.serve.lifeline.keep_from_children``). A fork that bypasses Python (``ctypes``' ``fork``) still copies
the descriptor, so on Linux the channel is a Unix socket on which the kernel stamps every write with its
writer's process id (``SO_PASSCRED``): the front end reads the engine's bytes and drops anyone else's,
whatever they say. Elsewhere it is a pipe, guarded by the engine's side alone.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable

from kernel_tui.transport.peer_user import CREDENTIALS

READ_CHUNK = 65536


def open_channel() -> tuple[int, int, bool]:
    """The front end's end, the engine's end, and whether each read says who wrote it."""
    if hasattr(socket, "SO_PASSCRED") and hasattr(socket, "SCM_CREDENTIALS"):
        try:
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            ours.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        except OSError:
            pass
        else:
            return ours.detach(), theirs.detach(), True
    read_end, write_end = os.pipe()
    return read_end, write_end, False


def receiver(fd: int, writer: int | None, on_stranger: Callable[[int, int], None]) -> Callable[[], bytes | None]:
    """A function that reads the next chunk of ``fd``: b"" at its end, None when what came was not from
    ``writer`` (the engine's pid; None: a pipe, whoever wrote). ``on_stranger(pid, size)`` hears of each
    dropped chunk."""
    if writer is None:
        return lambda: os.read(fd, READ_CHUNK)
    channel = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, fileno=os.dup(fd))

    def receive() -> bytes | None:
        # A stream socket with SO_PASSCRED never joins two writers' bytes in one read (Linux).
        data, extra, _flags, _address = channel.recvmsg(READ_CHUNK, socket.CMSG_SPACE(CREDENTIALS.size))
        if not data:
            channel.close()
            return b""
        for level, kind, payload in extra:
            if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS and len(payload) >= CREDENTIALS.size:
                pid = CREDENTIALS.unpack(payload[: CREDENTIALS.size])[0]
                if pid != writer:
                    on_stranger(pid, len(data))
                    return None
        return data

    return receive
