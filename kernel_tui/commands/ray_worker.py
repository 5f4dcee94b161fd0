"""One scenario measured on a Ray worker: the worker runs ``kernel-tui run --json`` as a local run would.

Ray ships this module's function by reference, so kernel-tui must be installed on every node. The scenario's
text travels with the task: a node that sees the same file at the same path (a shared filesystem) measures it
where it is, any other measures a copy under the same file name, and the paths in its report are written back
as the submitter's. The command line is the usual one, engine child process and all, so a scenario patches only
its own engine, on the worker as at home.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

STDERR_KEPT = 4000
"""The characters of a worker's stderr sent back: enough for the traceback of a run that went wrong."""
END_WAIT_S = 5.0
"""How long a cancelled run is given to end its engine (SIGTERM) before it is killed."""


@dataclass(frozen=True)
class ScenarioJob:
    """What one Ray task measures: a scenario file, its text, and the ``run`` options that apply to it."""

    path: str
    """The scenario's absolute path on the machine that submitted it."""
    source: str | None
    """Its text, read there; None when it could not be read (the worker's run then reports why)."""
    run_arguments: tuple[str, ...]
    """``kernel-tui run`` options for the worker, without the paths and without ``--json``."""


@dataclass(frozen=True)
class WorkerResult:
    """What came back from one Ray task: the run's exit status, its JSON lines and where it ran."""

    returncode: int
    lines: tuple[str, ...]
    """The ``--json`` lines the worker's run printed (one per scenario), paths already the submitter's."""
    stderr_tail: str
    """The end of the run's stderr: what the scenario printed, and why a run that printed no report failed."""
    node: str
    """The worker's host name."""


def measure_on_worker(job: ScenarioJob) -> WorkerResult:
    """Run ``kernel-tui run --json`` on this node for ``job``'s scenario (the body of each Ray task)."""
    from kernel_tui.transport.boot import python_command

    with contextlib.ExitStack() as cleanup:

        def scratch() -> Path:
            return Path(cleanup.enter_context(tempfile.TemporaryDirectory(prefix="kernel-tui-ray-")))

        target = _scenario_here(job, scratch)
        process = subprocess.Popen(
            python_command("kernel_tui", "run", "--json", *job.run_arguments, str(target)),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            stdout, stderr = process.communicate()
        except BaseException:
            # ray.cancel raises KeyboardInterrupt here: the run ends its engine on SIGTERM, as at a terminal.
            process.terminate()
            try:
                process.wait(END_WAIT_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            raise
        lines = tuple(_as_submitted(line, str(target), job.path) for line in stdout.splitlines() if line.strip())
    return WorkerResult(process.returncode, lines, stderr[-STDERR_KEPT:], socket.gethostname())


def _scenario_here(job: ScenarioJob, scratch: Callable[[], Path]) -> Path:
    """The file this node measures: the submitter's own where it sees the same text there, else a copy in a
    folder ``scratch`` makes. Made only for a copy: a worker that Ray kills outright (a cancelled run, a cluster
    shut down) leaves its folder behind, and on a shared filesystem none is needed."""
    original = Path(job.path)
    if job.source is None:
        return original
    try:
        if original.read_text(encoding="utf-8") == job.source:
            return original
    except (OSError, UnicodeDecodeError):
        pass
    copy = scratch() / original.name
    copy.write_text(job.source, encoding="utf-8")
    return copy


def _as_submitted(line: str, here: str, submitted: str) -> str:
    """A report line with the worker's copy's path written as the submitter's path (unchanged for a shared file)."""
    if here == submitted:
        return line
    import json

    try:
        data = json.loads(line)
    except ValueError:
        return line  # not a report: the submitting side says so, with the line
    return json.dumps(_replace_path(data, here, submitted), allow_nan=False)


def _replace_path(value: Any, here: str, submitted: str) -> Any:
    if isinstance(value, str):
        return submitted + value[len(here) :] if value.startswith(here) else value
    if isinstance(value, dict):
        return {key: _replace_path(item, here, submitted) for key, item in value.items()}
    if isinstance(value, list):
        return [_replace_path(item, here, submitted) for item in value]
    return value
