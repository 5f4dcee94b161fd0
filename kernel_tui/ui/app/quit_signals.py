"""SIGTERM and SIGHUP quit the app as ctrl+q does, and end the process within ``QUIT_DEADLINE_S`` whatever the app
is doing then.

A closed window, a killed tmux session or ``kill`` must give the terminal back, write the draft and end the
engine: Python's default for these signals ended the process mid-frame, the terminal left in the app's alternate
screen with mouse reporting on. So the quit runs in the app's event loop, as ctrl+q's does. But there it waits
behind whatever is queued: when a screen's queue never empties (two stale sizes relaying each other out for ever
did it, see ``screens/latest_size``), the quit never comes, and on a shared GPU box an orphaned app drew at full
CPU until someone found it. So the handler is Python's own (it runs on the main thread between two bytecodes
even when the loop never yields) and also starts a timer on a thread of its own: if the quit has not ended the
process when it fires, the timer gives the terminal its modes back and ends the process. The engine follows it
(``engine/serve/lifeline.py``), and the editor's text is on disk already (``snippets``' autosave).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import termios
import threading
from collections.abc import Callable
from typing import Any

QUIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
QUIT_DEADLINE_S = 10.0
"""Far past a quit's seconds on a busy machine (it closes the engine, which the lifeline bounds)."""
TERMINAL_BACK = b"\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1015l\x1b[?2004l\x1b[?25h\x1b[?1049l"
"""Mouse reporting and bracketed paste off, the cursor shown, out of the alternate screen: what Textual's driver
undoes when it stops."""


class QuitSignals:
    """The quit signals' handlers while the app runs; ``restore`` puts back the ones that were there before."""

    def __init__(self, quit_app: Callable[[int, str], None], driver: Callable[[], Any]) -> None:
        self._quit_app = quit_app
        self._driver = driver
        self._loop = asyncio.get_running_loop()
        self._before: dict[signal.Signals, Any] = {}
        self.deadline: threading.Timer | None = None

    def install(self) -> bool:
        """Handle the quit signals here; False where they cannot be (not the main thread: whoever runs the app
        there owns the signals)."""
        try:
            for sig in QUIT_SIGNALS:
                self._before[sig] = signal.signal(sig, self._received)
        except ValueError:
            return False
        return True

    def restore(self) -> None:
        for sig, before in self._before.items():
            signal.signal(sig, before)
        self._before.clear()

    def _received(self, signum: int, frame: object) -> None:
        sig = signal.Signals(signum)
        why = f"kernel-tui: stopped by {sig.name}"
        if self.deadline is None:
            self.deadline = self._arm(128 + sig, why)
        self._loop.call_soon_threadsafe(self._quit_app, 128 + sig, why)

    def _arm(self, code: int, why: str) -> threading.Timer:
        driver = self._driver()

        def give_up() -> None:
            terminal, saved = getattr(driver, "fileno", None), getattr(driver, "attrs_before", None)
            if isinstance(terminal, int):
                try:
                    if saved is not None:
                        termios.tcsetattr(terminal, termios.TCSANOW, saved)
                    os.write(terminal, TERMINAL_BACK)
                except (OSError, termios.error):  # the terminal is gone (SIGHUP): nothing to give back
                    pass
            said = f"{why}; its quit did not end within {QUIT_DEADLINE_S:.0f} s, so it ended without it\n"
            try:
                os.write(sys.__stderr__.fileno() if sys.__stderr__ is not None else 2, said.encode())
            except OSError:
                pass
            os._exit(code)

        timer = threading.Timer(QUIT_DEADLINE_S, give_up)
        timer.name = "kernel-tui quit deadline"
        timer.daemon = True
        timer.start()
        return timer
