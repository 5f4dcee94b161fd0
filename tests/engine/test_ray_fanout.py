"""``kernel-tui run --ray``: the course fanned out over a real local Ray cluster counts what a local run counts, and
what can go wrong before anything is sent (no Ray, no cluster, options that cannot travel) is said in one line."""

from __future__ import annotations

import http.server
import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import measure
from support.cli_support import run_json

from kernel_tui.commands.arguments import command_parser
from kernel_tui.commands.cli import main
from kernel_tui.commands.exits import EXIT_USAGE
from kernel_tui.commands.ray_fanout import (
    default_accelerator,
    missing_accelerator,
    ray_accelerator_type,
    task_options,
    worker_arguments,
)
from kernel_tui.commands.ray_worker import ScenarioJob, _as_submitted, _scenario_here, measure_on_worker
from kernel_tui.model.scenario.course import course_dir
from kernel_tui.model.scenario.expect import NEEDS_SWEEP
from kernel_tui.model.scenario.scenario_file import find_scenarios, read_scenario
from kernel_tui.transport.client import EngineClient

COURSE = find_scenarios([course_dir()])
FIRST = COURSE[0]


def _closed_port() -> int:
    """A port nothing listens on: one the kernel just handed out and that was closed again."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


# -- before anything is sent ---------------------------------------------------------------------


def test_without_ray_installed_run_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now raises ImportError, as where it is missing
    assert main(["run", "--ray", "127.0.0.1:6379", str(FIRST)]) == EXIT_USAGE
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "pip install 'kernel-tui[ray]'" in error


def test_an_address_where_nothing_listens_is_one_line_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    address = f"127.0.0.1:{_closed_port()}"
    started = time.monotonic()
    assert main(["run", "--ray", address, "--json", str(FIRST)]) == EXIT_USAGE
    # Ray's client would retry such an address for minutes; the check before it answers in seconds.
    assert time.monotonic() - started < 60
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip() == (
        f"kernel-tui run: --ray {address}: cannot connect to a Ray cluster: "
        f"nothing answers at {address} (Connection refused)"
    )


@pytest.mark.engine  # it runs the command line, as typed
def test_an_address_that_answers_in_another_protocol_is_one_line_in_bounded_time() -> None:
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler) as web:
        threading.Thread(target=web.serve_forever, daemon=True).start()
        address = f"127.0.0.1:{web.server_address[1]}"
        started = time.monotonic()
        result = subprocess.run(
            [sys.executable, "-m", "kernel_tui", "run", "--ray", address, "--json", str(FIRST)],
            capture_output=True,
            text=True,
            env={**os.environ, "KERNEL_TUI_RAY_CONNECT_S": "5"},
            timeout=120,
        )
        web.shutdown()
    assert time.monotonic() - started < 60
    assert (result.returncode, result.stdout) == (EXIT_USAGE, "")
    assert result.stderr == f"kernel-tui run: --ray {address}: no Ray cluster answered within 5 s\n"


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["--accelerator", "A100"], "--accelerator goes with --ray"),
        (["--ray", "127.0.0.1:1", "--trace", "traces"], "--trace does not go with --ray"),
        (["--ray", "127.0.0.1:1", "--model", "m.py:M", "--input", "8"], "--model does not go with --ray"),
    ],
)
def test_options_a_fan_out_cannot_honour_are_usage_errors(
    arguments: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["run", *arguments, str(FIRST)])
    assert exited.value.code == EXIT_USAGE
    assert said in capsys.readouterr().err


def test_accelerator_types_are_rays_names() -> None:
    assert ray_accelerator_type("A100") == "A100"
    assert ray_accelerator_type("a100") == "A100"
    assert ray_accelerator_type("NVIDIA_H100") == "H100"  # the constant's name in ray.util.accelerators
    assert ray_accelerator_type("NVIDIA_TESLA_A10G") == "A10G"
    assert ray_accelerator_type("H200") == "H200"  # no constant yet: Ray names it after the device
    assert ray_accelerator_type("None") == "none"
    assert task_options("none") == {"num_cpus": 1, "num_gpus": 0}
    assert task_options("any") == {"num_gpus": 1}
    assert task_options("A100") == {"num_gpus": 1, "accelerator_type": "A100"}


def test_without_accelerator_a_task_asks_for_a_gpu_where_the_run_would_use_one() -> None:
    gpus, cpus = {"CPU": 16.0, "GPU": 2.0}, {"CPU": 16.0}
    assert default_accelerator("auto", gpus) == "any"
    assert default_accelerator("auto", cpus) == "none"
    assert default_accelerator("cuda", cpus) == "any"  # asked for: the warning says the cluster has none
    assert default_accelerator("cpu", gpus) == "none"
    assert default_accelerator("cuda-preview", gpus) == "none"


def test_a_type_the_cluster_lacks_is_named_with_those_it_has() -> None:
    two_types = {"CPU": 64.0, "GPU": 8.0, "accelerator_type:H100": 1.0, "accelerator_type:L4": 1.0}
    assert missing_accelerator(two_types, "H100") is None
    assert missing_accelerator(two_types, "any") is None
    assert missing_accelerator(two_types, "A100") == (
        "no node of the Ray cluster has accelerator type A100 now (it has: H100, L4)"
    )
    assert missing_accelerator({"CPU": 2.0}, "any") == (
        "the Ray cluster has no GPU now (--accelerator none measures on its CPUs)"
    )
    assert missing_accelerator({"CPU": 2.0}, "none") is None


def test_each_worker_gets_the_options_that_shape_the_measurement() -> None:
    parser = command_parser()
    typed = [
        "run",
        "--device",
        "cuda-preview",
        "--arch",
        "80",
        "--size",
        "4096",
        "--sizes",
        "1024,65536",
        "--no-sweep",
        "--timeout",
        "30.5",
        "--variant",
        "dyn=dynamic:True",
        "--variant",
        "fast=mode:max-autotune-no-cudagraphs",
        "--variant",
        'tuned=options:{"max_autotune": True, "epilogue_fusion": False},fullgraph:True',
        "--remeasure-ceiling",
        "--no-time",
        "--sweep-budget",
        "300",
        "lesson.py",
    ]
    options = parser.parse_args(typed)
    on_worker = parser.parse_args(["run", *worker_arguments(options), "lesson.py"])
    shaping = ("device", "arch", "size", "sizes", "no_sweep", "no_time", "timeout", "variant", "remeasure_ceiling")
    for option in (*shaping, "sweep_budget"):
        assert getattr(on_worker, option) == getattr(options, option), option


def test_a_worker_that_sees_another_text_measures_a_copy_named_as_sent(tmp_path: Path) -> None:
    shared = tmp_path / "shared" / "04_lesson.py"
    shared.parent.mkdir()
    shared.write_text("A = 1\n")
    made: list[Path] = []

    def scratch() -> Path:
        made.append(tmp_path / f"scratch{len(made)}")
        made[-1].mkdir()
        return made[-1]

    assert _scenario_here(ScenarioJob(str(shared), "A = 1\n", ()), scratch) == shared
    assert _scenario_here(ScenarioJob(str(shared), None, ()), scratch) == shared
    assert made == [], "a folder made for a file the node can read (a killed worker would leave it behind)"
    copy = _scenario_here(ScenarioJob(str(shared), "A = 2\n", ()), scratch)
    assert made == [tmp_path / "scratch0"]
    assert copy == made[0] / "04_lesson.py" and copy.read_text() == "A = 2\n"
    line = f'{{"scenario": "{copy}", "error": {{"file": "{copy}", "line": 3}}, "title": "x"}}'
    assert _as_submitted(line, str(copy), str(shared)) == (
        f'{{"scenario": "{shared}", "error": {{"file": "{shared}", "line": 3}}, "title": "x"}}'
    )
    assert _as_submitted(line, str(shared), str(shared)) == line


# -- on a real engine and a real cluster ---------------------------------------------------------


@pytest.mark.engine
def test_a_worker_without_the_file_measures_the_text_it_was_sent() -> None:
    elsewhere = "/nowhere/kernel-tui-submitter/" + FIRST.name
    job = ScenarioJob(elsewhere, FIRST.read_text(encoding="utf-8"), ("--device", "cpu", "--no-sweep"))
    result = measure_on_worker(job)
    assert result.returncode == 0, result.stderr_tail
    (line,) = result.lines
    assert f'"scenario": "{elsewhere}"' in line
    assert result.node == socket.gethostname()


@pytest.fixture
def local_cluster() -> Iterator[str]:
    """A Ray cluster of this machine alone, two CPU workers; its address, as a user would pass it to ``--ray``."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING)
    try:
        yield str(ray.get_runtime_context().gcs_address)
    finally:
        ray.shutdown()


