"""The runs the learner pinned as baselines (``B``), one per scenario, and each later run against its own.

A snippet draft's runs count as the runs of the scenario it edits or copies, so that editing lesson 2 in the
editor compares the edit with lesson 2's pinned run. The comparison itself is ``kernel_tui.text.baseline.compare``,
the one ``kernel-tui run --baseline`` prints. Nothing here touches Textual.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kernel_tui.ui.state.run_state import RunStatus, ScenarioRun

if TYPE_CHECKING:
    from kernel_tui.model.report.mode_result import ModeResult
    from kernel_tui.model.report.report import ScenarioReport
    from kernel_tui.text.baseline import BaselineComparison, ModeComparison


@dataclass(frozen=True)
class Pin:
    """One pinned run: which run it was (so that ``B`` on it again unpins) and what it measured."""

    run_id: int
    report: ScenarioReport


@dataclass(frozen=True)
class ModeBaseline:
    """What one kernel table needs to mark its rows: the pinned run's kernels of that mode, and the comparison."""

    pinned: ModeResult
    comparison: ModeComparison


class PinnedBaselines:
    """Pinned runs by scenario; ``scenario_of`` maps a run's path (a draft's, say) to the scenario it counts as."""

    def __init__(self, scenario_of: Callable[[Path], Path] = lambda path: path) -> None:
        self.scenario_of = scenario_of
        self._pins: dict[Path, Pin] = {}
        self._last: tuple[ScenarioReport, ScenarioReport, BaselineComparison] | None = None
        """The latest comparison, with the two reports it compared: the explorer shows its state again on
        every tick and key, and the comparison of two unchanged reports is the same."""

    @staticmethod
    def can_pin(run: ScenarioRun | None) -> bool:
        """Only a finished run with numbers can be a baseline: a partial report would compare as grown."""
        if run is None or run.status is not RunStatus.DONE or run.record.report is None:
            return False
        return run.record.report.eager is not None

    def toggle(self, run: ScenarioRun) -> bool:
        """Pin ``run`` as its scenario's baseline, replacing any earlier pin; if it is the pinned run, unpin.
        True when it is pinned afterwards."""
        if not self.can_pin(run):
            raise ValueError("only a finished run with kernels can be pinned")
        assert run.record.report is not None
        scenario = self.scenario_of(run.record.path)
        if self.is_pinned(run):
            del self._pins[scenario]
            return False
        self._pins[scenario] = Pin(run.record.run_id, run.record.report)
        return True

    def reports(self) -> list[ScenarioReport]:
        """Every pinned run's report."""
        return [pin.report for pin in self._pins.values()]

    def is_pinned(self, run: ScenarioRun | None) -> bool:
        if run is None:
            return False
        pin = self._pins.get(self.scenario_of(run.record.path))
        return pin is not None and pin.run_id == run.record.run_id

    def pinned_report(self, run: ScenarioRun | None) -> ScenarioReport | None:
        """The baseline ``run`` is compared with, if its scenario has one (and ``run`` is not that very run)."""
        if run is None or self.is_pinned(run):
            return None
        pin = self._pins.get(self.scenario_of(run.record.path))
        return pin.report if pin is not None else None

    def compared(self, run: ScenarioRun | None) -> ScenarioReport | None:
        """The baseline ``run`` is compared with once it finished (as ``comparison``), else None."""
        return self.pinned_report(run) if self.can_pin(run) else None

    def comparison(self, run: ScenarioRun | None) -> BaselineComparison | None:
        """``run`` against its scenario's baseline once it finished; None while it runs (a partial report has
        no compiled side yet, which would read as every compiled kernel removed) or without a baseline."""
        pinned = self.compared(run)
        if pinned is None:
            return None
        assert run is not None and run.record.report is not None
        if self._last is not None and self._last[0] is pinned and self._last[1] is run.record.report:
            return self._last[2]
        # Imported with the first comparison: the baseline module is not needed before a run has finished.
        from kernel_tui.text.baseline import compare

        comparison = compare(pinned, run.record.report)
        self._last = (pinned, run.record.report, comparison)
        return comparison

    def mode_baseline(
        self, run: ScenarioRun | None, mode: str, comparison: BaselineComparison | None
    ) -> ModeBaseline | None:
        """What the ``mode`` table marks its rows with, given ``comparison(run)``."""
        pinned = self.pinned_report(run)
        compared = comparison.mode(mode) if comparison is not None else None
        pinned_mode = pinned.mode(mode) if pinned is not None else None
        if compared is None or pinned_mode is None:
            return None
        return ModeBaseline(pinned_mode, compared)
