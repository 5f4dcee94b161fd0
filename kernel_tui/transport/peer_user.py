"""Whether the process at the other end of a Unix socket runs as this process's user (``SO_PEERCRED``).

A fork server shared between front ends (``--listen``) forks engines that run scenarios as its own user, and
a front end hands those engines its descriptors: each end serves only its own user, whatever the socket's
file mode lets connect."""

from __future__ import annotations

import os
import socket
import struct

CREDENTIALS = struct.Struct("3i")
"""``struct ucred``: pid, uid, gid."""


def same_user(connection: socket.socket) -> bool:
    """Whether the peer of ``connection`` runs as this process's user; False where that cannot be read."""
    if not hasattr(socket, "SO_PEERCRED"):
        return False
    try:
        _pid, uid, _gid = CREDENTIALS.unpack(
            connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, CREDENTIALS.size)
        )
    except OSError:
        return False
    return bool(uid == os.getuid())
