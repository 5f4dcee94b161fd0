"""Helpers shared by the benchmarks: run the CLI as a user would, and read its JSON."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kernel_tui.transport.protocol import Done

if TYPE_CHECKING:
    from kernel_tui.model.report.report import ScenarioReport
    from kernel_tui.transport.client import EngineClient

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))  # the tests' way of running the CLI (tests/support/cli_support.py)
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(REPO / ".cache" / "inductor"))

from support import cli_support as cli_support  # noqa: E402  (re-exported: benchmarks run the CLI the tests' way)


def run_json(*args: str) -> list[dict[str, Any]]:
    """``kernel-tui run ... --json``: one report per scenario."""
    done = cli_support.run_json(*args, cwd=REPO, timeout=None)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"kernel-tui run failed ({done.returncode}): {done.stderr[-2000:]}")
    return done.reports


def final_report(client: EngineClient, path: Path, **run_options: Any) -> ScenarioReport:
    """Run ``path`` in ``client``'s engine to the end: its final report, which must have no error."""
    report = None
    for message in client.run(str(path), **run_options):
        if isinstance(message, Done):
            report = message.report
    if report is None or report.error is not None:
        raise RuntimeError(f"{path.name}: {report.error.one_line() if report and report.error else 'no report'}")
    return report


def row_line(row: dict[str, Any]) -> str:
    """A benchmark row as its command line prints it alone: its figure, its ratio and whether it met its target."""
    return f"{row['name']}: {row['value']}; ratio {row['ratio']:.2f} ({'met' if row['met'] else 'missed'})"
