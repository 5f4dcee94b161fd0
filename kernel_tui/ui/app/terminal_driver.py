"""Textual's Linux driver, made to survive its terminal going away (a closed window, a killed tmux session).

The driver writes through a thread with a queue of 30 frames. With the terminal gone, a write fails with EIO and
that thread dies; the next frames fill the queue, and the quit that SIGHUP starts then blocks for ever in the
driver's close, which puts one more item on the full queue (the view hung so after its terminal was closed
while a large table was painting). Here a failed write means the terminal is gone: that write and every later
one are dropped, so the thread lives on, the queue drains and the quit finishes.
"""

from __future__ import annotations

from typing import IO, Any

from textual.drivers.linux_driver import LinuxDriver


class _TerminalOutput:
    """The terminal's file, whose writes after the first failure are dropped."""

    def __init__(self, file: IO[str]) -> None:
        self._file = file
        self.gone = False

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                return self._file.write(text)
            except OSError:  # EIO: the terminal was closed
                self.gone = True
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._file.flush()
            except OSError:
                self.gone = True

    def __getattr__(self, name: str) -> Any:
        return getattr(self._file, name)


class TerminalDriver(LinuxDriver):
    """``LinuxDriver`` writing through ``_TerminalOutput``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # LinuxDriver types _file as an optional TextIO; it is the terminal by now, and the stand-in forwards the rest.
        self._file = _TerminalOutput(self._file)  # type: ignore[assignment,arg-type]  # a stand-in, not a TextIO
