"""``make gpu-check``: the course on a real GPU, against the CUDA preview, in one table.

Run on a machine with a CUDA GPU, from a checkout (no install needed: the GPU machines this project borrows
have torch and rich but no Textual, and no network). It runs the course with ``kernel-tui run --device cuda
--json`` in a fresh engine, reads the preview of the same scenarios (run live where this torch can run the
preview, else the recording made beforehand on a machine without a GPU), and prints per scenario: the
claims that held, the preview's compiled kernels against the GPU's (same, or how they differ), and the
achieved bandwidth of the largest elementwise kernel against the measured copy ceiling. The engine's own
profiler traces are packed beside the table so they can join the replay tests (``tests/cuda_replay.py``).

This process never imports torch; the engine child does.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from kernel_tui.course import course_dir
from kernel_tui.formatting import bandwidth_text, device_text
from kernel_tui.names import is_elementwise, triton_kind
from kernel_tui.report import Kernel, ScenarioReport
from kernel_tui.report_keys import MODES

RECORDED_PREVIEW = Path(__file__).resolve().parent.parent / "tests" / "data" / "preview" / "course_sm90.jsonl"
BUDGET_S = 270.0
"""The whole check must end within five minutes: what does not fit is listed as not run."""
PREVIEW_BUDGET_S = 60.0
"""Kept for the preview (about 0.2 s a scenario in a warm engine); a recording stands in if it runs out."""


@dataclass(frozen=True)
class Row:
    scenario: str
    claims: str
    kernels: str
    bandwidth: str


def inductor_kernels(report: ScenarioReport) -> list[str]:
    """The compiled side's Triton kernels in launch order, a name per launch."""
    if report.compiled is None:
        return []
    names: list[str] = []
    for kernel in report.compiled.kernels:
        if triton_kind(kernel.name) is not None:
            names.extend([kernel.name] * max(int(round(kernel.calls)), 1))
    return names


def library_launches(report: ScenarioReport) -> int:
    """Compiled launches that are not Inductor's own kernels: library calls, copies, fills."""
    if report.compiled is None:
        return 0
    return int(round(sum(k.calls for k in report.compiled.kernels if triton_kind(k.name) is None)))


def compare_kernels(real: ScenarioReport, preview: ScenarioReport | None) -> str:
    if preview is None:
        return "no preview recorded"
    if preview.error is not None:
        return f"preview failed: {preview.error.message}"
    if real.compiled is None:
        return "no compiled result on the GPU"
    ours, theirs = inductor_kernels(real), inductor_kernels(preview)
    differences = []
    if ours != theirs:
        missing = [name for name in theirs if name not in ours]
        extra = [name for name in ours if name not in theirs]
        detail = []
        if missing:
            detail.append("preview only: " + ", ".join(missing))
        if extra:
            detail.append("GPU only: " + ", ".join(extra))
        if not detail:
            detail.append("same kernels, other order")
        differences.append("; ".join(detail))
    if library_launches(real) != library_launches(preview):
        differences.append(f"library launches: preview {library_launches(preview)}, GPU {library_launches(real)}")
    if not differences:
        return f"same ({len(ours)} Triton, {library_launches(real)} library)"
    return "different: " + " · ".join(differences)


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
        "| scenario | claims held | compiled kernels: preview vs GPU | largest elementwise kernel |",
        "| --- | --- | --- | --- |",
    ]
    for row in rows:
        cells = [cell.replace("|", "\\|") for cell in (row.scenario, row.claims, row.kernels, row.bandwidth)]
        lines.append("| " + " | ".join(cells) + " |")
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


def run_course(scenarios: list[Path], device: str, trace_dir: Path, deadline: float) -> dict[str, ScenarioReport]:
    """``kernel-tui run`` on each scenario in one engine, ended at ``deadline`` whatever it is doing."""
    remaining = max(deadline - time.monotonic(), 1.0)
    command = run_command(scenarios, device, "--no-sweep", "--timeout", f"{remaining:.0f}", "--trace", str(trace_dir))
    reports: dict[str, ScenarioReport] = {}
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as process:
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


def preview_reports(scenarios: list[Path], arch: int, budget_s: float) -> tuple[dict[str, ScenarioReport], str]:
    """The preview run live where this torch can, else the recording; and which of the two it was."""
    command = run_command(scenarios, "cuda-preview", "--arch", str(arch))
    try:
        live = subprocess.run(command, capture_output=True, text=True, timeout=max(budget_s, 1.0), check=False)
        reports = read_reports(live.stdout.splitlines())
    except subprocess.TimeoutExpired:
        reports = {}
    if reports and not any(r.error is not None and r.error.stage == "engine" for r in reports.values()):
        return reports, "live"
    if RECORDED_PREVIEW.exists():
        recorded = RECORDED_PREVIEW.read_text(encoding="utf-8").splitlines()
        return read_reports(recorded), f"recorded ({RECORDED_PREVIEW.name})"
    return {}, "none"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kernel_tui.gpu_check", description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="scenario files (default: the course)")
    parser.add_argument("--out", default=".cache/gpu-check", help="folder for the table and the traces")
    parser.add_argument("--device", default="cuda", help=argparse.SUPPRESS)  # cpu, to try the script here
    parser.add_argument("--arch", type=int, default=90)
    options = parser.parse_args(argv)
    started = time.monotonic()
    from kernel_tui.scenario_file import find_scenarios

    scenarios = find_scenarios(options.paths or [course_dir()])
    out = Path(options.out)
    traces = out / "traces"
    traces.mkdir(parents=True, exist_ok=True)
    real = run_course(scenarios, options.device, traces, started + BUDGET_S - PREVIEW_BUDGET_S)
    preview, source = preview_reports(scenarios, options.arch, started + BUDGET_S - time.monotonic())
    rows = []
    for path in scenarios:
        report = real.get(path.name)
        if report is None:
            rows.append(Row(path.name, "not run (time budget)", "—", "—"))
            continue
        rows.append(
            Row(path.name, claims_cell(report), compare_kernels(report, preview.get(path.name)), bandwidth_cell(report))
        )
    first = next(iter(real.values()), None)
    device = device_text(first.device, first.device_name, first.threads, first.torch_version) if first else ""
    header = f"device: {device} · preview: {source}, sm_{options.arch}" if first else "no scenario was measured"
    text = f"{header}\n\n{table(rows)}\n"
    print(text)
    (out / "gpu-check.md").write_text(text, encoding="utf-8")
    with tarfile.open(out / "traces.tar.gz", "w:gz") as archive:
        archive.add(traces, arcname="traces")
    (out / "course.jsonl").write_text(
        "".join(json.dumps(report.to_dict()) + "\n" for report in real.values()), encoding="utf-8"
    )
    print(f"gpu-check: {time.monotonic() - started:.0f} s; table, results and traces in {out}", file=sys.stderr)
    return 0 if real and all(report.ok for report in real.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
