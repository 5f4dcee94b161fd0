"""``kernel-tui run ... --json`` as a user types it, in a child process: the CLI tests' one way to run it and
read what it printed, each line as strict JSON (JSON has no NaN or Infinity: one in the output is a bug)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple


class CliRun(NamedTuple):
    """What one ``kernel-tui run --json`` left: its exit status, its reports (one per line) and its stderr."""

    returncode: int
    reports: list[dict[str, Any]]
    stderr: str


def strict_loads(line: str) -> dict[str, Any]:
    def refuse(constant: str) -> None:
        raise AssertionError(f"not strict JSON: {constant}")

    loaded: dict[str, Any] = json.loads(line, parse_constant=refuse)
    return loaded


def kernel_tui(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """``kernel-tui ARGS`` as typed, its output captured as text."""
    return subprocess.run([sys.executable, "-m", "kernel_tui", *args], capture_output=True, text=True, timeout=timeout)


def run_json(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None, timeout: float | None = 600
) -> CliRun:
    """``kernel-tui run --json ARGS`` (the device, sweep and paths are the caller's ``args``)."""
    result = subprocess.run(
        [sys.executable, "-m", "kernel_tui", "run", "--json", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=cwd,
    )
    return CliRun(result.returncode, [strict_loads(line) for line in result.stdout.splitlines()], result.stderr)
