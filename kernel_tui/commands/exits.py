"""How a command ends: its exit status, and the signals that end a run the way Ctrl-C does.

Shared by ``cli`` and the modules it dispatches to (``ray_fanout``, ``view_text``), which import them from here
rather than from ``cli``, so that no command module imports the one that imports it.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class Stopped(BaseException):
    """SIGTERM or SIGHUP reached ``kernel-tui run`` (or gpu-check): unwind, so that its engine is ended on the way
    out; its text is the signal's name."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@contextlib.contextmanager
def signals_end_the_run() -> Iterator[None]:
    """SIGTERM and SIGHUP (``timeout``, a closed terminal, a killed tmux session) unwind like Ctrl-C does."""

    def stop(signum: int, frame: object) -> None:
        raise Stopped(signum)

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
