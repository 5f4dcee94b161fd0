"""The plot inside the runtime chart: log-log, eager and compiled as two lines.

The widget owns its plot object and draws it in one place, ``replot``; nothing draws through plotext's
global state. ``replot`` runs on every render (so on new data, resize and theme change alike): plotext 5
takes the logarithm of log-scale data in place when it builds, so building the same figure twice would
take logs of logs (piccolomo/plotext#209, fixed in plotext 6). Starting each render from a freshly drawn
figure sidesteps that, and costs little at a handful of points.

What it draws is the mode's (``mode``, key ``b``): runtime against size (``runtime_lines``), achieved
bandwidth (``bandwidth_plot``) or the roofline of the scenario's kernels (``roofline_plot``), each found
through ``chart_modes``; ``drawn`` keeps the lines of the latest draw by label, for tests. It draws from the
chart's own ``ChartShown`` (the same value, handed on by ``RuntimeChart``), and keeps no data of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import RenderResult
from textual_plotext import PlotextPlot

from kernel_tui.ui.widgets.charts.chart_modes import Series, chart_data, chart_mode

if TYPE_CHECKING:
    from kernel_tui.ui.view.shown import ChartShown


class RuntimePlot(PlotextPlot):
    """Median time of one call against the number of elements; the chart around it sets the data."""

    def __init__(self, shown: ChartShown) -> None:
        super().__init__()
        self.shown = shown
        """The chart's slice, as the chart last handed it on."""
        self.drawn: dict[str, Series] = {}
        """The lines of the latest draw, by label (``eager``, ``compiled``, ``ceiling``)."""
        self._rendered: RenderResult | None = None
        self._rendered_key: tuple[Any, ...] | None = None

    def render(self) -> RenderResult:
        # PlotextPlot.render sizes, themes and builds the figure; it has to be freshly drawn each time it
        # is built. Focus moves and other repaints that change nothing the figure shows reuse the last one:
        # building it costs tens of milliseconds, and keys must answer faster than that.
        key = (self.mode, self._drawn_from(), self.shown.hint, tuple(self.size), self.app.no_color, self.app.theme)
        if key != self._rendered_key or self._rendered is None:
            self.replot()
            self._rendered, self._rendered_key = super().render(), key
        return self._rendered

    @property
    def mode(self) -> str:
        """The chart's mode: what this plot draws (``chart_modes``)."""
        return self.shown.mode

    def _drawn_from(self) -> tuple[Any, ...]:
        """What the current mode draws: a new report or highlight changes nothing on the runtime plot."""
        return chart_mode(self.mode).drawing().key(chart_data(self.shown))

    def replot(self) -> None:
        """Draw the figure for the mode shown: the one place the chart is drawn (see the module docstring)."""
        plt = self.plt
        plt.clear_figure()
        plt.xlabel("elements")
        size = (self.size.width, self.size.height)
        data = chart_data(self.shown)
        self.drawn = chart_mode(self.mode).drawing().draw(plt, data, plain=self.app.no_color, size=size)
