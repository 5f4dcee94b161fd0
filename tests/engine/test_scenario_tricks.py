"""A scenario's tricks cannot change what is reported about it or after it.

A double-forked daemon once inherited the protocol descriptor and wrote fake ``done`` messages: every later
report of that ``kernel-tui run`` read "FORGED RESULT", exit 0; and it ran on after the run. A file that
rewrote itself while it ran had its new text quoted in its own traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support.locations import DATA

from kernel_tui.transport import forked_engines
from kernel_tui.transport.proctree import stat_fields

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


ESCAPES = DATA / "escapes"
ESCAPE_FILES = ("clone_parent.py", "fork_runner.py", "daemon.py", "meddles_with_next.py")
LEFT_RUNNING = ("clone_parent", "fork_runner", "daemon")
"""The scenarios that leave processes behind, run in forked engines and in exec'd ones."""

EscapesRun = tuple[list[dict[str, Any]], str, Path, float]


def _run_escapes(folder: Path, files: list[str], **settings: str) -> EscapesRun:
    """One ``kernel-tui run`` of ``files`` (with a fork server of its own where it forks), under the extra environment
    ``settings``: its reports, its stderr, the folder where the scenarios wrote what they started, and when it
    exited."""
    env = {key: value for key, value in os.environ.items() if key != forked_engines.SHARED_ENV}
    env["ESCAPE_PIDS"] = str(folder)
    env.update(settings)
    done = subprocess.run(
        [sys.executable, "-m", "kernel_tui", "run", *files, "--json", "--no-time", "--no-sweep", "--timeout", "300"],
        capture_output=True,
        text=True,
        timeout=1200,
        env=env,
    )
    exited = time.monotonic()
    return [json.loads(line) for line in done.stdout.splitlines()], done.stderr, folder, exited


ENGINE_STARTS = {"forked": {}, "execd": {"KERNEL_TUI_FORK_SERVER": "0"}}
"""How the front end starts each engine: forked from its fork server, or exec'd (below its keeper) as it does where
no fork server serves it (``KERNEL_TUI_FORK_SERVER=0``, another interpreter or import environment, not Linux)."""


@pytest.fixture(scope="module", params=sorted(ENGINE_STARTS))
def escapes(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> EscapesRun:
    """The escape scenarios, then a healthy one, each in an engine started as ``request.param`` says: a parameter of
    the fixture, not a name looked up in the test, so that every test of one run goes to one worker (a module
    fixture looked up by name was run again by each worker that got one of its tests: three times 25 CPU-s)."""
    files = [str(ESCAPES / name) for name in ESCAPE_FILES] + [str(DATA / "add_relu.py")]
    return _run_escapes(tmp_path_factory.mktemp(f"escapes-{request.param}"), files, **ENGINE_STARTS[request.param])


def _started(pids: Path, name: str) -> list[tuple[int, str]]:
    return [
        (int(pid), start)
        for pid, start in (line.split() for line in (pids / f"{name}.pids").read_text().split("\n") if line)
    ]


def _same_process_running(pid: int, start: str) -> bool:
    fields = stat_fields(pid)
    return fields is not None and fields[0] != "Z" and fields[19] == start


@pytest.mark.parametrize("name", LEFT_RUNNING)
def test_nothing_a_scenario_started_outlives_the_run_and_the_run_says_it_ended_it(
    escapes: EscapesRun, name: str
) -> None:
    reports, stderr, pids, exited = escapes
    report = next(report for report in reports if report["scenario"].endswith(f"{name}.py"))
    assert report["error"] is None, f"{report['error']}\n{stderr[-3000:]}"
    started = _started(pids, name)
    assert started
    time.sleep(max(0.0, exited + 2 - time.monotonic()))
    assert [pid for pid, start in started if _same_process_running(pid, start)] == []
    notes = " ".join(report["notes"])
    for pid, _ in started:
        assert f"it left a process running (pid {pid}:" in notes, report["notes"]


def test_a_scenario_can_neither_write_requests_to_the_next_engine_nor_stall_it(escapes: EscapesRun) -> None:
    reports, stderr, pids, _ = escapes
    assert _started(pids, "meddled"), f"the scenario found the next engine and stopped it\n{stderr[-3000:]}"
    assert "meddles_with_next: could not write to" in stderr  # its request stream: the forged runs never came
    assert len(reports) == len(ESCAPE_FILES) + 1, stderr[-3000:]
    healthy = reports[-1]
    assert healthy["scenario"].endswith("add_relu.py") and healthy["error"] is None, (
        f"{healthy['error']}\n{stderr[-3000:]}"
    )
    assert healthy["eager"]["kernel_count"] >= 1
