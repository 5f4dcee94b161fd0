"""Faults in scenarios never take ``kernel-tui run`` down: each is reported for its scenario, the rest run."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import WriteScenario, measure, overdue, within
from support import cli_support as cli_support
from support.cli_support import CliRun
from support.locations import DATA
from support.processes import processes_in_group

from kernel_tui.transport.client import EngineClient
from kernel_tui.transport.protocol import StageStartedMessage

pytestmark = pytest.mark.engine  # every test here starts kernel-tui (make test-fast runs none)

FAULTS = DATA / "faults"


def run_json(*args: str) -> CliRun:
    return cli_support.run_json("--device", "cpu", *args)


def test_engine_death_and_hangs_are_reported_and_the_next_scenario_still_runs() -> None:
    # Each scenario, a healthy one too, gets this long in a fresh engine: long enough for this machine now.
    timeout = round(within(8))
    started = time.monotonic()
    code, reports, stderr = cli_support.run_json(
        "--device",
        "cpu",
        str(FAULTS / "exits.py"),
        str(FAULTS / "segfaults.py"),
        str(FAULTS / "hangs.py"),
        str(FAULTS / "healthy_eager_backend.py"),
        "--no-sweep",
        "--no-time",  # the faults end the engine before any timing; the healthy one's times are read nowhere
        "--timeout",
        str(timeout),
        # A hang was silent until its time-out (ten minutes by default): a second of silence is worth a line here.
        env={**os.environ, "KERNEL_TUI_QUIET_S": "1"},
    )
    assert code == 1
    exits, segfaults, hangs, fine = reports
    assert exits["error"]["stage"] == "engine" and "exited with code 3" in exits["error"]["message"]
    assert segfaults["error"]["stage"] == "engine" and "SIGSEGV" in segfaults["error"]["message"]
    assert hangs["error"]["stage"] == "engine" and f"no result within {timeout} s" in hangs["error"]["message"]
    assert "hangs.py: still in eager, no word from the engine for" in stderr, stderr[-2000:]
    assert fine["error"] is None and fine["eager"]["kernel_count"] == 0
    assert time.monotonic() - started < 4 * timeout + within(60), "each scenario ended at its time-out at the latest"


def test_a_failed_allocation_ends_the_sweep_with_a_note(engine: EngineClient) -> None:
    report = measure(engine, FAULTS / "too_big.py", sweep=True)
    assert report.error is None
    sizes = [(point.size, point.eager_us is not None, point.note) for point in report.sweep]
    assert [size for size, _, _ in sizes] == [1024, 2048, 4096]
    assert all(measured for _, measured, _ in sizes[:2])
    assert sizes[2][2] is not None
    assert "out of memory" in sizes[2][2]


def test_a_compile_failure_keeps_the_eager_results(engine: EngineClient) -> None:
    report = measure(engine, FAULTS / "bad_backend.py")
    assert report.eager is not None and report.eager.kernel_count == 1
    assert report.compiled is None
    assert report.error is not None
    assert report.error.stage == "compile" and "no_such_backend" in report.error.message


def test_import_error_and_non_tensor_results_name_file_line_and_stage(engine: EngineClient) -> None:
    imported = measure(engine, FAULTS / "import_error.py")
    assert imported.error is not None
    assert (imported.error.stage, imported.error.line) == ("load", 4)
    assert "no_such_module_here" in imported.error.message
    returned = measure(engine, FAULTS / "returns_none.py")
    assert returned.error is not None
    assert (returned.error.stage, returned.error.line) == ("eager", 8)
    assert "must return a tensor" in returned.error.message and "NoneType" in returned.error.message
    assert returned.error.one_line().startswith(f"{FAULTS / 'returns_none.py'}:8: eager: ")


def test_cancel_ends_the_engine_and_its_workers_within_a_second(tmp_path: Path) -> None:
    import threading

    from kernel_tui.transport.client import EngineClient
    from kernel_tui.transport.engine_died import EngineDied

    scenario = tmp_path / "spawns_and_hangs.py"
    scenario.write_text(
        "import subprocess, sys, time\nimport torch\nSIZE = 16\n"
        "def fn(a):\n"
        "    subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        "    time.sleep(600)\n"
        "def inputs(size, device):\n    return (torch.ones(size),)\n"
    )
    client = EngineClient("cpu")
    pgid = client.start().pid
    stages: list[str] = []

    def run() -> None:
        try:
            for message in client.run(str(scenario), sweep=False):
                stages.append(message.stage if isinstance(message, StageStartedMessage) else type(message).__name__)
        except EngineDied:
            stages.append("died")

    worker = threading.Thread(target=run)
    worker.start()
    waited = time.monotonic()
    while "eager" not in stages and not overdue(waited, 120):
        time.sleep(0.1)
    time.sleep(1.0)  # fn is now sleeping, with its own child process started
    assert len(processes_in_group(pgid)) >= 2
    started = time.monotonic()
    client.close()
    worker.join(10)
    assert time.monotonic() - started < within(1.0)
    assert stages[-1] == "died"
    assert processes_in_group(pgid) == []


def test_bytes_that_are_not_utf8_on_stderr_spoil_nothing_after_them() -> None:
    code, reports, stderr = run_json(
        str(FAULTS / "not_utf8_stderr.py"),
        str(FAULTS / "floods_stderr.py"),
        str(DATA / "views_only.py"),
        "--no-sweep",
        "--no-time",  # the bytes are written as the files load, before anything is timed
        "--timeout",
        "60",
    )
    assert code == 0, stderr[-2000:]
    assert [report["error"] for report in reports] == [None, None, None]
    assert "caf\ufffd" in stderr and stderr.count("." * 1023) == 256


def test_a_timed_out_run_keeps_what_was_measured(write_scenario: WriteScenario) -> None:
    path = write_scenario(
        # The eager backend compiles in a moment, so a short time-out still leaves the first sizes measured.
        "import time\nimport torch\nSIZE = 1024\nSIZES = [1024, 4096, 65536]\nCOMPILE = {'backend': 'eager'}\n"
        "def fn(a):\n    if a.numel() >= 65536:\n        time.sleep(600)\n    return a + 1\n"
        "def inputs(size, device):\n    return (torch.ones(size),)\n",
        "slow_at_the_last_size.py",
    )
    code, (report,), _ = run_json(str(path), "--timeout", "25")
    assert code == 1
    assert report["error"]["stage"] == "engine" and "no result within 25 s" in report["error"]["message"]
    assert report["eager"]["kernel_count"] == 1 and report["compiled"]["kernel_count"] == 1
    assert [point["size"] for point in report["sweep"]] == [1024, 4096]
    assert report["device"] == "cpu" and report["torch_version"] and report["size"] == 1024


def test_a_sweep_that_grows_faster_than_its_size_ends_within_its_budget(write_scenario: WriteScenario) -> None:
    path = write_scenario(
        "import torch\nSIZES = [2**12, 2**14, 2**16, 2**18, 2**20, 2**22]\nSIZE = 4096\n"
        "EXPECT = {'eager': 9, 'sweep_compiles': 2}\n"
        "@torch.compiler.disable\n"
        "def one_add_per_512_elements(a):\n"
        "    for _ in range(a.numel() // 512):\n        a = a + 1\n    return a\n"
        "def fn(a):\n    return one_add_per_512_elements(a) * 2\n"
        "def inputs(size, device):\n    return (torch.ones(size),)\n",
        "quadratic.py",
    )
    result = subprocess.run(
        [sys.executable, "-m", "kernel_tui", "run", "--device", "cpu", "--json", "--timeout", "600", str(path)],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "KERNEL_TUI_SWEEP_BUDGET_S": "10"},
    )
    (report,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert report["error"] is None, report["error"]
    measured = [point["size"] for point in report["sweep"] if point["eager_us"] is not None]
    ended = [point for point in report["sweep"] if point["eager_us"] is None]
    # How far it gets depends on how busy the machine is (the first point always runs, and predicts the rest);
    # that it measures in order, keeps the largest size it can afford, stops early and says why, does not.
    sizes = [2**12, 2**14, 2**16, 2**18, 2**20, 2**22]
    assert measured == sorted(measured) and measured[0] == sizes[0] and 1 <= len(measured) < len(sizes)
    assert ended and all(
        point["note"].startswith(("sweep ended", "skipped")) and "budget is 10 s" in point["note"] for point in ended
    )
    # A claim about the whole sweep cannot be judged from part of it: not measured, with the reason, and the
    # run still succeeds (exit 0); the claim it could measure (eager launches) holds.
    claim = report["expect"]["sweep_compiles"]
    assert (claim["ok"], claim["reason"]) == (None, ended[0]["note"]) and report["expect"]["eager"]["ok"] is True
    assert result.returncode == 0, result.stderr[-2000:]
    # The budget is checked against a prediction, so the sweep may overrun it by the point that broke the
    # prediction: no more than the last point's own time (in the note) and a compile (this machine's, now).
    took = re.search(r"the last took ([\d,.]+) s", ended[-1]["note"])
    assert took is not None
    last_point_s = float(took.group(1).replace(",", ""))
    bound_s = 10 + 2 * (last_point_s + report["compiled"]["compile_s"])
    assert report["sweep_wall_s"] < bound_s
    print(f"sweep ended after {report['sweep_wall_s']:.1f} s (bound {bound_s:.1f} s); measured {measured}")


def test_usage_errors_stop_run_before_anything_runs(tmp_path: Path) -> None:
    a_file = tmp_path / "a_file"
    a_file.write_text("")
    for bad in (
        ["--timeout", "-5"],
        ["--timeout", "nan"],
        ["--export", str(tmp_path / "no" / "such" / "r.md")],
        ["--export", str(tmp_path)],
        ["--trace", str(a_file)],
    ):
        started = time.monotonic()
        result = subprocess.run(
            [sys.executable, "-m", "kernel_tui", "run", "--device", "cpu", str(DATA / "views_only.py"), *bad],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 2, (bad, result.stderr)
        assert "usage:" in result.stderr and result.stdout == ""
        assert time.monotonic() - started < within(10), "nothing ran"


def test_a_reader_that_goes_away_is_no_traceback(tmp_path: Path) -> None:
    err = tmp_path / "stderr.txt"
    views = DATA / "views_only.py"
    result = subprocess.run(
        f"{shlex.quote(sys.executable)} -m kernel_tui run --device cpu --no-sweep --json {views} {views} {views} "
        f"2>{err} | head -1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert len(result.stdout.splitlines()) == 1
    assert "Traceback" not in err.read_text() and "BrokenPipe" not in err.read_text()
