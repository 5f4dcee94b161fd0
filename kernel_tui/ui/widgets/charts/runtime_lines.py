"""Runtime against size: the chart's first mode, eager and compiled as two lines on log-log axes.

The time of one call of each side at each size the sweep measured. This module is light (no plotext): the
chart asks it whether there is anything to draw before its plot is mounted; ``draw`` gets the plot's own
figure. The lines' colours and marks (``STYLES``) and the axes' ticks are shared by every mode.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, TypeVar

from kernel_tui.text.formatting import format_size, format_time_us, sweep_end_short

if TYPE_CHECKING:
    from kernel_tui.ui.widgets.charts.chart_modes import ChartData, LegendEntry, Series

EAGER_COLOR = (255, 160, 40)
COMPILED_COLOR = (70, 170, 255)
STYLES = {"eager": (EAGER_COLOR, "•"), "compiled": (COMPILED_COLOR, "×")}
"""Each line's colour and, without colour, its mark: the two lines must differ by their marks alone then."""
MIN_TICK_SPACING = 8
"""Columns per x label: fewer labels than sizes on a narrow chart, so they never run together."""


class RuntimeDrawing:
    """The ``ModeDrawing`` of ``time``."""

    def drawn(self, data: ChartData) -> bool:
        return any(point.eager_us or point.compiled_us for point in data.points)

    def hint(self, data: ChartData) -> str:
        return data.hint

    def legend(self, data: ChartData) -> list[LegendEntry]:
        shown = {mode for mode in STYLES if any(getattr(point, f"{mode}_us") for point in data.points)}
        return [(mode, STYLES[mode][0], "━") for mode in STYLES if mode in shown]

    def subtitle(self, data: ChartData) -> list[str]:
        # Why the chart stops where it does: the question the learner asks of its last point.
        return [ended] if (ended := sweep_end_short(data.points)) else []

    def key(self, data: ChartData) -> tuple[Any, ...]:
        return tuple(data.points)

    def draw(self, plt: Any, data: ChartData, *, plain: bool, size: tuple[int, int]) -> dict[str, Series]:
        points = sorted(data.points, key=lambda point: point.size)
        eager = [(p.size, p.eager_us) for p in points if p.eager_us and p.eager_us > 0]
        compiled = [(p.size, p.compiled_us) for p in points if p.compiled_us and p.compiled_us > 0]
        if not eager and not compiled:
            # plotext cannot draw empty log axes; an empty linear frame with the hint says enough.
            plt.title(data.hint)
            plt.xticks([], [])
            plt.yticks([], [])
            return {}
        plt.title("time per call (log-log)")
        plt.xscale("log")
        plt.yscale("log")
        drawn: dict[str, Series] = {}
        for label, series in (("eager", eager), ("compiled", compiled)):
            color, mark = STYLES[label]
            if series:
                xs, ys = zip(*series)
                # Without colour the two lines must differ by their marks alone.
                plt.plot(xs, ys, color=color, marker=mark if plain else "braille")
                drawn[label] = (list(xs), list(ys))
        xticks = size_ticks([point.size for point in points], size[0])
        plt.xticks([float(tick) for tick in xticks], [format_size(tick) for tick in xticks])
        times = [time for _, time in eager + compiled]
        yticks = time_ticks(min(times), max(times))
        plt.yticks(yticks, [format_time_us(time) for time in yticks])
        return drawn


DRAWING = RuntimeDrawing()


_Size = TypeVar("_Size", int, float)  # the runtime plot thins its sweep sizes, the bandwidth plot its series' x


def size_ticks(sizes: list[_Size], columns: int) -> list[_Size]:
    """The sizes labelled on the x axis of a plot ``columns`` wide."""
    return _thin(sizes, max(2, (columns - 8) // MIN_TICK_SPACING))


def _thin(values: list[_Size], most: int) -> list[_Size]:
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