def cluster_logs() -> Path:
    """The log folder of the cluster ``local_cluster`` started, whose files Ray's log monitor follows."""
    import ray

    node = ray._private.worker.global_worker.node
    assert node is not None, "local_cluster has started no cluster"
    return Path(node.get_logs_dir_path())


def _counts(report: dict[str, Any]) -> tuple[int, int, int, int]:
    """Kernels and launches, eager and compiled, of a report's JSON."""
    eager, compiled = report["eager"], report["compiled"]
    return (
        eager["kernel_count"],
        sum(kernel["calls"] for kernel in eager["kernels"]),
        compiled["kernel_count"],
        sum(kernel["calls"] for kernel in compiled["kernels"]),
    )


COMPARED_WHOLE = tuple(
    path
    for path in COURSE
    if path.name in {"02_add_relu.py", "14_matmul_bias_relu.py", "23_layer_norm_backwards.py", "26_an_mlp_block.py"}
)
"""Lessons whose every count is compared with a local measurement: a fused pair, a library call with its
epilogue, a training step (which reads a module-level name) and an ``nn.Module``."""

FANNED_OUT = (*COMPARED_WHOLE, *(path for path in COURSE if path.name == "16_static_shapes.py"))
"""What goes over Ray: the lessons compared whole, and one that claims what only a sweep can check (a worker
leaves that claim unchecked, never failed). Each lesson is a task of its own, so that what a task carries is the
same for five lessons as for the course; the whole course's claims are ``test_course``'s, on the same engine.
The course over Ray took 8 minutes of a worker in CI, a third of the suite's longest chain."""


