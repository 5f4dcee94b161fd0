"""Start-up of ``kernel-tui view`` on a 20-scenario results file: launch to first painted frame, against the
explorer's own start-up on the course.

Measured as ``bench/startup.py`` measures the explorer (same pseudo-terminal, same clock: until the app's
title reaches the terminal with its first frame; both quit by themselves then). The results file is
synthesized: one real ``kernel-tui run --json`` of ``tests/data/add_relu.py`` at a small size with a sweep,
repeated for the first 20 lessons of the course, each copy carrying that lesson's path, title and source, so
the catalog reads 20 distinct lessons from carried text as it would from a real course run (whose kernel
tables, not shown before the first run, would only make the file longer). ``view`` pays for reading and
checking the JSON on top of what the explorer does; it starts no engine either way before the first frame.

Target: at most 1.2x the explorer's start-up.

    .venv/bin/python bench/view_startup.py [--runs 7] [--size 80x24]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

from common import REPO, run_json
from startup import launch_env, measure_alternated, paired_ratio, summary

from kernel_tui.model.scenario.course import course_dir
from kernel_tui.model.scenario.scenario_file import find_scenarios, read_scenario, read_source

SEED = REPO / "tests" / "data" / "add_relu.py"
SCENARIOS = 20
TARGET_RATIO = 1.2
VIEW_MARKER = b"kernel-tui view"
EXPLORER_MARKER = b"kernel-tui"
"""Each app's title, written with its first frame (the header)."""


def results_file(folder: Path) -> Path:
    """A results file of ``SCENARIOS`` reports: one measured report, dressed as each of the first lessons."""
    (seed,) = run_json(str(SEED), "--size", "4096", "--sizes", "1024,4096")
    lessons = find_scenarios([course_dir()])[:SCENARIOS]
    if len(lessons) < SCENARIOS:
        raise SystemExit(f"the course has {len(lessons)} lessons, the bench needs {SCENARIOS}")
    target = folder / "results.jsonl"
    with target.open("w", encoding="utf-8") as out:
        for lesson in lessons:
            report = {
                **seed,
                "scenario": str(lesson),
                "title": read_scenario(lesson).title,
                "source": read_source(lesson),
            }
            out.write(json.dumps(report) + "\n")
    return target


def compare(size: tuple[int, int], runs: int) -> tuple[list[float], list[float], list[float], list[float]]:
    """(view to first frame, view to exit, explorer to first frame, explorer to exit), seconds per run."""
    with tempfile.TemporaryDirectory() as folder:
        view_command = [sys.executable, "-m", "kernel_tui", "view", str(results_file(Path(folder)))]
        explorer_command = [sys.executable, "-m", "kernel_tui"]
        (view, view_exit), (explorer, explorer_exit) = measure_alternated(
            [(view_command, VIEW_MARKER), (explorer_command, EXPLORER_MARKER)], launch_env(), size, runs
        )
    return view, view_exit, explorer, explorer_exit


def rows(size: tuple[int, int] = (80, 24), runs: int = 7) -> list[dict[str, object]]:
    """The figure for ``bench/run_all.py``."""
    view, _, explorer, _ = compare(size, runs)
    ratio = paired_ratio(view, explorer)
    return [
        {
            "name": f"kernel-tui view of a {SCENARIOS}-scenario results file: launch to first painted frame at "
            f"{size[0]}x{size[1]}, vs the explorer on the course",
            "value": f"{statistics.median(view):.2f} s vs {statistics.median(explorer):.2f} s",
            "ratio": ratio,
            "target": f"<= {TARGET_RATIO}x",
            "met": ratio <= TARGET_RATIO,
            "cause": "view reads and checks every report of the file (json, ScenarioReport.from_dict) and parses "
            "each carried source before its first frame, on top of the explorer's own start-up.",
        }
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--size", default="80x24", help="terminal COLUMNSxROWS (default 80x24)")
    options = parser.parse_args()
    columns, rows_ = (int(part) for part in options.size.split("x"))
    view, view_exit, explorer, explorer_exit = compare((columns, rows_), options.runs)
    ratio = paired_ratio(view, explorer)
    print(f"launch to first frame at {columns}x{rows_}, {options.runs} runs each:")
    print(f"  kernel-tui view, {SCENARIOS} saved scenarios: {summary(view)}; to exit {summary(view_exit)}")
    print(f"  kernel-tui explorer on the course: {summary(explorer)}; to exit {summary(explorer_exit)}")
    print(f"  ratio: {ratio:.2f}x (target <= {TARGET_RATIO}x)")
    return 0 if ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    raise SystemExit(main())
