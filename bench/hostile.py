"""Issue 12's hostile and careless cases through ``kernel-tui run``: what the user sees and the recovery.

Each case runs a fault scenario followed by the course's graph-break lesson (whose claims depend on the
engine's dynamo and Inductor settings) in one ``kernel-tui run --json``; reports are timestamped as they
arrive. "Next result after" is the time from the fault's report to the lesson's, and "claims" says whether
the lesson's claims all held after the fault. Then the front end is ended while a scenario is busy, by
signal and by SIGKILL, and the time until nothing it started is left running is measured.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

from common import REPO

DATA = REPO / "tests" / "data"
LESSON = REPO / "scenarios" / "15_graph_break.py"
KERNEL_TUI = str(Path(sys.executable).parent / "kernel-tui")
BODY = "def fn(a):\n    return a + 1\ndef inputs(size, device):\n    return (torch.ones(size),)\n"


def _scenarios(tmp: Path) -> list[tuple[str, Path]]:
    def write(name: str, source: str) -> Path:
        path = tmp / name
        path.write_text(textwrap.dedent(source))
        return path

    return [
        (
            "changes threads, configs, folder, path, streams, RNG",
            DATA / "isolation" / "spoiler" / "spoils_everything.py",
        ),
        (
            "leaves a thread running",
            write(
                "leaves_a_thread.py",
                "import threading, time\nimport torch\nSIZE = 64\n"
                "threading.Thread(target=time.sleep, args=(600,), daemon=True).start()\n" + BODY,
            ),
        ),
        (
            "starts a child in its own session",
            write(
                "stranger.py",
                "import subprocess, sys\nimport torch\nSIZE = 64\n"
                "subprocess.Popen([sys.executable, '-c', 'import time; "
                "time.sleep(600)'], start_new_session=True)\n" + BODY,
            ),
        ),
        ("non-UTF-8 bytes on stderr", DATA / "faults" / "not_utf8_stderr.py"),
        ("256 KB on stderr", DATA / "faults" / "floods_stderr.py"),
        (
            "sys.exit() in fn",
            write(
                "exits_in_fn.py",
                "import sys\nimport torch\nSIZE = 64\n"
                "def fn(a):\n    sys.exit(4)\ndef inputs(size, device):\n"
                "    return (torch.ones(size),)\n",
            ),
        ),
        (
            "inputs() on the meta device",
            write(
                "meta.py",
                "import torch\nSIZE = 64\ndef fn(a):\n    return a + 1\n"
                "def inputs(size, device):\n"
                "    return (torch.ones(size, device='meta'),)\n",
            ),
        ),
        ("random.py in the current folder", LESSON),
    ]


def _seen(report: dict[str, Any]) -> str:
    if report["error"]:
        error = report["error"]
        where = f"{Path(error['file']).name}:{error['line']}" if error.get("line") else Path(error["file"]).name
        return f"`{where}: {error['stage']}: {error['message'][:60]}`"
    if report.get("notes"):
        return f"results, note: `{report['notes'][0][:70]}`"
    return "results"


def fault_table(tmp: Path) -> str:
    rows = [
        "| scenario | what the user sees | next result after | lesson's claims after it |",
        "| --- | --- | ---: | --- |",
    ]
    poisoned = tmp / "poisoned"
    poisoned.mkdir()
    (poisoned / "random.py").write_text("raise SystemExit('the learner\\'s random.py')\n")
    for label, path in _scenarios(tmp):
        cwd = poisoned if "random.py" in label else REPO
        # The console script, as a user runs it: ``python -m`` would put the poisoned folder on the front
        # end's own path.
        command = [KERNEL_TUI, "run", "--json", "--device", "cpu", "--no-sweep", str(path), str(LESSON)]
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=cwd)
        assert process.stdout is not None
        arrivals = [(time.perf_counter() - started, json.loads(line)) for line in process.stdout]
        process.wait()
        if len(arrivals) != 2:
            raise RuntimeError(f"{label}: {len(arrivals)} reports, exit status {process.returncode}")
        (fault_at, fault), (lesson_at, lesson) = arrivals
        held = lesson["error"] is None and all(check["ok"] for check in lesson["expect"].values())
        rows.append(f"| {label} | {_seen(fault)} | {lesson_at - fault_at:.1f} s | {'all held' if held else 'FAILED'} |")
    return "\n".join(rows)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def ending_table(tmp: Path) -> str:
    pids = tmp / "pids"
    busy = tmp / "busy.py"
    busy.write_text(
        textwrap.dedent(f"""
        import os, subprocess, sys, time
        import torch
        SIZE = 16
        def fn(a):
            sleep = [sys.executable, "-c", "import time; time.sleep(600)"]
            same, own = subprocess.Popen(sleep), subprocess.Popen(sleep, start_new_session=True)
            open({str(pids)!r}, "w").write(f"{{os.getpid()}} {{same.pid}} {{own.pid}}")
            time.sleep(600)
        def inputs(size, device):
            return (torch.ones(size),)
    """)
    )
    rows = [
        "| the front end, busy in `fn`, gets | front end exits after | what it prints "
        "| engine and its children gone after |",
        "| --- | ---: | --- | ---: |",
    ]
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL):
        pids.unlink(missing_ok=True)
        front = subprocess.Popen(
            [KERNEL_TUI, "run", "--device", "cpu", "--no-sweep", str(busy)],
            subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
            start_new_session=True,
        )
        while not (pids.exists() and len(pids.read_text().split()) == 3):
            time.sleep(0.05)
        tree = [int(pid) for pid in pids.read_text().split()]
        started = time.perf_counter()
        os.kill(front.pid, sig)
        _, err = front.communicate()
        exited = time.perf_counter() - started
        while any(_alive(pid) for pid in tree):
            time.sleep(0.01)
        gone = time.perf_counter() - started
        last = err.strip().splitlines()[-1] if err.strip() and sig != signal.SIGKILL else "(killed)"
        rows.append(f"| {sig.name} | {exited:.2f} s | `{last}` | {gone:.2f} s |")
    return "\n".join(rows)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        print(fault_table(Path(tmp)))
        print()
        print(ending_table(Path(tmp)))
