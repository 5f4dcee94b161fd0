"""A real terminal for the tests that run the app as a user does: a pty whose output a thread keeps reading
(else the app blocks on a full terminal buffer), collected for the test to look at."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import termios
import threading
from collections.abc import Callable


def open_terminal(on_read: Callable[[bytearray], None] | None = None) -> tuple[int, int, bytearray]:
    """A new pty (the controller's end, the terminal's end) and the bytes the app writes to it, read as they come
    until the controller is closed; ``on_read`` sees those bytes after each read (a benchmark's first-frame clock)."""
    controller, terminal = pty.openpty()
    written = bytearray()

    def read_terminal() -> None:
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:
                return
            if not chunk:
                return
            written.extend(chunk)
            if on_read is not None:
                on_read(written)

    threading.Thread(target=read_terminal, daemon=True).start()
    return controller, terminal, written


def set_terminal_size(terminal: int, columns: int, rows: int) -> None:
    """The size the app reads from its terminal (a resize, once it is sent SIGWINCH)."""
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))


def start_in_terminal(
    command: list[str], terminal: int, size: tuple[int, int], env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """``command`` on ``terminal`` at ``size`` (columns, rows), as a user starts it: the terminal on its standard
    streams, an xterm's TERM, and a session of its own (so a signal to the test's group does not reach it)."""
    set_terminal_size(terminal, *size)
    return subprocess.Popen(
        command,
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        env=env if env is not None else {**os.environ, "TERM": "xterm-256color"},
        start_new_session=True,
    )
