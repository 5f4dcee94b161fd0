"""A scenario's tricks cannot change what is reported about it or after it.

A double-forked daemon once inherited the protocol descriptor and wrote fake ``done`` messages: every later
report of that ``kernel-tui run`` read "FORGED RESULT", exit 0; and it ran on after the run. A file that
rewrote itself while it ran had its new text quoted in its own traceback.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.engine, pytest.mark.usefixtures("own_fork_servers")]  # lifetimes as a user's run has them

FORGER = '''\
"""Starts a daemon that writes fake results on every descriptor it has"""
import ctypes, os, time
import torch

SIZE = 64
PID_FILE = {pid_file!r}


# Imported before forking: a raw fork's child cannot take an import lock another thread held.
from kernel_tui.transport.protocol import Done, encode
from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.transport.proctree import end_tree


def forge():
    report = ScenarioReport("forged.py", "FORGED RESULT", "cpu", "x", "0", 1, threads=1)
    lines = [encode(Done(run_id, report)) for run_id in range(1, 20)]
    data = "".join(lines).encode()
    for fd in range(0, 256):
        try:
            os.write(fd, data)
        except OSError:
            pass


# os.fork runs the engine's at-fork hooks; libc's fork, through ctypes, does not. ctypes.PyDLL keeps the GIL
# across the call: CDLL would release it, and a fork that lands while another engine thread holds it leaves the
# child waiting forever for a GIL whose holder it does not have (the scenario then hangs in waitpid).
fork = {fork}


def start_daemon():
    child = fork()
    if child == 0:
        os.setsid()
        if fork() == 0:
            with open(PID_FILE, "w") as out:
                out.write(str(os.getpid()))
            # Forges until it is ended: a daemon that stopped by itself before the scenario's measurement ended
            # (a cold compile on a busy machine takes minutes) would leave nothing for the engine to find.
            for _ in range(9000):
                forge()
                time.sleep(0.1)
            os._exit(0)
        os._exit(0)
    return child


# A raw fork's child can still hang on a lock another engine thread held at the fork (one run in many: the
# scenario then waited forever and the run ended at its timeout): give each try 20 s, then end it and fork again.
for attempt in range(5):
    child = start_daemon()
    deadline = time.monotonic() + 20
    reaped = False
    while time.monotonic() < deadline and not (reaped and os.path.exists(PID_FILE)):
        reaped = reaped or os.waitpid(child, os.WNOHANG)[0] != 0
        time.sleep(0.05)
    if reaped and os.path.exists(PID_FILE):
        break
    end_tree(child)
    if not reaped:
        os.waitpid(child, 0)
time.sleep(1.0)  # the daemon forges while this scenario still runs


def fn(a):
    return a + 1


def inputs(size, device):
    return (torch.ones(size, device=device),)
'''

HEALTHY = '''\
"""A healthy scenario"""
import torch

SIZE = 4096


def fn(a):
    return (a + 1).relu()


def inputs(size, device):
    return (torch.randn(size, device=device),)
'''


def _alive(pid: int) -> bool:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != "Z"


@pytest.mark.parametrize("fork", ["os.fork", "ctypes.PyDLL(None).fork"])
def test_a_double_forked_daemon_can_neither_forge_results_nor_outlive_the_run(tmp_path: Path, fork: str) -> None:
    pid_file = tmp_path / "daemon.pid"
    forger = tmp_path / "forger.py"
    forger.write_text(FORGER.format(pid_file=str(pid_file), fork=fork), encoding="utf-8")
    healthy = tmp_path / "healthy.py"
    healthy.write_text(HEALTHY, encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "kernel_tui",
            "run",
            str(forger),
            str(healthy),
            "--json",
            "--no-time",
            "--timeout",
            "300",
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    reports = [json.loads(line) for line in done.stdout.splitlines()]
    assert [report["title"] for report in reports] == [
        "Starts a daemon that writes fake results on every descriptor it has",
        "A healthy scenario",
    ]
    assert reports[0]["error"] is None, f"{reports[0]['error']}\n{done.stderr[-4000:]}"
    assert any("it left a process running" in note for note in reports[0]["notes"]), reports[0]["notes"]
    assert reports[1]["error"] is None and reports[1]["eager"]["kernel_count"] == 2
    daemon = int(pid_file.read_text())
    assert not _alive(daemon), "the daemon was ended with the engine"
    if fork.startswith("ctypes"):
        assert f"ignored what process {daemon}, not the engine, wrote on the engine's channel" in done.stderr


REWRITES_ITSELF = '''\
"""Edited while it runs"""
import torch

SIZE = 64


def fn(a):
    raise ValueError("the line that ran")


def inputs(size, device):
    with open(__file__, "w", encoding="utf-8") as out:
        out.write(__doc__.replace("while", "WHILE") + "\\ndef fn(a):\\n    return 'the new text'\\n")
    return (torch.ones(size, device=device),)
'''


def test_a_file_edited_during_its_run_is_quoted_as_the_text_that_ran(tmp_path: Path) -> None:
    scenario = tmp_path / "edited.py"
    scenario.write_text(REWRITES_ITSELF, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "kernel_tui", "run", str(scenario), "--json", "--no-time"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = json.loads(done.stdout)
    assert scenario.read_text(encoding="utf-8") != REWRITES_ITSELF, "the file did change during the run"
    assert report["source"] == REWRITES_ITSELF
    assert report["error"]["stage"] == "eager" and report["error"]["line"] == 8
    assert 'raise ValueError("the line that ran")' in report["error"]["details"]
    assert "the new text" not in report["error"]["details"]
