"""Run every benchmark in bench/ in one go, print one table of ratios, and record it in bench/RESULTS.md.

Each benchmark module gives rows (dicts with name, value, ratio, target and met) from ``rows()``, or one
from ``measure()``; figures are measured in this run against baselines measured in this run, since these
machines are shared and noisy.
"""

from __future__ import annotations

import datetime
import importlib
import os
import platform
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

BENCHMARKS = [
    "startup",
    "view_startup",
    "answer_time",
    "first_answer",
    "warmup_saving",
    "fidelity",
    "sweep_cost",
    "scale",
    "app_timing",
    "preview",
    "train_step",
    "line_cost",
    "ceiling_cost",
    "call_breakdown_cost",
    "engine_start",
    "run_cpu",
    "model_step",
]


def _versions() -> str:
    probe = "import torch, textual; print(torch.__version__, textual.__version__)"
    torch_version, textual_version = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split()
    return f"Python {platform.python_version()}, torch {torch_version}, textual {textual_version}"


def main() -> int:
    rows = []
    for name in BENCHMARKS:
        module = importlib.import_module(name)
        print(f"running {name} ...", file=sys.stderr, flush=True)
        found = module.rows() if hasattr(module, "rows") else module.measure()
        rows.extend(found if isinstance(found, list) else [found])
    lines = [
        "# Benchmark results",
        "",
        f"Measured {datetime.date.today().isoformat()} on {platform.node() or 'this machine'}: "
        f"{os.cpu_count()} CPUs, {platform.machine()}; {_versions()}.",
        "",
        "| figure | measured | ratio | target | met |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        met = "yes" if row["met"] else "**missed**"
        lines.append(f"| {row['name']} | {row['value']} | {row['ratio']:.2f} | {row['target']} | {met} |")
    missed = [row for row in rows if not row["met"]]
    if missed:
        lines += ["", "## Missed targets and their causes", ""]
        lines += [f"- **{row['name']}**: {row.get('cause', 'cause not known yet')}" for row in missed]
    text = "\n".join(lines) + "\n"
    print(text)
    (HERE / "RESULTS.md").write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
