"""Peak memory against size: what the chart draws in its memory mode (key ``b``).

Each sweep point carries the peak memory of one call at its size above what was allocated before it, eager and
compiled (``SweepPoint.eager_peak_bytes``). A chain of operators whose results eager keeps alive grows its peak
a whole array per step at every size, so the two lines run parallel on log-log axes, the gap between them the
number of arrays compiled code never allocates.

``DRAWING`` is the mode's entry in ``chart_modes``; ``draw`` returns what it drew, so tests can check the lines
without reading pixels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from kernel_tui.text.formatting import format_bytes, format_size
from kernel_tui.ui.widgets.charts.runtime_lines import DRAWING as RUNTIME
from kernel_tui.ui.widgets.charts.runtime_lines import STYLES, size_ticks, time_ticks

if TYPE_CHECKING:
    from kernel_tui.model.report.report import SweepPoint
    from kernel_tui.ui.widgets.charts.chart_modes import ChartData, LegendEntry, Series


class MemoryDrawing:
    """The ``ModeDrawing`` of ``memory``: drawn where runtime is; without points, runtime's empty frame."""

    def drawn(self, data: ChartData) -> bool:
        return RUNTIME.drawn(data)

    def hint(self, data: ChartData) -> str:
        return data.hint

    def legend(self, data: ChartData) -> list[LegendEntry]:
        shown = set(memory_series(data.points))
        return [(mode, STYLES[mode][0], "━") for mode in STYLES if mode in shown]

    def subtitle(self, data: ChartData) -> list[str]:
        return RUNTIME.subtitle(data)

    def key(self, data: ChartData) -> tuple[Any, ...]:
        return tuple(data.points)

    def draw(self, plt: Any, data: ChartData, *, plain: bool, size: tuple[int, int]) -> dict[str, Series]:
        if not data.points:
            return RUNTIME.draw(plt, data, plain=plain, size=size)
        series = memory_series(data.points)
        if not series:
            measured = any(point.eager_peak_bytes is not None for point in data.points)
            plt.title(
                "No memory allocated at any size: fn returns a view or works in place."
                if measured
                else "No peaks for these sweep points: peak memory needs a sweep from this version (s)."
            )
            plt.xticks([], [])
            plt.yticks([], [])
            return {}
        plt.title("peak memory of one call above its inputs (log-log)")
        plt.xscale("log")
        plt.yscale("log")
        for label, (xs, ys) in series.items():
            color, mark = STYLES[label]
            plt.plot(list(xs), list(ys), color=color, marker=mark if plain else "braille")
        sizes = sorted({x for xs, _ in series.values() for x in xs})
        xticks = size_ticks(sizes, size[0])
        plt.xticks(xticks, [format_size(int(tick)) for tick in xticks])
        values = [value for _, ys in series.values() for value in ys]
        yticks = time_ticks(min(values), max(values))
        plt.yticks(yticks, [format_bytes(value) for value in yticks])
        return series


DRAWING = MemoryDrawing()


def memory_series(points: Sequence[SweepPoint]) -> dict[str, Series]:
    """Peak bytes against size, eager and compiled, in size order; sizes without a (positive) peak left out:
    a log axis has no place for zero."""
    series: dict[str, Series] = {"eager": ([], []), "compiled": ([], [])}
    for point in sorted(points, key=lambda point: point.size):
        for mode, peak in (("eager", point.eager_peak_bytes), ("compiled", point.compiled_peak_bytes)):
            if peak:
                series[mode][0].append(point.size)
                series[mode][1].append(peak)
    return {mode: values for mode, values in series.items() if values[0]}
