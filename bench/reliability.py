"""Reliability of ``kernel-tui run``: each fault, what the user sees, and how long recovery takes.

Each fault scenario runs followed by a healthy one in the same ``kernel-tui run``; reports arrive as JSON
lines and are timestamped as they arrive. "Reported after" is the time from the previous report to the
fault's; "next result after" is the time from the fault's report to the healthy scenario's, against the
same healthy scenario's time on a warm engine (the baseline, measured in the same run).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from common import REPO

FAULTS = REPO / "tests" / "data" / "faults"
HEALTHY = REPO / "tests" / "data" / "views_only.py"
CASES = [
    ("syntax error", None),
    ("import error", FAULTS / "import_error.py"),
    ("fn returns None", FAULTS / "returns_none.py"),
    ("compile fails", FAULTS / "bad_backend.py"),
    ("allocation fails in the sweep", FAULTS / "too_big.py"),
    ("os._exit(3)", FAULTS / "exits.py"),
    ("segfault", FAULTS / "segfaults.py"),
    ("hangs (--timeout 10)", FAULTS / "hangs.py"),
]


def _timed_reports(paths: list[Path], *extra: str) -> list[tuple[float, dict[str, Any]]]:
    command = [
        sys.executable,
        "-m",
        "kernel_tui",
        "run",
        "--json",
        "--device",
        "cpu",
        "--timeout",
        "10",
        *extra,
        *map(str, paths),
    ]
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=REPO)
    arrivals = []
    assert process.stdout is not None
    for line in process.stdout:
        arrivals.append((time.perf_counter() - started, json.loads(line)))
    process.wait()
    return arrivals


def _what_the_user_sees(report: dict[str, Any]) -> str:
    if report["error"]:
        error = report["error"]
        where = f"{Path(error['file']).name}:{error['line']}" if error.get("line") else Path(error["file"]).name
        message = error["message"].replace("`", "'")[:70]
        return f"`{where}: {error['stage']}: {message}`"
    notes = [point["note"] for point in report["sweep"] if point.get("note")]
    return f"results, sweep note: `{notes[0][:60]}`" if notes else "results"


def measure_table(tmp: Path) -> str:
    syntax = tmp / "syntax_error.py"
    syntax.write_text("def fn(a):\n    return a +\n")
    baseline = _timed_reports([HEALTHY, HEALTHY], "--no-sweep")
    warm_s = baseline[1][0] - baseline[0][0]
    rows = [
        "| fault | what the user sees | reported after | next result after | exit status |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for label, path in CASES:
        fault = path or syntax
        extra = ("--sizes", "1024,2048,4096") if fault.name == "too_big.py" else ("--no-sweep",)
        (first_at, _), (fault_at, report), (next_at, healthy) = _timed_reports([HEALTHY, fault, HEALTHY], *extra)
        assert healthy["error"] is None, healthy["error"]
        rows.append(
            f"| {label} | {_what_the_user_sees(report)} | {fault_at - first_at:.1f} s "
            f"| {next_at - fault_at:.1f} s | {0 if _ok(report) else 1} |"
        )
    rows.append(f"| (baseline: the healthy scenario on a warm engine) | results | | {warm_s:.1f} s | 0 |")
    return "\n".join(rows)


def _ok(report: dict[str, Any]) -> bool:
    return report["error"] is None and all(check["ok"] for check in report["expect"].values())


async def _app_fault(path: Path, cancel_after_s: float | None) -> tuple[str, float, float]:
    """In the explorer: press r on ``path`` (and Esc after ``cancel_after_s``); return what the status line
    shows, the seconds until the failure was shown, and the seconds from then until the engine was ready."""
    sys.path.insert(0, str(REPO / "tests"))
    from support.ui_support import shown_text

    from kernel_tui.ui.app.app import KernelTuiApp
    from kernel_tui.ui.state.course.catalog import load_catalog

    app = KernelTuiApp(load_catalog([path], course=None), device="cpu")
    async with app.run_test(size=(160, 48)) as pilot:
        explorer = app.get_explorer()
        assert explorer is not None
        while explorer.hello is None:
            await pilot.pause(0.05)
        started = time.perf_counter()
        await pilot.press("r")
        if cancel_after_s is not None:
            await pilot.pause(cancel_after_s)
            started = time.perf_counter()
            await pilot.press("escape")
        while path not in explorer.runs or explorer.runs[path].running:
            await pilot.pause(0.01)
        shown_at = time.perf_counter()
        seen = shown_text(explorer.query_one("#status-text")).strip().splitlines()[0]
        while explorer.hello is None:
            await pilot.pause(0.05)
        return seen, shown_at - started, time.perf_counter() - shown_at


def app_table() -> str:
    import asyncio

    rows = [
        "| fault in the explorer | what the user sees | shown after | engine ready again after |",
        "| --- | --- | ---: | ---: |",
    ]
    for label, path, cancel in (
        ("os._exit(3)", FAULTS / "exits.py", None),
        ("segfault", FAULTS / "segfaults.py", None),
        ("hangs, Esc pressed", FAULTS / "hangs.py", 3.0),
    ):
        seen, shown_s, ready_s = asyncio.run(_app_fault(path, cancel))
        rows.append(f"| {label} | `{seen[:80]}` | {shown_s:.2f} s | {ready_s:.1f} s |")
    return "\n".join(rows)


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        print(measure_table(Path(tmp)))
    print()
    print(app_table())
