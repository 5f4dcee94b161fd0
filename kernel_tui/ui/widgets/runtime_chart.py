"""Runtime against size: the chart pane, which holds the sweep points and shows them as they arrive.

The plot itself (``runtime_plot``: plotext, about 0.08 s of imports) is mounted just after the first
frame, so the app paints at once. Until there are points, the pane says how to get some instead of
drawing empty axes.

Key ``b`` cycles it through runtime and achieved bandwidth against size (the device's copy bandwidth drawn as
the ceiling) and the roofline of the scenario's kernels (``mode``); the explorer owns which mode is shown and
hands it, with the points, the ceiling and the report the roofline places, as its ``ChartShown``; it sets the
kernel highlighted in the tables as their cursor moves.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from rich.color import Color
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.content import Content
from textual.reactive import var
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from kernel_tui.text.fit_parts import SUBTITLE_MARGIN, Part, fit_parts
from kernel_tui.ui.widgets.chart_modes import CHART_MODES, ChartData, LegendEntry, chart_mode, next_chart_mode

if TYPE_CHECKING:
    from rich.console import Console

    from kernel_tui.model.kernel import Kernel
    from kernel_tui.model.report import ScenarioReport, SweepPoint
    from kernel_tui.ui.shown import ChartShown
    from kernel_tui.ui.widgets.runtime_plot import RuntimePlot

STREAMED_REPLOT_INTERVAL_S = 0.25
"""While points stream in, the plot is drawn again at most this often: building it costs about 30 ms, and a
key that lands behind a build waits for it (at 0.1 s, the p95 of a key press during a fast stream was about
100 ms; at 0.25 s, under 80 ms). A real sweep's points come about 0.5 s or more apart, so each is drawn at once."""


