"""An engine link for saved results (``kernel-tui view``): each run shows a saved report again, nothing runs.

``kernel-tui run --json`` on the machine with the GPU writes the reports; this link hands them to the
explorer through the same interface as the real engine, so the tables, the sweep, the chart, the code view
and the details fill exactly as after a run. It never starts a process: a run of anything that was not
saved (a snippet, a file opened here) ends at once with ``VIEW_MODE_REFUSAL``.
"""

from __future__ import annotations

import datetime
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kernel_tui.model.compare.device_columns import by_scenario, scenario_key
from kernel_tui.text.formatting import device_text

if TYPE_CHECKING:
    from kernel_tui.model.report.report import ScenarioReport
    from kernel_tui.transport.protocol import Hello, RunMessage, Warmup
    from kernel_tui.ui.link.engine_link import CompileVariants
    from kernel_tui.ui.link.run_lifecycle import EngineRun, RunLifecycle, RunMessages

VIEW_MODE_REFUSAL = "view mode: nothing runs here (run kernel-tui run … on the machine with the GPU)"


@dataclass(frozen=True)
class SavedReport:
    """One report as read from a results file, with where and when that file was written."""

    report: ScenarioReport
    results_file: Path
    saved_at: datetime.datetime | None = None
    """The results file's modification time: the reports carry no date of their own."""

    @property
    def path(self) -> Path:
        return Path(self.report.scenario)

    def origin(self) -> str:
        """``saved results from cpu (AMD EPYC, 2 threads) · torch 2.14.1 · 2026-11-30 16:20``."""
        report = self.report
        where = device_text(report.device, report.device_name, report.threads, report.torch_version)
        when = f" · {self.saved_at:%Y-%m-%d %H:%M}" if self.saved_at is not None else ""
        return f"saved results from {where}{when}"


def saved_reports(reports: Sequence[ScenarioReport], results_file: Path) -> list[SavedReport]:
    """The reports of one results file, dated by the file."""
    try:
        saved_at: datetime.datetime | None = datetime.datetime.fromtimestamp(results_file.stat().st_mtime)
    except OSError:
        saved_at = None
    return [SavedReport(report, results_file, saved_at) for report in reports]


class SavedResultsLink:
    """An ``EngineLink`` whose every run of a saved scenario replays its report as a finished run."""

    def __init__(self, saved: Sequence[SavedReport]) -> None:
        if not saved:
            raise ValueError("saved results need at least one report")
        # A scenario saved twice (two results files) shows the later one, as the catalog lists it once.
        self.saved = {entry.path: entry for entry in saved}
        self.columns = {scenario_key(columns[0]): columns for columns in by_scenario(e.report for e in saved)}
        """Every saved report of each scenario (by file name), one per device, torch and architecture: the device
        columns (``m``)."""
        self.log_path: Path | None = None  # no engine runs: nothing is logged
        self.runs: list[Path] = []
        """Each run asked for: what a test asserts about."""
        self._lifecycle: RunLifecycle | None = None
        """The runs, numbered and read one at a time as the engine's are; nothing cancels or closes them. Made
        by the first run (on the UI's thread, as every run is asked for), after the explorer's first frame."""

    def saved_for(self, path: Path) -> SavedReport | None:
        return self.saved.get(path)

    def columns_for(self, path: Path) -> tuple[ScenarioReport, ...]:
        """The reports of ``path``'s scenario from every machine saved, in the order the files were given."""
        return self.columns.get(path.name, ())

    # The protocol's messages are built only once the explorer asks, after its first frame: not imported before.
    @property
    def first_report(self) -> ScenarioReport:
        """The first saved report: its device stands for the engine's, since no engine starts."""
        return next(iter(self.saved.values())).report

    def start(self) -> Hello:
        from kernel_tui.transport.protocol import Hello

        report = self.first_report
        return Hello(
            pid=0,
            device=report.device,
            device_name=report.device_name,
            torch_version=report.torch_version,
            threads=report.threads or 0,
        )

    def warmup_result(self) -> Warmup | None:
        """No engine, so no first compile to wait for."""
        return None

    def run(
        self, path: Path, *, sweep: bool, size: int | None = None, variants: CompileVariants | None = None
    ) -> RunMessages:
        """The saved run, sweep included whatever ``sweep`` and ``size`` ask: it cannot be measured again, nor
        with variants added here (``v``): those would need an engine."""
        from kernel_tui.ui.link.run_lifecycle import RunLifecycle, RunMessages

        self.runs.append(Path(path))
        if self._lifecycle is None:
            self._lifecycle = RunLifecycle()
        run = self._lifecycle.ask(Path(path))
        return RunMessages(run, self._messages(self._lifecycle, run, Path(path), asks_more=bool(variants)))

    def _messages(
        self, lifecycle: RunLifecycle, run: EngineRun, path: Path, asks_more: bool = False
    ) -> Generator[RunMessage, None, None]:
        from kernel_tui.transport.engine_died import EngineDied
        from kernel_tui.transport.protocol import Done, SweepPointMessage
        from kernel_tui.ui.link.run_lifecycle import take_turn

        take_turn(lifecycle, run)
        reported = False
        try:
            saved = self.saved.get(path)
            if saved is None or asks_more:
                raise EngineDied(None, "", VIEW_MODE_REFUSAL)
            for point in saved.report.sweep:
                yield SweepPointMessage(run.run_id, point)
            reported = True
            # Numbered as the link numbered the run: its record takes in only its own messages.
            yield Done(run.run_id, saved.report)
        finally:
            lifecycle.ended(run, report=reported)

    def cancel(self) -> None:
        """Nothing to stop: a saved run ends as soon as it is read."""

    def close(self) -> None:
        """No engine to end: a saved run read after it is shown as before."""

    def output(self, since: int = 0, until: int | None = None) -> str:
        return ""

    def output_mark(self) -> int:
        return 0
