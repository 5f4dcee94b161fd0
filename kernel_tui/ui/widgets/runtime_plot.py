"""The plot inside the runtime chart: log-log, eager and compiled as two lines.

The widget owns its plot object and draws it in one place, ``replot``; nothing draws through plotext's
global state. ``replot`` runs on every render (so on new data, resize and theme change alike): plotext 5
takes the logarithm of log-scale data in place when it builds, so building the same figure twice would
take logs of logs (piccolomo/plotext#209, fixed in plotext 6). Starting each render from a freshly drawn
figure sidesteps that, and costs little at a handful of points.

The same plot draws achieved bandwidth against size, and the roofline of the scenario's kernels, when the chart
is switched to them (``mode``, key ``b``; ``bandwidth_plot``, ``roofline_plot``); ``drawn`` keeps the lines of
the latest draw by label, for tests.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.app import RenderResult
from textual_plotext import PlotextPlot

from kernel_tui.text.formatting import format_size, format_time_us
from kernel_tui.ui.widgets.bandwidth_plot import Series, draw_bandwidth
from kernel_tui.ui.widgets.roofline_plot import draw_roofline

if TYPE_CHECKING:
    from kernel_tui.model.report import Kernel, ScenarioReport, SweepPoint

EAGER_COLOR = (255, 160, 40)
COMPILED_COLOR = (70, 170, 255)
STYLES = {"eager": (EAGER_COLOR, "•"), "compiled": (COMPILED_COLOR, "×")}
"""Each line's colour and, without colour, its mark: the two lines must differ by their marks alone then."""
MIN_TICK_SPACING = 8
"""Columns per x label: fewer labels than sizes on a narrow chart, so they never run together."""


class RuntimePlot(PlotextPlot):
    """Median time of one call against the number of elements; the chart around it sets the data."""

    def __init__(self, points: Sequence[SweepPoint] = (), hint: str = "") -> None:
        super().__init__()
        self.points: Sequence[SweepPoint] = points
        self.hint = hint
        self.mode = "time"
        """``time`` (runtime against size) or ``bandwidth`` (achieved GB/s against size, with the ceiling)."""
        self.ceiling_gbs: float | None = None
        self.report: ScenarioReport | None = None
        """The scenario whose kernels the roofline places (``roofline`` mode)."""
        self.highlight: tuple[str | None, Kernel | None] = (None, None)
        """The table and kernel under the cursor, marked on the roofline."""
        self.drawn: dict[str, Series] = {}
        """The lines of the latest draw, by label (``eager``, ``compiled``, ``ceiling``)."""
        self._rendered: RenderResult | None = None
        self._rendered_key: tuple | None = None

    def render(self) -> RenderResult:
        # PlotextPlot.render sizes, themes and builds the figure; it has to be freshly drawn each time it
        # is built. Focus moves and other repaints that change nothing the figure shows reuse the last one:
        # building it costs tens of milliseconds, and keys must answer faster than that.
        key = (self.mode, self._drawn_from(), self.hint, tuple(self.size), self.app.no_color, self.app.theme)
        if key != self._rendered_key or self._rendered is None:
            self.replot()
            self._rendered, self._rendered_key = super().render(), key
        return self._rendered

    def _drawn_from(self) -> tuple:
        """What the current mode draws: a new report or highlight changes nothing on the runtime plot."""
        if self.mode == "roofline":
            return (id(self.report), self.highlight)
        if self.mode == "bandwidth":
            return (tuple(self.points), self.ceiling_gbs)
        return tuple(self.points)

    def replot(self) -> None:
        """Draw the figure from ``points``: the one place the chart is drawn (see the module docstring)."""
        plt = self.plt
        plt.clear_figure()
        plt.xlabel("elements")
        self.drawn = {}
        if self.mode == "roofline":
            self.drawn = draw_roofline(
                plt,
                self.report,
                self.highlight,
                styles=STYLES,
                plain=self.app.no_color,
                ticks_for=time_ticks,
                area=(max(self.size.width - 8, 10), max(self.size.height - 5, 4)),  # less axes, title and ticks
            )
            return
        if self.mode == "bandwidth" and self.points:
            self.drawn = draw_bandwidth(
                plt,
                self.points,
                self.ceiling_gbs,
                styles=STYLES,
                plain=self.app.no_color,
                xticks_for=lambda sizes: _thin(sizes, max(2, (self.size.width - 8) // MIN_TICK_SPACING)),
                yticks_for=time_ticks,
            )
            return
        points = sorted(self.points, key=lambda point: point.size)
        eager = [(p.size, p.eager_us) for p in points if p.eager_us and p.eager_us > 0]
        compiled = [(p.size, p.compiled_us) for p in points if p.compiled_us and p.compiled_us > 0]
        if not eager and not compiled:
            # plotext cannot draw empty log axes; an empty linear frame with the hint says enough.
            plt.title(self.hint)
            plt.xticks([], [])
            plt.yticks([], [])
            return
        plt.title("time per call (log-log)")
        plt.xscale("log")
        plt.yscale("log")
        # Without colour the two lines must differ by their marks alone.
        plain = self.app.no_color
        for label, series in (("eager", eager), ("compiled", compiled)):
            color, mark = STYLES[label]
            if series:
                xs, ys = zip(*series)
                plt.plot(xs, ys, color=color, marker=mark if plain else "braille")
                self.drawn[label] = (list(xs), list(ys))
        sizes = [point.size for point in points]
        xticks = _thin(sizes, max(2, (self.size.width - 8) // MIN_TICK_SPACING))
        plt.xticks([float(size) for size in xticks], [format_size(size) for size in xticks])
        times = [time for _, time in eager + compiled]
        yticks = time_ticks(min(times), max(times))
        plt.yticks(yticks, [format_time_us(time) for time in yticks])


def _thin(values: list[int], most: int) -> list[int]:
    """At most ``most`` of ``values``, evenly spaced, always keeping the first and the last."""
    if len(values) <= most:
        return values
    step = (len(values) - 1) / (most - 1)
    return sorted({values[round(i * step)] for i in range(most)})


def time_ticks(low: float, high: float) -> list[float]:
    """1-2-5 ticks inside [low, high] (µs, or GB/s); the two ends when the range holds fewer than two."""
    ticks = []
    for exponent in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1):
        for mantissa in (1, 2, 5):
            value = mantissa * 10.0**exponent
            if low <= value <= high:
                ticks.append(value)
    if len(ticks) > 5:
        ticks = [tick for tick in ticks if math.log10(tick).is_integer()] or ticks[:: len(ticks) // 4]
    if len(ticks) < 2:
        ticks = sorted({low, high})
    return ticks
