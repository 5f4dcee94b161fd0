"""``python -m tools.gpu_check`` (``make gpu-check``): the course on a real GPU, against the CUDA preview.

Run on a machine with a CUDA GPU, from a checkout (no install, no ``make`` and no Textual needed: the GPU
machines this project borrows have torch and rich only, and no network). One run settles what a machine
without a GPU can only predict, and leaves a handful of files, written whether or not the claims held, and
whatever stopped the check (an engine's crash, an overrun, SIGTERM):

- ``gpu-check.md``: per scenario, the claims that held, the compiled kernels against a preview made on the same
  torch at run time (version drift from the recorded preview reported apart; where there is no live preview,
  why), the eager launches against the preview's (memsets, cuBLAS splits, cub passes named), whether the
  profiler delivered a device record for every launch, and the largest elementwise kernel that read from memory
  against the measured copy ceiling (``bandwidth``); then the course's time, compiled from an empty Inductor
  cache, against its budget;
- ``gpu-check.json``: the same findings, machine-readable; ``course.jsonl``: the GPU's reports (``kernel-tui
  view`` opens them); ``traces.tar.gz``: the engine's profiler traces, for the replay tests;
- ``stderr/LESSON.log``: the whole stderr of every engine that worked on the lesson (``logs``).

The course is measured first, each lesson in an engine of its own as ``kernel-tui run`` measures it
(``course``), within ``BUDGET_S``; then the live preview, in one warm engine on a budget of its own
(``preview``). This process never imports torch; the engine child does.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from kernel_tui.commands.cli import strict_json
from kernel_tui.commands.exits import Stopped, signals_end_the_run
from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.report.report_keys import MODES
from kernel_tui.model.scenario.course import course_dir
from kernel_tui.model.storage.results_file import saved_form
from kernel_tui.text.formatting import device_text
from tools.docs.preview_table import RECORDING
from tools.gpu_check.bandwidth import bandwidth_cell, bandwidth_details
from tools.gpu_check.course import measure_course
from tools.gpu_check.findings import audit_trace, compiled_cell, eager_cell
from tools.gpu_check.logs import FOLDER as LOGS
from tools.gpu_check.logs import LessonLogs
from tools.gpu_check.preview import LivePreview, live_preview

RECORDED_PREVIEW = RECORDING
BUDGET_S = 270.0
"""The course, compiled cold, must be measured within this: what does not fit is listed as not run. The live
preview runs after it, on a budget of its own (``preview.BUDGET_S``)."""
OUTPUT_FILES = ("gpu-check.md", "gpu-check.json", "course.jsonl", "traces.tar.gz")
OUTPUT = (*OUTPUT_FILES, LOGS)
"""Everything the check leaves in its output folder: the files, and the folder of each lesson's engine logs."""


@dataclass(frozen=True)
class Row:
    scenario: str
    claims: str
    kernels: str
    bandwidth: str
    eager: str = "—"
    cupti: str = "—"


def claims_cell(report: ScenarioReport, log: str | None = None) -> str:
    """Claims held of claims made; for a lesson that failed, the error's first line and where its engine's
    stderr is kept (``log``)."""
    if report.error is not None:
        # A table row holds one line: the message's first, the file by name.
        where = f" (its engines' stderr: {log})" if log else ""
        return f"error: {report.error.short_line()}{where}"
    held = sum(check.ok is True for check in report.expect.values())
    failed = [key for key, check in report.expect.items() if check.failed]
    return f"{held}/{len(report.expect)}" + (f", failed: {', '.join(failed)}" if failed else "")


def table(rows: Iterable[Row]) -> str:
    lines = [
        "| scenario | claims held | compiled kernels: preview vs GPU | eager launches: preview vs GPU "
        "| device records | largest elementwise kernel reading memory |",
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
    live: LivePreview,
    recorded: dict[str, ScenarioReport],
    trace_dir: Path,
    logs: LessonLogs,
    not_run: str = "time budget",
) -> tuple[list[Row], dict[str, Any]]:
    """A row per scenario, and its details for the JSON; ``not_run``: why a scenario with no report has none."""
    rows: list[Row] = []
    details: dict[str, dict[str, Any]] = {}
    for path in scenarios:
        report = real.get(path.name)
        log = logs.relative(path) if logs.path(path).exists() else None
        if report is None:
            rows.append(Row(path.name, f"not run ({not_run})", "—", "—"))
            details[path.name] = {"measured": False, "not_run": not_run, "stderr_log": log}
            continue
        own = live.reports.get(path.name)
        preview = own or recorded.get(path.name)
        cupti, audits = cupti_cell(trace_dir, path.stem)
        row = Row(
            path.name,
            claims_cell(report, log),
            compiled_cell(report, own, recorded.get(path.name), live.why_not(path.name)),
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
            "preview_source": "live" if own else ("recorded" if path.name in recorded else None),
            "no_live_preview": None if own else live.why_not(path.name),
            "bandwidth_kernel": bandwidth_details(report),
            "stderr_log": log,
        }
    return rows, details


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.gpu_check", description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="scenario files (default: the course)")
    parser.add_argument("--out", default=".cache/gpu-check", help="folder for the table, results, traces and logs")
    parser.add_argument("--device", default="cuda", help=argparse.SUPPRESS)  # cpu, to try the script here
    parser.add_argument("--arch", type=int, default=90, choices=(80, 90, 100))
    parser.add_argument(
        "--inductor-cache", metavar="DIR", help="compile with this Inductor cache (default: an empty one, a cold run)"
    )
    options = parser.parse_args(argv)
    started = time.monotonic()
    from kernel_tui.model.scenario.scenario_file import find_scenarios

    scenarios = find_scenarios(options.paths or [course_dir()])
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    logs = LessonLogs(out / LOGS)
    try:
        ok = _check(options, scenarios, out, logs, started)
    except Stopped as stopped:
        print(f"gpu-check: stopped by {stopped}; what was measured is in {out}", file=sys.stderr)
        return 128 + stopped.signum
    print(f"gpu-check: {time.monotonic() - started:.0f} s; {', '.join(OUTPUT)} in {out}", file=sys.stderr)
    return 0 if ok else 1


