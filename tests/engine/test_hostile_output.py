"""Data from strangers stays data (issue 22): where the output goes fails or vanishes. A full disk, a closed
stdout, a terminal closed while a big table paints: one line, or a clean end, never a traceback or a hang."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.hostile_results import template, write_lines
from support.locations import REPO
from support.terminal_support import set_terminal_size
from support.ui_support import ADD_RELU
from test_format_characters import kernel_tui_in, surrogate_folder

from kernel_tui.commands.exits import EXIT_USAGE

pytestmark = pytest.mark.engine  # every test here starts kernel-tui (make test-fast runs none)


def write(tmp_path: Path, *objects: Any) -> Path:
    return write_lines(tmp_path / "crafted.jsonl", *objects)


class TestOutputThatFails:
    """A full disk (``/dev/full``) or a closed stdout: one line on stderr, never a traceback."""

    def run_cli(self, *arguments: str, stdout: Any) -> subprocess.CompletedProcess[str]:
        command = [
            sys.executable,
            "-m",
            "kernel_tui",
            "run",
            str(ADD_RELU),
            "--no-time",
            "--size",
            "4096",
        ]
        return subprocess.run(
            [*command, *arguments], stdout=stdout, stderr=subprocess.PIPE, text=True, cwd=REPO, timeout=300
        )

    @pytest.mark.parametrize("where", ["--json", "--export"])
    def test_a_full_disk(self, where: str) -> None:
        with open("/dev/full", "w") as full:
            if where == "--json":
                result = self.run_cli("--json", stdout=full)
            else:
                result = self.run_cli("--export", "/dev/full", stdout=subprocess.DEVNULL)
        (line,) = result.stderr.strip().splitlines()[-1:]
        assert result.returncode == 1 and "Traceback" not in result.stderr and "Exception ignored" not in result.stderr
        assert line.startswith("kernel-tui: cannot write") and line.endswith("No space left on device")

    def test_stdout_closed(self) -> None:
        # As a shell's ``>&-`` does it: the process starts with fd 1 closed.
        command = [
            "sh",
            "-c",
            'exec "$0" "$@" >&-',
            sys.executable,
            "-m",
            "kernel_tui",
            "run",
            str(ADD_RELU),
        ]
        result = subprocess.run(command, stderr=subprocess.PIPE, text=True, cwd=REPO, timeout=60)
        assert result.returncode == EXIT_USAGE
        assert (
            result.stderr.strip()
            == "kernel-tui: standard output is closed: there is nowhere to show anything (use > FILE)"
        )


@pytest.mark.parametrize("painting_s", [1.0, 2.0])
def test_closing_the_terminal_while_a_big_table_paints_ends_the_view(tmp_path: Path, painting_s: float) -> None:
    """Its terminal gone (tmux session killed, window closed) while 20,000 kernel rows are being shown, the view
    ends: its quit once blocked for ever in Textual's driver, whose writer thread had died of the first EIO."""
    import copy
    import fcntl
    import pty
    import select
    import termios
    import time

    report = template()
    kernel = report["eager"]["kernels"][0]
    report["eager"]["kernels"] = [
        dict(copy.deepcopy(kernel), name=f"op{i}", short_name=f"op{i}") for i in range(20_000)
    ]
    path = write(tmp_path, report)
    master, slave = pty.openpty()
    set_terminal_size(slave, 160, 48)

    def own_terminal() -> None:
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)  # closing the master then sends SIGHUP, as a closed window does

    env = {**os.environ, "TERM": "xterm-256color", "KERNEL_TUI_STATE_DIR": str(tmp_path / "state")}
    command = [sys.executable, "-m", "kernel_tui", "view", str(path), "--no-predict"]
    process = subprocess.Popen(
        command, stdin=slave, stdout=slave, stderr=slave, preexec_fn=own_terminal, env=env, cwd=REPO
    )
    os.close(slave)

    def read_for(seconds: float, until: bytes | None = None) -> bytes:
        seen = b""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and (until is None or until not in seen):
            if select.select([master], [], [], 0.05)[0]:
                seen += os.read(master, 65536)
        return seen

    assert b"scenarios" in read_for(120, until=b"scenarios"), "no first frame"
    os.write(master, b"r")
    read_for(painting_s)
    os.close(master)
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        raise AssertionError("the view outlived its terminal") from None


def test_run_prints_a_lone_surrogate_and_the_next_file_on_an_ascii_terminal(tmp_path: Path) -> None:
    """A lone surrogate in a docstring (no codec encodes it) and a terminal that has no ``✓`` or ``·``: ``run``
    ended in ``UnicodeEncodeError`` at the first table, and the next file was never measured. One engine run
    holds both files; ``test_format_characters`` covers ``list`` and ``view --text`` in every encoding."""
    folder = surrogate_folder(tmp_path / "scenarios")
    returncode, out, err = kernel_tui_in("ascii", "run", str(folder), "--no-time", "--size", "4096", "--device", "cpu")
    assert "Traceback" not in err and "Error" not in err, err
    assert returncode == 0, err
    assert "Add ?U+D800? then ReLU" in out and "Plain add, then ReLU" in out
    assert out.count("? eager: claimed 2, measured 2") == 2, "both files measured, their checks marked ? for the ticks"
