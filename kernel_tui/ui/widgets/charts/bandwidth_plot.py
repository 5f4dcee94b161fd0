"""Achieved bandwidth against size: what the chart draws in its bandwidth mode (key ``b``).

Each sweep point carries the bytes one call moves at its size, eager and compiled (counted as in the kernel
tables), so bandwidth is those bytes over the point's median time. The device's measured copy bandwidth is
drawn as a horizontal line: the ceiling a kernel that only moves memory can approach, never pass by much.

``draw_bandwidth`` draws into the chart's own plot object (``RuntimePlot.replot`` calls it through
``DRAWING``, the mode's entry in ``chart_modes``) and returns what it drew, so tests can check the lines
without reading pixels.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from kernel_tui.text.formatting import format_gbs, format_size
from kernel_tui.ui.widgets.charts.runtime_lines import DRAWING as RUNTIME
from kernel_tui.ui.widgets.charts.runtime_lines import STYLES, size_ticks, time_ticks

if TYPE_CHECKING:
    from kernel_tui.model.report.report import SweepPoint
    from kernel_tui.ui.widgets.charts.chart_modes import ChartData, LegendEntry, Series

CEILING_COLOR = (150, 150, 150)


class BandwidthDrawing:
    """The ``ModeDrawing`` of ``bandwidth``: drawn where runtime is; without points, runtime's empty frame."""

    def drawn(self, data: ChartData) -> bool:
        return RUNTIME.drawn(data)

    def hint(self, data: ChartData) -> str:
        return data.hint

    def legend(self, data: ChartData) -> list[LegendEntry]:
        shown = set(bandwidth_series(data.points))
        entries = [(mode, STYLES[mode][0], "━") for mode in STYLES if mode in shown]
        return entries + ([("ceiling", CEILING_COLOR, "━")] if data.ceiling_gbs else [])

    def subtitle(self, data: ChartData) -> list[str]:
        ceiling = data.ceiling_gbs
        over = ceiling is not None and any(
            value > ceiling for _, values in bandwidth_series(data.points).values() for value in values
        )
        # Faster than a large copy: the arrays fit in a cache, which the ceiling (measured on a large
        # copy) does not see.
        return (["above the ceiling: served from cache"] if over else []) + RUNTIME.subtitle(data)

    def key(self, data: ChartData) -> tuple[Any, ...]:
        return (tuple(data.points), data.ceiling_gbs)

    def draw(self, plt: Any, data: ChartData, *, plain: bool, size: tuple[int, int]) -> dict[str, Series]:
        if not data.points:
            return RUNTIME.draw(plt, data, plain=plain, size=size)
        return draw_bandwidth(
            plt,
            data.points,
            data.ceiling_gbs,
            styles=STYLES,
            plain=plain,
            xticks_for=lambda sizes: size_ticks(sizes, size[0]),
            yticks_for=time_ticks,
        )


DRAWING = BandwidthDrawing()


def bandwidth_series(points: Sequence[SweepPoint]) -> dict[str, Series]:
    """Achieved GB/s against size, eager and compiled, in size order; sizes without bytes are left out."""
    from kernel_tui.model.report.report import (
        gbs,  # with the first points: the first frame does without the report module
    )

    series: dict[str, Series] = {"eager": ([], []), "compiled": ([], [])}
    for point in sorted(points, key=lambda point: point.size):
        for mode, moved, time_us in (
            ("eager", point.eager_bytes, point.eager_us),
            ("compiled", point.compiled_bytes, point.compiled_us),
        ):
            value = gbs(moved, time_us)
            if value is not None:
                series[mode][0].append(point.size)
                series[mode][1].append(value)
    return {mode: values for mode, values in series.items() if values[0]}


def draw_bandwidth(
    plt: Any,  # the chart's own plotext figure (textual_plotext's Plot), which ships no types
    points: Sequence[SweepPoint],
    ceiling_gbs: float | None,
    *,
    styles: dict[str, tuple[tuple[int, int, int], str]],
    plain: bool,
    xticks_for: Callable[[list[float]], list[float]],  # the chart's x-tick thinning
    yticks_for: Callable[[float, float], list[float]],  # 1-2-5 ticks inside a range
) -> dict[str, Series]:
    """Draw achieved GB/s against size on log-log axes, with the ceiling as a horizontal line.

    ``styles`` maps eager and compiled to (colour, mark without colour). Returns every line drawn by
    label, ``ceiling`` included; an empty dict when there is nothing to draw (the caller's hint shows).
    """
    series = bandwidth_series(points)
    if not series:
        plt.title("No bytes for these sweep points: the bandwidth needs a sweep from this version (s).")
        plt.xticks([], [])
        plt.yticks([], [])
        return {}
    sizes = sorted({size for xs, _ in series.values() for size in xs})
    drawn = dict(series)
    if ceiling_gbs:
        drawn["ceiling"] = ([sizes[0], sizes[-1]], [ceiling_gbs, ceiling_gbs])
    ceiling = f" · ceiling {format_gbs(ceiling_gbs)} GB/s (copy)" if ceiling_gbs else ""
    plt.title(f"achieved GB/s (log-log){ceiling}")
    plt.xscale("log")
    plt.yscale("log")
    for label, (xs, ys) in drawn.items():
        color, mark = styles.get(label, (CEILING_COLOR, "-"))
        plt.plot(list(xs), list(ys), color=color, marker=mark if plain else "braille")  # legend: the chart's
    xticks = xticks_for(sizes)
    plt.xticks(xticks, [format_size(int(size)) for size in xticks])  # sweep sizes: whole element counts
    values = [value for _, ys in drawn.values() for value in ys]
    yticks = yticks_for(min(values), max(values))
    plt.yticks(yticks, [format_gbs(value) for value in yticks])
    return drawn
