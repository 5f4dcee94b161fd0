"""The report a run starts from, before anything is measured: the scenario's title and size, the device and torch.

Every run's report is started here: a measurement's and a preview's (``engine/stages/pipeline.py``), and that of a run
the engine could not finish, which still names the device, torch and the size."""

from __future__ import annotations

from pathlib import Path

from kernel_tui.model.report.report import ScenarioError, ScenarioReport
from kernel_tui.model.scenario.scenario_file import ScenarioFileError, ScenarioInfo, read_scenario


def report_skeleton(
    path: str | Path,
    device: str,
    device_name: str,
    torch_version: str,
    *,
    size: int | None = None,
    info: ScenarioInfo | None = None,
    threads: int | None = None,
    arch: int | None = None,
    assumptions: tuple[str, ...] = (),
    error: ScenarioError | None = None,
) -> ScenarioReport:
    """The report of ``path`` with nothing measured: titled and sized from ``info`` (its file read without
    running it) where there is one, else by the file's name, at ``size`` (None: the file's own SIZE, or 0)."""
    return ScenarioReport(
        scenario=str(path),
        title=info.title if info is not None else Path(path).stem,
        device=device,
        device_name=device_name,
        torch_version=torch_version,
        size=size or (info.size if info is not None else 0),
        threads=threads,
        arch=arch,
        assumptions=assumptions,
        error=error,
    )


def read_info(path: str | Path) -> ScenarioInfo | None:
    """What the file says of itself without running it (title, size, claims); None where it does not parse."""
    try:
        return read_scenario(path)
    except ScenarioFileError:
        return None
