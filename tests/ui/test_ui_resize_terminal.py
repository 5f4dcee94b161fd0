"""The explorer in a real terminal (a pty), resized between 80x24 and 120x36 with keys typed while the layout
switches, during the engine's start and warm-up and during a run: it stays up, and quits cleanly after."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from support.locations import REPO
from support.terminal_support import open_terminal, set_terminal_size, start_in_terminal

from kernel_tui.transport import proctree

ADD_RELU = REPO / "tests" / "data" / "add_relu.py"
SIZES = ((24, 80), (36, 120))
KEYS = (b"4", b"4b", b"3\x1b[B\x1b[B", b"2", b"1")
"""The keys of the reported crashes (4, 4 b, 3 Down Down) and the other panes', as the terminal sends them."""
ROUNDS = 50


@pytest.fixture
def terminal() -> Iterator[tuple[int, int, bytearray]]:
    controller, terminal, written = open_terminal()
    try:
        yield controller, terminal, written
    finally:
        os.close(terminal)
        os.close(controller)


def resize(terminal: int, app: subprocess.Popen[bytes], rows: int, columns: int) -> None:
    set_terminal_size(terminal, columns, rows)
    app.send_signal(signal.SIGWINCH)  # the app has a session of its own: the pty does not signal it


@pytest.mark.engine
def test_resizes_and_keys_in_a_real_terminal_never_crash(terminal: tuple[int, int, bytearray]) -> None:
    controller, tty, written = terminal
    command = [sys.executable, "-m", "kernel_tui", "--device", "cpu", "--no-predict", str(ADD_RELU)]
    app = start_in_terminal(command, tty, (120, 36))
    try:
        deadline = time.monotonic() + 60
        while b"kernel-tui" not in written and time.monotonic() < deadline and app.poll() is None:
            time.sleep(0.05)
        os.write(controller, b"r")  # a run, for the storm to meet its messages
        for round_number in range(ROUNDS):
            resize(tty, app, *SIZES[round_number % 2])
            os.write(controller, KEYS[round_number % len(KEYS)])
            time.sleep(0.15)
            assert app.poll() is None, f"the app ended in round {round_number}: {bytes(written[-3000:])!r}"
        resize(tty, app, *SIZES[0])
        time.sleep(1.0)
        assert app.poll() is None
        os.write(controller, b"\x11")  # ctrl+q
        assert app.wait(30) == 0
        time.sleep(0.2)
        assert b"Traceback" not in written and b"NoMatches" not in written
    finally:
        if app.poll() is None:
            proctree.end_tree(app.pid)
            app.wait(5)
