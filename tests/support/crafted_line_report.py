"""A crafted, schema-valid results file that stresses the per-line tables: many kernels, each on every one of
many lines (600 × 600 is 5.6 MB), built from the recorded add+relu report (no committed blob)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from support.hostile_results import template


def every_kernel_on_every_line(kernels: int, lines: int) -> dict[str, Any]:
    report = template()
    report["variants"] = {}
    report["source"] = "".join(f"x{number} = a + b  # line {number}\n" for number in range(1, lines + 1))
    on_lines = list(range(1, lines + 1))
    for mode in ("eager", "compiled"):
        first = report[mode]["kernels"][0]
        rows = []
        for number in range(kernels):
            row = copy.deepcopy(first)
            row["name"] = f"{first['name']}_{number}"
            row["short_name"] = f"{first['short_name']}_{number}"
            row["lines"] = on_lines
            row["line_calls"] = []
            row["calls"] = lines if mode == "eager" else 1
            rows.append(row)
        report[mode]["kernels"] = rows
        report[mode]["kernel_count"] = sum(row["calls"] for row in rows)
    report["expect"] = {}
    return report


def write_crafted(folder: Path, kernels: int = 600, lines: int = 600) -> Path:
    path = folder / "crafted.jsonl"
    path.write_text(json.dumps({"format_version": 1, **every_kernel_on_every_line(kernels, lines)}) + "\n")
    return path