@pytest.mark.engine
def test_lessons_fanned_out_over_ray_count_what_a_local_run_counts(local_cluster: str, engine: EngineClient) -> None:
    fanned = run_json(
        "--ray",
        local_cluster,
        "--accelerator",
        "none",
        "--device",
        "cpu",
        "--no-time",  # counts and claims only: no lesson claims a time
        *map(str, FANNED_OUT),
        timeout=1800,
    )
    assert fanned.returncode == 0, fanned.stderr[-3000:]
    by_lesson = {Path(report["scenario"]).name: report for report in fanned.reports}
    assert len(fanned.reports) == len(FANNED_OUT) and sorted(by_lesson) == sorted(path.name for path in FANNED_OUT)
    assert len(COMPARED_WHOLE) == 4 and len(FANNED_OUT) == 5
    for path in FANNED_OUT:
        remote = by_lesson[path.name]
        assert remote["scenario"] == str(path.resolve())
        # Each claim the worker could check holds (one it could not, such as a sweep's, is None, never False).
        assert not [name for name, check in remote["expect"].items() if check["ok"] is False], path.name
        assert set(remote["expect"]) == set(read_scenario(path).claims_for("cpu")) - NEEDS_SWEEP, path.name
        if path in COMPARED_WHOLE:
            local = measure(engine, path)
            # What the worker's engine measured, not what was asked for.
            assert (remote["device"], remote["device_name"]) == (local.device, local.device_name)
            assert _counts(remote) == _counts(local.to_dict()), path.name


SLOW_SCENARIO = """\"\"\"Waits in its inputs, so that it is surely running when the run is stopped\"\"\"

import os
import time
from pathlib import Path

import torch


def fn(a):
    return a + 1


def inputs(size, device):
    Path({marker!r}).write_text(str(os.getpid()))
    time.sleep(300)
    return (torch.ones(size, device=device),)
"""


@pytest.mark.engine
def test_sigterm_while_a_task_runs_ends_the_run_and_the_task_in_one_line(local_cluster: str, tmp_path: Path) -> None:
    marker = tmp_path / "engine-pid"
    scenario = tmp_path / "slow.py"
    scenario.write_text(SLOW_SCENARIO.format(marker=str(marker)))
    run = subprocess.Popen(
        [sys.executable, "-m", "kernel_tui", "run", "--ray", local_cluster, "--device", "cpu", "--json", str(scenario)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 300
    while not marker.exists() and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.5)
    assert marker.exists(), run.communicate(timeout=60)
    # The cluster's own complaint while the run waits (CI's disk of 3 December): Ray forwards its raylet's error
    # lines to every driver that asks, and none belongs among a run's reports.
    with (cluster_logs() / "raylet.err").open("a") as raylet_errors:
        raylet_errors.write("[2026-12-03 11:35:13,898 E 1 1] file_system_monitor.cc:116: /tmp is over 95% full\n")
    time.sleep(3)  # Ray's log monitor reads the file about every second: three give it time to pass the line on
    run.terminate()
    stdout, stderr = run.communicate(timeout=60)
    assert (run.returncode, stdout, stderr) == (128 + 15, "", "kernel-tui: stopped by SIGTERM\n")
    engine_pid = int(marker.read_text())
    ends = time.monotonic() + 60  # the cancelled task ends its run, and the run its engine
    while time.monotonic() < ends:
        try:
            os.kill(engine_pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.5)
    pytest.fail(f"the engine {engine_pid} of the stopped run is still running")


def test_a_worker_line_of_a_newer_format_or_none_is_one_line_and_no_report(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from kernel_tui.commands.ray_fanout import _report, _shown
    from kernel_tui.commands.ray_worker import WorkerResult
    from kernel_tui.model.storage.results_file import RESULTS_FORMAT

    newer = json.dumps({"format_version": RESULTS_FORMAT + 1, "scenario": "x.py"})
    assert _report(newer, "x.py") is None
    assert _report("NaN", "x.py") is None, "strict JSON, as a results file is read"
    refused = capsys.readouterr().err.splitlines()
    assert len(refused) == 2 and all(
        line.startswith("kernel-tui run: x.py: the worker sent back no") for line in refused
    )
    assert "newer" in refused[0] or str(RESULTS_FORMAT + 1) in refused[0], refused[0]
    assert _shown(WorkerResult(1, (), "", "node-1"), "x.py", command_parser().parse_args(["run", "x.py"]), None) is None
    said = capsys.readouterr().err.strip()
    assert said == "kernel-tui run: x.py: the run on node-1 printed no report (exit 1)", said
