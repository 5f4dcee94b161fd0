"""A real terminal for the tests that run the app as a user does: a pty whose output a thread keeps reading
(else the app blocks on a full terminal buffer), collected for the test to look at."""

from __future__ import annotations

import os
import pty
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
