"""The table of what the CUDA preview expects of each lesson in ``docs/GPU.md``, generated from the recording.

The table is written from ``tests/data/preview/course_sm90.jsonl`` into the page by ``python -m
tools.docs``, with the docs' other generated sections. No torch is imported.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from kernel_tui.model.report.report import ScenarioReport

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.mode_result import ModeResult

ROOT = Path(__file__).resolve().parents[2]
RECORDING = ROOT / "tests" / "data" / "preview" / "course_sm90.jsonl"
PREDICTED = "*"


def read_recording(path: Path = RECORDING) -> list[ScenarioReport]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [ScenarioReport.from_dict(json.loads(line)) for line in lines if line.startswith("{")]


def _launches(mode: ModeResult | None) -> str:
    if mode is None:
        return "—"
    count = f"{mode.kernel_count:g}"
    return count + (PREDICTED if any(kernel.predicted for kernel in mode.kernels) else "")


def _names(kernels: tuple[Kernel, ...] | list[Kernel]) -> str:
    shown = [
        f"`{kernel.short_name if kernel.kind == 'memcpy' else kernel.name}`"
        + (f" ×{kernel.calls:g}" if kernel.calls != 1 else "")
        for kernel in kernels
    ]
    return ", ".join(shown) or "—"


def _compiled(report: ScenarioReport) -> str:
    if report.error is not None:
        return f"preview failed: {report.error.message.splitlines()[0]}"
    mode = report.compiled
    if mode is None:
        return "—"
    if not mode.is_training:
        return _names(mode.kernels)
    return "; ".join(f"{section}: {_names(mode.section(section))}" for section in ("forward", "backward"))


def table(reports: list[ScenarioReport]) -> str:
    lines = [
        "| scenario | eager launches | compiled launches | compiled kernels, in launch order |",
        "| --- | --- | --- | --- |",
    ]
    for report in reports:
        name = Path(report.scenario).name
        cells = (name, _launches(report.eager), _launches(report.compiled), _compiled(report))
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)
