"""Runtime against size: the chart pane, which shows the sweep points as they arrive.

The plot itself (``runtime_plot``: plotext, about 0.08 s of imports) is mounted just after the first
frame, so the app paints at once. Until there are points, the pane says how to get some instead of
drawing empty axes.

Key ``b`` cycles it through runtime and achieved bandwidth against size (the device's copy bandwidth drawn as
the ceiling) and the roofline of the scenario's kernels (``mode``); the explorer owns which mode is shown and
hands it, with the points, the ceiling, the report the roofline places and the kernel under the tables' cursor,
as its ``ChartShown``.

The chart keeps no data of its own: it holds the one ``ChartShown`` it was handed last (``shown``, a reactive the
explorer sets), and its plot holds that same value. The sweep's points in it are the run record's own tuple
(``transport.run_record``), which ``Shown`` hands on without copying: one sequence of points from the engine's
message to the drawing.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, cast

from rich.color import Color
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.content import Content
from textual.reactive import var
from textual.timer import Timer
from textual.widget import Widget

from kernel_tui.text.fit_parts import SUBTITLE_MARGIN, Part, fit_parts
from kernel_tui.ui.view.shown import ChartShown
from kernel_tui.ui.widgets.charts.chart_modes import CHART_MODES, LegendEntry, chart_data, chart_mode, next_chart_mode
from kernel_tui.ui.widgets.steady_static import SteadyStatic
from kernel_tui.ui.widgets.still_there import still_there

if TYPE_CHECKING:
    from rich.console import Console

    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.report import SweepPoint
    from kernel_tui.ui.widgets.charts.runtime_plot import RuntimePlot

NOTHING_SHOWN = ChartShown(CHART_MODES[0].name, (), "", None, None)
"""The chart before the explorer hands it its first slice."""
STREAMED_REPLOT_INTERVAL_S = 0.25
"""While points stream in, the plot is drawn again at most this often: building it costs about 30 ms, and a
key that lands behind a build waits for it (at 0.1 s, the p95 of a key press during a fast stream was about
100 ms; at 0.25 s, under 80 ms). A real sweep's points come about 0.5 s or more apart, so each is drawn at once."""


