"""Helpers shared by the benchmarks: run the CLI as a user would, and read its JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kernel_tui.transport.protocol import Done

if TYPE_CHECKING:
    from kernel_tui.model.report import ScenarioReport
    from kernel_tui.transport.client import EngineClient

REPO = Path(__file__).resolve().parent.parent
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(REPO / ".cache" / "inductor"))


def run_json(*args: str) -> list[dict[str, Any]]:
    """``kernel-tui run ... --json``: one report per scenario."""
    result = subprocess.run(
        [sys.executable, "-m", "kernel_tui", "run", "--json", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
    )
    if result.returncode not in (0, 1):
        raise RuntimeError(f"kernel-tui run failed ({result.returncode}): {result.stderr[-2000:]}")
    return [json.loads(line) for line in result.stdout.splitlines()]


def final_report(client: EngineClient, path: Path, **run_options: Any) -> ScenarioReport:
    """Run ``path`` in ``client``'s engine to the end: its final report, which must have no error."""
    report = None
    for message in client.run(str(path), **run_options):
        if isinstance(message, Done):
            report = message.report
    if report is None or report.error is not None:
        raise RuntimeError(f"{path.name}: {report.error.one_line() if report and report.error else 'no report'}")
    return report