class RuntimeChart(Widget):
    """Median time of one call (or achieved GB/s) against the number of elements, eager and compiled."""

    can_focus = True
    """So Tab reaches the chart like every other pane (its border lights up)."""

    mode: var[str] = var(CHART_MODES[0].name, init=False)
    """``time``, ``bandwidth`` (both against size), ``roofline`` (the kernels against the two ceilings) or
    ``timeline`` (one profiled call, eager above compiled)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = Content(CHART_MODES[0].title)
        self.points: list[SweepPoint] = []
        """The points shown, in the order they arrived (tests read this)."""
        self.hint = ""
        self._hint_shown = ""
        """What the hint line shows now: updating it only when that changes spares a layout pass per point."""
        self.ceiling_gbs: float | None = None
        """The device's copy bandwidth, drawn as a line in bandwidth mode."""
        self.report: ScenarioReport | None = None
        """The measured scenario whose kernels the roofline places."""
        self.highlight: tuple[str | None, Kernel | None] = (None, None)
        """The table (``eager`` or ``compiled``) and kernel under the cursor, marked on the roofline."""
        self._streamed_replot_at = 0.0
        """When ``add_point`` last drew the plot (``time.monotonic``)."""
        self._streamed_replot: Timer | None = None
        """The drawing of points that came too soon after the last one, while it is pending."""

    def compose(self) -> ComposeResult:
        yield Static(id="chart-legend")
        yield Static(id="chart-hint")

    def on_mount(self) -> None:
        self._replot()
        self.call_after_refresh(self._mount_plot)

    def on_resize(self) -> None:
        self._replot()  # the legend gives up entries, or takes them back, to fit its new width

    async def _mount_plot(self) -> None:
        if not self.is_attached:  # the app quit (or the layout changed) before the first frame was out
            return
        from kernel_tui.ui.widgets.runtime_plot import RuntimePlot

        await self.mount(RuntimePlot(self.points, self.hint))
        self._replot()

    def show(self, shown: ChartShown) -> None:
        """Draw what the explorer hands the chart: its mode, the sweep's points, the ceiling and the report."""
        self.mode = shown.mode
        known = len(self.points)
        if shown.hint == self.hint and len(shown.points) > known and shown.points[:known] == tuple(self.points):
            for point in shown.points[known:]:
                self.add_point(point)  # a sweep streaming in: drawn at most every so often
        elif shown.hint != self.hint or shown.points != tuple(self.points):
            self.set_points(shown.points, shown.hint)
        self.set_ceiling(shown.ceiling_gbs)
        self.set_roofline(shown.report)
        self.set_highlight(*shown.highlight)

    def set_points(self, points: Sequence[SweepPoint], hint: str = "") -> None:
        """Show these points (a new scenario, or a finished sweep)."""
        self.points = list(points)
        self.hint = hint
        self._replot()

    def watch_mode(self) -> None:
        # A binding may set the mode before the chart has composed its hint; mounting draws it then.
        if self.is_mounted:
            self._replot()

    # Each of these is drawn in one mode only: another mode draws it when the chart switches to it (``watch_mode``).
    def set_ceiling(self, ceiling_gbs: float | None) -> None:
        """The device's copy bandwidth, drawn as the ceiling in bandwidth mode."""
        if ceiling_gbs != self.ceiling_gbs:
            self.ceiling_gbs = ceiling_gbs
            if self.mode == "bandwidth":
                self._replot()

    def set_roofline(self, report: ScenarioReport | None) -> None:
        """The scenario whose kernels the roofline places (its FLOPs, bytes, times and the ceilings)."""
        if report is not self.report:
            self.report = report
            if chart_mode(self.mode).draws_report:
                self._replot()

    def set_highlight(self, mode: str | None, kernel: Kernel | None) -> None:
        """Mark this kernel of this table on the roofline (None: no kernel highlighted)."""
        if (mode, kernel) != self.highlight:
            self.highlight = (mode, kernel)
            if chart_mode(self.mode).draws_report:
                self._replot()

    def add_point(self, point: SweepPoint) -> None:
        """Add one point as the sweep measures it."""
        self.points.append(point)
        if self._streamed_replot is not None:
            return  # the pending drawing shows this point too
        wait = self._streamed_replot_at + STREAMED_REPLOT_INTERVAL_S - time.monotonic()
        if wait > 0:
            self._streamed_replot = self.set_timer(wait, self._replot)
        else:
            self._replot()

    def _data(self) -> ChartData:
        return ChartData(self.points, self.hint, self.ceiling_gbs, self.report, self.highlight)

    def _replot(self) -> None:
        if self._streamed_replot is not None:
            self._streamed_replot.stop()
            self._streamed_replot = None
        self._streamed_replot_at = time.monotonic()
        mode, data = chart_mode(self.mode), self._data()
        drawing = mode.drawing()
        drawn = drawing.drawn(data)
        hint_text = drawing.hint(data)
        hint = self.query_one("#chart-hint", Static)
        if hint_text != self._hint_shown:
            hint.update(Content(hint_text))
            self._hint_shown = hint_text
        hint.display = not drawn
        legend = self.query_one("#chart-legend", Static)
        legend.display = drawn
        if drawn:
            room = legend.content_size.width or max(1, self.content_size.width)
            legend.update(_legend(drawing.legend(data), self.app.console, room))
        self.border_title = Content(mode.title)
        following = f"b {chart_mode(next_chart_mode(mode.name)).word}"
        # Where the width runs short, the key to the next mode goes first (the footer's ? lists it), then the
        # drawing's parts from the last: what the chart says matters more than how to leave it.
        # The first part is never left out (its end is cut where even it alone is too wide): a chart whose
        # subtitle vanished would not say why its sweep ended.
        parts = [Part(text, index) for index, text in enumerate(drawing.subtitle(data))]
        parts.append(Part(following, len(parts) + 1))
        self.border_subtitle = Content(fit_parts(parts, self.outer_size.width - SUBTITLE_MARGIN) if drawn else "")
        # Queried by name: RuntimePlot (and plotext) are imported only once the chart is first drawn.
        for plot in cast("list[RuntimePlot]", list(self.query("RuntimePlot"))):
            plot.points, plot.hint = self.points, self.hint
            plot.mode, plot.ceiling_gbs = self.mode, self.ceiling_gbs
            plot.report, plot.highlight = self.report, self.highlight
            plot.display = drawn
            plot.refresh()


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
