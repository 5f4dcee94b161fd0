"""The CUDA preview's cost: per scenario, cold and in a warm engine, against compiling the same scenario on the CPU.

Cold: ``kernel-tui run SCENARIO --json`` in a fresh process, ``--device cuda-preview`` against ``--device cpu
--no-sweep`` (interpreter, torch import, engine start included on both sides). Warm: every course scenario in
one engine, the first left out (it pays for Inductor's imports); each further scenario's wall time from request
to report, against the compile time the CPU engine reports for the same scenario (``compile_s``: the first call
minus a steady one). The preview always generates code afresh (it runs with Inductor's caches off), so the CPU
side compiles into an empty Inductor cache too.

Target: a warm preview under 1 s per scenario.

    .venv/bin/python bench/preview.py
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import REPO, final_report

from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.scenario.course import course_dir
from kernel_tui.model.scenario.scenario_file import find_scenarios, read_scenario
from kernel_tui.transport.client import EngineClient

TARGET_WARM_S = 1.0
COLD_SCENARIO = Path(course_dir()) / "02_add_relu.py"


def _cold_s(device_args: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "kernel_tui", "run", str(COLD_SCENARIO), "--json", *device_args],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
        env=env,
    )
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise RuntimeError(f"kernel-tui run {' '.join(device_args)} failed: {result.stderr[-2000:]}")
    return elapsed


def _warm(client: EngineClient, scenarios: list[Path]) -> list[tuple[float, ScenarioReport]]:
    """Wall time and report of each scenario, one after another in one engine."""
    client.start()
    results = []
    for path in scenarios:
        started = time.perf_counter()
        report = final_report(client, path, sweep=False, timeout=600)
        results.append((time.perf_counter() - started, report))
    return results


def rows() -> list[dict[str, object]]:
    scenarios = [path for path in find_scenarios([course_dir()]) if not read_scenario(path).train]  # not previewed
    with tempfile.TemporaryDirectory(prefix="kernel-tui-bench-cache-") as empty_cache:
        cpu_env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": empty_cache}
        cold_preview = _cold_s(["--device", "cuda-preview"], dict(os.environ))
        cold_cpu = _cold_s(["--device", "cpu", "--no-sweep"], cpu_env)
        with EngineClient("cuda-preview", arch=90, stderr_sink=lambda line: None) as client:
            preview = _warm(client, scenarios)
        with EngineClient("cpu", stderr_sink=lambda line: None, env=cpu_env) as client:
            cpu = _warm(client, scenarios)
    further = [seconds for seconds, _ in preview[1:]]
    compiles = [report.compiled.compile_s for _, report in cpu[1:] if report.compiled and report.compiled.compile_s]
    ratios = [p / c for p, c in zip(further, compiles) if c]
    slowest = max(range(1, len(preview)), key=lambda index: preview[index][0])
    return [
        {
            "name": "CUDA preview, cold process: kernel-tui run add+relu --device cuda-preview vs --device cpu "
            "--no-sweep (empty Inductor cache)",
            "value": f"{cold_preview:.2f} s vs {cold_cpu:.2f} s",
            "ratio": cold_preview / cold_cpu,
            "target": "measured",
            "met": True,
        },
        {
            "name": f"CUDA preview, warm engine: each further course scenario ({len(further)}) vs its CPU compile "
            "(empty Inductor cache)",
            "value": f"median {statistics.median(further):.2f} s (max {max(further):.2f} s, "
            f"{scenarios[slowest].stem}) vs CPU compile median {statistics.median(compiles):.2f} s",
            "ratio": statistics.median(ratios),
            "target": f"< {TARGET_WARM_S:g} s per scenario",
            "met": max(further) < TARGET_WARM_S,
            "cause": f"{scenarios[slowest].stem} took {max(further):.2f} s",
        },
    ]


if __name__ == "__main__":
    for row in rows():
        print(
            f"{row['name']}: {row['value']} (ratio {row['ratio']:.2f}, target {row['target']}, "
            f"{'met' if row['met'] else 'missed'})"
        )
