"""Helpers shared by the benchmarks: run the CLI as a user would, and read its JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(REPO / ".cache" / "inductor"))


def run_json(*args: str) -> list[dict]:
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
