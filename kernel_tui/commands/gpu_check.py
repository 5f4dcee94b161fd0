"""``python -m kernel_tui.commands.gpu_check`` (``make gpu-check``): the course on a real GPU, against the CUDA preview.

Run on a machine with a CUDA GPU, from a checkout (no install, no ``make`` and no Textual needed: the GPU
machines this project borrows have torch and rich only, and no network). One run settles what a machine
without a GPU can only predict, and leaves a handful of files, written whether or not the claims held:

- ``gpu-check.md``: per scenario, the claims that held, the compiled kernels against a preview made on the same
  torch at run time (version drift from the recorded preview reported apart), the eager launches against the
  preview's (memsets, cuBLAS splits, cub passes named), whether the profiler delivered a device record for
  every launch, and the largest elementwise kernel's bandwidth against the measured copy ceiling; then the
  course's time, compiled from an empty Inductor cache, against its budget;
- ``gpu-check.json``: the same findings, machine-readable; ``course.jsonl``: the GPU's reports (``kernel-tui
  view`` opens them); ``traces.tar.gz``: the engine's profiler traces, for the replay tests.

This process never imports torch; the engine child does.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kernel_tui.commands.gpu_findings import audit_trace, compiled_cell, eager_cell
from kernel_tui.commands.preview_table import RECORDING
from kernel_tui.model.course import course_dir
from kernel_tui.model.names import is_elementwise
from kernel_tui.model.report import ScenarioReport
from kernel_tui.model.report_keys import MODES
from kernel_tui.text.formatting import bandwidth_text, device_text

if TYPE_CHECKING:
    from kernel_tui.model.kernel import Kernel

RECORDED_PREVIEW = RECORDING
BUDGET_S = 270.0
"""The course, compiled cold, must be measured within this: what does not fit is listed as not run."""
PREVIEW_BUDGET_S = 60.0
"""Kept for the live preview (about 0.2 s a scenario in a warm engine); the recording stands in if it runs out."""
OUTPUT_FILES = ("gpu-check.md", "gpu-check.json", "course.jsonl", "traces.tar.gz")


@dataclass(frozen=True)
class Row:
    scenario: str
    claims: str
    kernels: str
    bandwidth: str
    eager: str = "—"
    cupti: str = "—"


def largest_elementwise(report: ScenarioReport) -> Kernel | None:
    rows = [
        kernel
        for mode in map(report.mode, MODES)
        if mode is not None
        for kernel in mode.kernels
        if is_elementwise(kernel.name) and kernel.bytes_total
    ]
    return max(rows, key=lambda kernel: kernel.bytes_total or 0, default=None)


def bandwidth_cell(report: ScenarioReport) -> str:
    kernel = largest_elementwise(report)
    if kernel is None or kernel.gbs is None:
        return "—"
    return f"{kernel.short_name}: {bandwidth_text(kernel, report.bandwidth_ceiling_gbs)}"


def claims_cell(report: ScenarioReport) -> str:
    if report.error is not None:
        # A table row holds one line: the message's first, the file by name.
        error = report.error
        return f"error: {error.short_line()}"
    held = sum(check.ok is True for check in report.expect.values())
    failed = [key for key, check in report.expect.items() if check.failed]
    return f"{held}/{len(report.expect)}" + (f", failed: {', '.join(failed)}" if failed else "")


def table(rows: Iterable[Row]) -> str:
    lines = [
        "| scenario | claims held | compiled kernels: preview vs GPU | eager launches: preview vs GPU "
        "| device records | largest elementwise kernel |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        cells = (row.scenario, row.claims, row.kernels, row.eager, row.cupti, row.bandwidth)
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)


def read_reports(lines: Iterable[str]) -> dict[str, ScenarioReport]:
    reports = {}
    for line in lines:
        line = line.strip()
        if line.startswith("{"):
            report = ScenarioReport.from_dict(json.loads(line))
            reports[Path(report.scenario).name] = report
    return reports


def run_command(scenarios: list[Path], device: str, *options: str) -> list[str]:
    """``kernel-tui run SCENARIO... --device DEVICE --json OPTIONS``, in this interpreter."""
    return [sys.executable, "-m", "kernel_tui", "run", *map(str, scenarios), "--device", device, "--json", *options]


def run_course(
    scenarios: list[Path], device: str, trace_dir: Path, deadline: float, env: dict[str, str] | None = None
) -> dict[str, ScenarioReport]:
    """``kernel-tui run`` on each scenario in one engine, ended at ``deadline`` whatever it is doing."""
    remaining = max(deadline - time.monotonic(), 1.0)
    command = run_command(scenarios, device, "--no-sweep", "--timeout", f"{remaining:.0f}", "--trace", str(trace_dir))
    reports: dict[str, ScenarioReport] = {}
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env) as process:
        assert process.stdout is not None
        # The deadline holds even while the engine compiles and prints nothing: a timer ends the run.
        watchdog = threading.Timer(remaining, process.terminate)
        watchdog.start()
        try:
            for line in process.stdout:
                reports.update(read_reports([line]))
                print(f"gpu-check: {len(reports)}/{len(scenarios)} measured", file=sys.stderr, flush=True)
        finally:
            watchdog.cancel()
    return reports


def live_preview(scenarios: list[Path], arch: int, budget_s: float) -> tuple[dict[str, ScenarioReport], str | None]:
    """The preview made now, on this torch; empty where this torch cannot preview or the budget ran out, with
    why (the first H200 run, on torch 2.11, said only "no preview on this torch")."""
    command = run_command(scenarios, "cuda-preview", "--arch", str(arch))
    try:
        live = subprocess.run(command, capture_output=True, text=True, timeout=max(budget_s, 1.0), check=False)
    except subprocess.TimeoutExpired:
        return {}, f"the live preview ran past the {PREVIEW_BUDGET_S:.0f} s left for it"
    reports = read_reports(live.stdout.splitlines())
    refusals = [r.error.message for r in reports.values() if r.error is not None and r.error.stage == "engine"]
    kept = {name: r for name, r in reports.items() if r.error is None or r.error.stage != "engine"}
    if kept:
        return kept, None
    return kept, refusals[0] if refusals else (live.stderr.strip().splitlines() or ["it printed nothing"])[-1]


def recorded_preview() -> dict[str, ScenarioReport]:
    if not RECORDED_PREVIEW.exists():
        return {}
    return read_reports(RECORDED_PREVIEW.read_text(encoding="utf-8").splitlines())


def cupti_cell(trace_dir: Path, stem: str) -> tuple[str, dict[str, Any]]:
    audits = {}
    for mode in MODES:
        path = trace_dir / f"{stem}.{mode}.json"
        if path.exists():
            audits[mode] = audit_trace(path)
    if not audits:
        return "no trace", {}
    text = "; ".join(f"{mode}: {audit.text()}" for mode, audit in audits.items())
    return text, {mode: asdict(audit) for mode, audit in audits.items()}


def findings(
    scenarios: list[Path],
    real: dict[str, ScenarioReport],
    live: dict[str, ScenarioReport],
    recorded: dict[str, ScenarioReport],
    trace_dir: Path,
) -> tuple[list[Row], dict[str, Any]]:
    rows: list[Row] = []
    details: dict[str, dict[str, Any]] = {}
    for path in scenarios:
        report = real.get(path.name)
        if report is None:
            rows.append(Row(path.name, "not run (time budget)", "—", "—"))
            details[path.name] = {"measured": False}
            continue
        preview = live.get(path.name) or recorded.get(path.name)
        cupti, audits = cupti_cell(trace_dir, path.stem)
        row = Row(
            path.name,
            claims_cell(report),
            compiled_cell(report, live.get(path.name), recorded.get(path.name)),
            bandwidth_cell(report),
            eager_cell(report, preview),
            cupti,
        )
        rows.append(row)
        details[path.name] = {
            "measured": True,
            **{key: value for key, value in asdict(row).items() if key != "scenario"},
            "cupti_audit": audits,
            "compile_s": report.compiled.compile_s if report.compiled else None,
            "preview_source": "live" if path.name in live else ("recorded" if path.name in recorded else None),
        }
    return rows, details


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kernel_tui.commands.gpu_check", description=__doc__.splitlines()[0]
    )
    parser.add_argument("paths", nargs="*", help="scenario files (default: the course)")
    parser.add_argument("--out", default=".cache/gpu-check", help="folder for the table, results and traces")
    parser.add_argument("--device", default="cuda", help=argparse.SUPPRESS)  # cpu, to try the script here
    parser.add_argument("--arch", type=int, default=90)
    parser.add_argument(
        "--inductor-cache", metavar="DIR", help="compile with this Inductor cache (default: an empty one, a cold run)"
    )
    options = parser.parse_args(argv)
    started = time.monotonic()
    from kernel_tui.model.scenario_file import find_scenarios

    scenarios = find_scenarios(options.paths or [course_dir()])
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as scratch:
        traces = Path(scratch) / "traces"
        traces.mkdir()
        # Cold by default: an empty Inductor cache, so the course's time is what a first run on a machine costs.
        cache = options.inductor_cache or str(Path(scratch) / "inductor-cache")
        env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": cache}
        real: dict[str, ScenarioReport] = {}
        live: dict[str, ScenarioReport] = {}
        preview_refused: str | None = None
        course_s = 0.0
        try:
            real = run_course(scenarios, options.device, traces, started + BUDGET_S - PREVIEW_BUDGET_S, env)
            course_s = time.monotonic() - started
            live, preview_refused = live_preview(scenarios, options.arch, started + BUDGET_S - time.monotonic())
        finally:
            # Written whatever happened above (a failed claim, an interrupted engine): the run's evidence.
            course_s = course_s or time.monotonic() - started
            ok = _write(
                out,
                scenarios,
                (real, live),
                traces,
                options.arch,
                course_s,
                cold=not options.inductor_cache,
                preview_refused=preview_refused,
            )
    print(f"gpu-check: {time.monotonic() - started:.0f} s; {', '.join(OUTPUT_FILES)} in {out}", file=sys.stderr)
    return 0 if ok else 1


def _write(
    out: Path,
    scenarios: list[Path],
    measured: tuple[dict[str, ScenarioReport], dict[str, ScenarioReport]],
    traces: Path,
    arch: int,
    course_s: float,
    *,
    cold: bool,
    preview_refused: str | None = None,
) -> bool:
    """Every output file, whatever happened before; True when every scenario ran and its claims held.
    ``measured``: the GPU's reports and the live preview's."""
    real, live = measured
    recorded = recorded_preview()
    rows, details = findings(scenarios, real, live, recorded, traces)
    first = next(iter(real.values()), None)
    device = device_text(first.device, first.device_name, first.threads, first.torch_version) if first else ""
    source = "live, this torch" if live else f"recorded ({RECORDED_PREVIEW.name})"
    header = f"device: {device} · preview: {source}, sm_{arch}" if first else "no scenario was measured"
    if first and not live and preview_refused:
        header += f"\nno live preview on this torch: {preview_refused}"
    fits = course_s <= BUDGET_S and len(real) == len(scenarios)
    timing = (
        f"course: {len(real)}/{len(scenarios)} scenarios measured in {course_s:.0f} s "
        f"{'from an empty Inductor cache' if cold else 'with a given Inductor cache'}: "
        + (f"within the {BUDGET_S:.0f} s budget" if fits else f"does NOT fit the {BUDGET_S:.0f} s budget")
    )
    text = f"{header}\n\n{table(rows)}\n\n{timing}\n"
    print(text)
    (out / "gpu-check.md").write_text(text, encoding="utf-8")
    summary = {
        "device": device,
        "torch": first.torch_version if first else None,
        "arch": arch,
        "preview": source,
        "preview_refused": None if live else preview_refused,
        "course_s": round(course_s, 1),
        "budget_s": BUDGET_S,
        "cold_inductor_cache": cold,
        "scenarios": details,
    }
    (out / "gpu-check.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    (out / "course.jsonl").write_text(
        "".join(json.dumps(report.to_dict()) + "\n" for report in real.values()), encoding="utf-8"
    )
    with tarfile.open(out / "traces.tar.gz", "w:gz") as archive:
        archive.add(traces, arcname="traces")
    return bool(real) and len(real) == len(scenarios) and all(report.ok for report in real.values())


if __name__ == "__main__":
    sys.exit(main())