class RuntimeChart(Widget):
    """Median time of one call (or achieved GB/s) against the number of elements, eager and compiled."""

    can_focus = True
    """So Tab reaches the chart like every other pane (its border lights up)."""

    shown: var[ChartShown] = var(NOTHING_SHOWN, init=False)
    """What the chart shows: the explorer's slice, as it was handed (see the module docstring)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = Content(CHART_MODES[0].title)
        self._streamed_replot_at = 0.0
        """When the plot was last drawn (``time.monotonic``): points streaming in are drawn at most so often."""
        self._streamed_replot: Timer | None = None
        """The drawing of points that came too soon after the last one, while it is pending."""

    @property
    def mode(self) -> str:
        """``time``, ``bandwidth`` (both against size), ``roofline`` (the kernels against the two ceilings),
        ``memory`` or ``timeline`` (one profiled call, eager above compiled)."""
        return self.shown.mode

    @property
    def points(self) -> tuple[SweepPoint, ...]:
        """The points shown, in the order they arrived (tests read this)."""
        return self.shown.points

    @property
    def hint(self) -> str:
        """What the chart says while it has nothing to draw (tests read this)."""
        return self.shown.hint

    @property
    def highlight(self) -> tuple[str | None, Kernel | None]:
        """The table (``eager`` or ``compiled``) and kernel under its cursor, marked on the roofline."""
        return self.shown.highlight

    def compose(self) -> ComposeResult:
        yield SteadyStatic(id="chart-legend")
        yield SteadyStatic(id="chart-hint")

    def on_mount(self) -> None:
        self._replot()
        self.call_after_refresh(self._mount_plot)

    def on_resize(self) -> None:
        self._replot()  # the legend gives up entries, or takes them back, to fit its new width

    async def _mount_plot(self) -> None:
        if not self.is_attached:  # the app quit (or the layout changed) before the first frame was out
            return
        from kernel_tui.ui.widgets.charts.runtime_plot import RuntimePlot

        await self.mount(RuntimePlot(self.shown))
        self._replot()

    def watch_shown(self, old: ChartShown, shown: ChartShown) -> None:
        """Draw what the explorer hands the chart: its mode, the sweep's points, the ceiling, the report and the
        highlighted kernel. Only what the mode shown draws is drawn again (a ceiling in runtime mode is not), and
        points streaming in are drawn at most every so often."""
        for plot in self._plots():
            plot.shown = shown  # the one value, whether or not it is drawn again now
        drawing = chart_mode(shown.mode).drawing()
        same_mode = old.mode == shown.mode and old.hint == shown.hint
        if same_mode and drawing.key(chart_data(old)) == drawing.key(chart_data(shown)):
            return  # nothing this mode draws changed: the new value is held, for the next mode to draw
        known = len(old.points)
        streaming = len(shown.points) > known and shown.points[:known] == old.points
        if same_mode and streaming and replace(old, points=shown.points) == shown:
            self._replot_soon()
        else:
            self._replot()

    def _replot_soon(self) -> None:
        """Draw the points that came since the last drawing now, or once ``STREAMED_REPLOT_INTERVAL_S`` has
        passed since it."""
        if self._streamed_replot is not None:
            return  # the pending drawing shows these points too
        wait = self._streamed_replot_at + STREAMED_REPLOT_INTERVAL_S - time.monotonic()
        if wait > 0:
            self._streamed_replot = self.set_timer(wait, self._replot)
        else:
            self._replot()

    def _replot(self) -> None:
        if self._streamed_replot is not None:
            self._streamed_replot.stop()
            self._streamed_replot = None
        self._streamed_replot_at = time.monotonic()
        mode, data = chart_mode(self.mode), chart_data(self.shown)
        drawing = mode.drawing()
        drawn = drawing.drawn(data)
        hint_text = drawing.hint(data)
        hint = still_there(self, "#chart-hint", SteadyStatic)
        legend = still_there(self, "#chart-legend", SteadyStatic)
        if hint is None or legend is None:
            return  # this chart's children were removed while it waited to draw (the app quitting)
        hint.show_content(Content(hint_text))
        hint.display = not drawn
        legend.display = drawn
        if drawn:
            room = legend.content_size.width or max(1, self.content_size.width)
            legend.show_content(_legend(drawing.legend(data), self.app.console, room))
        self.border_title = Content(mode.title)
        following = f"b {chart_mode(next_chart_mode(mode.name)).word}"
        # Where the width runs short, the key to the next mode goes first (the footer's ? lists it), then the
        # drawing's parts from the last: what the chart says matters more than how to leave it.
        # The first part is never left out (its end is cut where even it alone is too wide): a chart whose
        # subtitle vanished would not say why its sweep ended.
        parts = [Part(text, index) for index, text in enumerate(drawing.subtitle(data))]
        parts.append(Part(following, len(parts) + 1))
        self.border_subtitle = Content(fit_parts(parts, self.outer_size.width - SUBTITLE_MARGIN) if drawn else "")
        for plot in self._plots():
            plot.shown = self.shown
            plot.display = drawn
            plot.refresh()

    def _plots(self) -> list[RuntimePlot]:
        # Queried by name: RuntimePlot (and plotext) are imported only once the chart is first drawn.
        return cast("list[RuntimePlot]", list(self.query("RuntimePlot")))


LEGEND_LINES = 2
"""The legend's lines at most (``max-height`` of ``#chart-legend`` in ``app.tcss``)."""


def _legend(entries: list[LegendEntry], console: Console, width: int) -> Text:
    """What each line and mark is, on a line of its own above the plot: plotext's legend sat inside the
    plot, over the lines of a 120x36 chart. Where they do not all fit in ``LEGEND_LINES`` of ``width``, the
    first give way: the last is the most particular (the roofline's highlighted kernel, its name whole)."""
    shown = list(entries)
    text = _legend_text(shown)
    while len(shown) > 1 and len(text.wrap(console, width)) > LEGEND_LINES:
        shown.pop(0)
        text = _legend_text(shown)
    return text


def _legend_text(entries: list[LegendEntry]) -> Text:
    text = Text()
    for index, (label, color, mark) in enumerate(entries):
        if index:
            text.append("  ")
        text.append(mark, style=Style(color=Color.from_rgb(*color), bold=True))
        text.append(f" {label}")
    return text
