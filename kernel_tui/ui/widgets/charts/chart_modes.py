"""What the chart can draw, in the order ``b`` cycles through them: one registry of modes.

Each ``ChartMode`` names its title, the word the subtitle calls it by, and the module whose ``DRAWING`` (a
``ModeDrawing``) says everything else: whether there is anything to draw, the hint when there is not, the
legend, the subtitle, and the drawing itself. The chart (``runtime_chart``) and its plot (``runtime_plot``)
ask the mode shown, never test for one by name, so a new mode is one module with its ``DRAWING`` and one line
in ``CHART_MODES``. A mode's module is imported when the chart first asks it something: the first frame
imports none of them (``bench/startup.py``).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.report import ScenarioReport, SweepPoint
    from kernel_tui.ui.view.shown import ChartShown

Series = tuple[list[float], list[float]]
"""One line or set of points drawn: its xs and its ys."""
LegendEntry = tuple[str, tuple[int, int, int], str]
"""A legend's entry: the label, its colour, its mark."""


@dataclass(frozen=True)
class ChartData:
    """What a mode draws from: the chart's ``ChartShown`` less its mode (``chart_data``), made for each drawing."""

    points: Sequence[SweepPoint]
    """The sweep's points, in the order they arrived."""
    hint: str
    """The explorer's text for a chart without points."""
    ceiling_gbs: float | None
    """The device's copy bandwidth."""
    report: ScenarioReport | None
    """The scenario on screen, whose kernels a mode may place."""
    highlight: tuple[str | None, Kernel | None]
    """The table (``eager`` or ``compiled``) and kernel under its cursor."""


def chart_data(shown: ChartShown) -> ChartData:
    """What the mode shown draws from, out of the chart's one slice: the same points, report and highlight."""
    return ChartData(shown.points, shown.hint, shown.ceiling_gbs, shown.report, shown.highlight)


class ModeDrawing(Protocol):
    """What a mode of the chart says and draws (each module of a mode has one, as ``DRAWING``)."""

    def drawn(self, data: ChartData) -> bool:
        """Whether there is anything to draw; if not, the chart shows ``hint`` instead."""

    def hint(self, data: ChartData) -> str: ...

    def legend(self, data: ChartData) -> list[LegendEntry]: ...

    def subtitle(self, data: ChartData) -> list[str]:
        """The subtitle's parts, before the key to the next mode."""

    def key(self, data: ChartData) -> tuple[Any, ...]:
        """What the drawing depends on: the plot is drawn again only when it (or the plot's size) changes."""

    def draw(self, plt: Any, data: ChartData, *, plain: bool, size: tuple[int, int]) -> dict[str, Series]:
        """Draw on the chart's own plotext figure (``size``: the plot's columns and rows; ``plain``: no
        colour, the marks alone tell the lines apart); every line drawn, by label, for tests."""


@dataclass(frozen=True)
class ChartMode:
    name: str
    title: str
    """The chart's border title in this mode."""
    word: str
    """The mode as the subtitle names it (``b bandwidth``: what ``b`` shows next)."""
    module: str
    """The module whose ``DRAWING`` draws it."""
    draws_report: bool = False
    """It draws the scenario's report (its kernels, its calls), not the sweep: a new report or another
    highlighted kernel draws it again."""

    def drawing(self) -> ModeDrawing:
        drawing: ModeDrawing = importlib.import_module(self.module).DRAWING
        return drawing


CHART_MODES = (
    ChartMode("time", "Runtime vs size", "runtime", "kernel_tui.ui.widgets.charts.runtime_lines"),
    ChartMode("bandwidth", "Bandwidth vs size", "bandwidth", "kernel_tui.ui.widgets.charts.bandwidth_plot"),
    ChartMode("roofline", "Roofline", "roofline", "kernel_tui.ui.widgets.charts.roofline_plot", draws_report=True),
    ChartMode("memory", "Peak memory vs size", "memory", "kernel_tui.ui.widgets.charts.memory_plot"),
    ChartMode(
        "timeline", "One call's timeline", "timeline", "kernel_tui.ui.widgets.charts.timeline_plot", draws_report=True
    ),
)
"""What ``b`` cycles through, in order; the first is the chart's mode when the app starts."""
BY_NAME = {mode.name: mode for mode in CHART_MODES}


def chart_mode(name: str) -> ChartMode:
    """The mode called ``name`` (the first for a name no mode has)."""
    return BY_NAME.get(name, CHART_MODES[0])


def next_chart_mode(mode: str) -> str:
    """The chart's mode after ``mode``: runtime, achieved bandwidth, the roofline, peak memory, one call's
    timeline, then runtime again."""
    names = [each.name for each in CHART_MODES]
    return names[(names.index(mode) + 1) % len(names)]