def _check(options: argparse.Namespace, scenarios: list[Path], out: Path, logs: LessonLogs, started: float) -> bool:
    """Measure, preview, and write every output, whatever stops the first two; True when every claim held."""
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as scratch, signals_end_the_run():
        traces = Path(scratch) / "traces"
        traces.mkdir()
        # Cold by default: an empty Inductor cache, so the course's time is what a first run on a machine costs.
        cache = options.inductor_cache or str(Path(scratch) / "inductor-cache")
        env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": cache}
        real: dict[str, ScenarioReport] = {}
        live = LivePreview(
            missing={path.name: "the check was stopped before the live preview ended" for path in scenarios}
        )
        course_s = 0.0
        stopped: str | None = None
        try:
            for path, report in measure_course(scenarios, options.device, traces, started + BUDGET_S, env, logs):
                real[path.name] = report
            course_s = time.monotonic() - started
            live = live_preview(scenarios, options.arch, env, logs)
        except (Stopped, KeyboardInterrupt) as stop:
            stopped = f"the check was stopped by {stop}" if isinstance(stop, Stopped) else "the check was interrupted"
            raise
        finally:
            # Written whatever happened above (a failed claim, an interrupted engine): the run's evidence.
            course_s = course_s or time.monotonic() - started
            logs.close()
            ok = _write(
                out,
                scenarios,
                (real, live),
                traces,
                logs,
                options.arch,
                course_s,
                cold=not options.inductor_cache,
                stopped=stopped,
            )
    return ok


def _write(
    out: Path,
    scenarios: list[Path],
    measured: tuple[dict[str, ScenarioReport], LivePreview],
    traces: Path,
    logs: LessonLogs,
    arch: int,
    course_s: float,
    *,
    cold: bool,
    stopped: str | None = None,
) -> bool:
    """Every output file, whatever happened before; True when every scenario ran and its claims held.
    ``measured``: the GPU's reports and the live preview's; ``stopped``: what stopped the check, if anything did."""
    real, live = measured
    recorded = recorded_preview()
    rows, details = findings(scenarios, real, live, recorded, traces, logs, stopped or "time budget")
    first = next(iter(real.values()), None)
    device = device_text(first.device, first.device_name, first.threads, first.torch_version) if first else ""
    header = f"device: {device} · {preview_line(live, len(scenarios), arch)}" if first else "no scenario was measured"
    fits = course_s <= BUDGET_S and len(real) == len(scenarios)
    timing = (
        f"course: {len(real)}/{len(scenarios)} scenarios measured in {course_s:.0f} s "
        f"{'from an empty Inductor cache' if cold else 'with a given Inductor cache'}: "
        + (f"within the {BUDGET_S:.0f} s budget" if fits else f"does NOT fit the {BUDGET_S:.0f} s budget")
        + (f" ({stopped})" if stopped else "")
    )
    text = f"{header}\n\n{table(rows)}\n\n{timing}\n\nevery engine's stderr, per lesson: {LOGS}/\n"
    print(text)
    (out / "gpu-check.md").write_text(text, encoding="utf-8")
    summary = {
        "device": device,
        "torch": first.torch_version if first else None,
        "arch": arch,
        "preview": {
            "live": len(live.reports),
            "lessons": len(scenarios),
            "seconds": round(live.seconds, 1),
            "budget_s": live.budget_s,
            "torch": live.torch_version,
            "recording": RECORDED_PREVIEW.name,
        },
        "course_s": round(course_s, 1),
        "budget_s": BUDGET_S,
        "cold_inductor_cache": cold,
        "scenarios": details,
    }
    (out / "gpu-check.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    (out / "course.jsonl").write_text(
        "".join(json.dumps(strict_json(saved_form(report)), allow_nan=False) + "\n" for report in real.values()),
        encoding="utf-8",
    )
    with tarfile.open(out / "traces.tar.gz", "w:gz") as archive:
        archive.add(traces, arcname="traces")
    return bool(real) and len(real) == len(scenarios) and all(report.ok for report in real.values())


def preview_line(live: LivePreview, count: int, arch: int) -> str:
    """The header's word on the preview the GPU is compared with: live on this torch, or the recording, and why."""
    if len(live.reports) == count:
        return f"preview: live, this torch, sm_{arch} ({live.summary(count)})"
    source = f"preview: recorded ({RECORDED_PREVIEW.name}), sm_{arch}"
    reasons = set(live.missing.values())
    if not live.reports:
        why = reasons.pop() if len(reasons) == 1 else "each row says why"
        return f"{source}\nno live preview on this torch: {why}"
    return f"{source}, where a row says there is no live one\nlive preview: {live.summary(count)}"
