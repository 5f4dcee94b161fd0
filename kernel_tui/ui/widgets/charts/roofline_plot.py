"""The roofline: what the chart draws in its third mode (key ``b``: runtime, bandwidth, roofline, memory, timeline).

Log-log, arithmetic intensity (FLOPs per byte) across, achieved GFLOP/s up, each kernel of the scenario's
tables as a labelled point, eager and compiled apart. The device's two measured ceilings make the roof: the copy
bandwidth times the intensity (a slanted line) up to the ridge point, then the matmul peak (a flat line). A
point under the slant is memory-bound, one under the flat part compute-bound; far below both, something else
(launches, Python) holds it back. The kernel highlighted in the tables is drawn once more, marked.

``draw_roofline`` draws into the chart's own plot object (``RuntimePlot.replot`` calls it through ``DRAWING``,
the mode's entry in ``chart_modes``) and returns what it drew by label, so tests can check the lines and points
without reading pixels.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kernel_tui.text.formatting import cut_middle
from kernel_tui.text.parts.roofline_text import format_gflops, format_intensity
from kernel_tui.ui.widgets.charts.bandwidth_plot import CEILING_COLOR
from kernel_tui.ui.widgets.charts.runtime_lines import STYLES, time_ticks

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.report import ScenarioReport
    from kernel_tui.ui.widgets.charts.chart_modes import ChartData, LegendEntry, Series

MEMORY_ROOF = "copy GB/s"
COMPUTE_ROOF = "matmul peak"
HIGHLIGHT = "highlighted"
HIGHLIGHT_COLOR = (230, 60, 200)
LABEL_CHARS = 12
"""Point labels are cut to this many characters, so a few of them fit on an 80-column chart."""
LABEL_GAP = 2
"""Labels start this many columns right of their point, so the mark itself stays visible."""


@dataclass(frozen=True)
class RooflinePoint:
    mode: str
    """``eager`` or ``compiled``."""
    index: int
    """The kernel's row in its table."""
    name: str
    intensity: float
    gflops: float


def roofline_points(report: ScenarioReport | None) -> list[RooflinePoint]:
    """Every kernel with a positive intensity and achieved rate: what a log-log chart can place."""
    points: list[RooflinePoint] = []
    if report is None:
        return points
    for mode_name, mode in (("eager", report.eager), ("compiled", report.compiled)):
        for index, kernel in enumerate(mode.kernels if mode is not None else ()):
            if kernel.intensity and kernel.gflops:
                points.append(RooflinePoint(mode_name, index, kernel.short_name, kernel.intensity, kernel.gflops))
    return points


def unplaced(report: ScenarioReport | None) -> int:
    """Kernels the chart cannot place: FLOPs unknown or zero (a copy), or no time (a preview)."""
    modes = [mode for mode in ((report.eager, report.compiled) if report else ()) if mode is not None]
    return sum(len(mode.kernels) for mode in modes) - len(roofline_points(report))


def roof_lines(report: ScenarioReport, low: float, high: float) -> dict[str, Series]:
    """The two ceilings across [low, high] intensity: bandwidth × intensity up to the ridge, then the peak."""
    ceilings = report.ceilings
    if ceilings is None or not ceilings.bandwidth_gbs or not ceilings.matmul_gflops or ceilings.ridge is None:
        return {}
    ridge, bandwidth, peak = ceilings.ridge, ceilings.bandwidth_gbs, ceilings.matmul_gflops
    lines: dict[str, Series] = {}
    if low < ridge:
        lines[MEMORY_ROOF] = ([low, min(ridge, high)], [bandwidth * low, bandwidth * min(ridge, high)])
    if high > ridge:
        lines[COMPUTE_ROOF] = ([max(ridge, low), high], [peak, peak])
    return lines


def highlighted_point(
    points: list[RooflinePoint], mode: str | None, kernel: Kernel | None, kernels: tuple[Kernel, ...]
) -> RooflinePoint | None:
    if mode is None or kernel is None or kernel not in kernels:
        return None
    index = kernels.index(kernel)
    return next((point for point in points if (point.mode, point.index) == (mode, index)), None)


def label_shift(x_range: tuple[float, float], columns: int) -> float:
    """The factor on a point's intensity where its label starts: ``LABEL_GAP`` columns to its right."""
    decades = math.log10(x_range[1]) - math.log10(x_range[0])
    return 10 ** (LABEL_GAP * decades / max(columns - 1, 1))


def point_label(point: RooflinePoint) -> str:
    """A point's label: its name, cut in the middle to ``LABEL_CHARS`` (the end tells kernels apart)."""
    return cut_middle(point.name, LABEL_CHARS)


def labelled(
    points: list[RooflinePoint],
    x_range: tuple[float, float],
    y_range: tuple[float, float],
    area: tuple[int, int],
    *,
    first: RooflinePoint | None = None,
) -> list[RooflinePoint]:
    """The points whose labels fit: each label goes right of its point, and one that would come near another
    label or mark (its row or the next: plotext rounds rows its own way, and two labels a row apart were
    drawn over each other, ``aten::aaten::relu``) is left out.

    ``first`` (the highlighted kernel) is labelled before the others, so that a kernel of the other table
    at the same place does not name its point (the legend named ``aten::mm``, the point ``aten::matmul``).
    ``area`` is the plot's (columns, rows); positions are found as plotext places them, on log axes."""
    columns, rows = area
    shift = label_shift(x_range, columns)

    def cell(value: float, span: tuple[float, float], cells: int) -> int:
        low, high = math.log10(span[0]), math.log10(span[1])
        return round((math.log10(value) - low) / (high - low or 1.0) * (cells - 1))

    def near(row: int, other: int) -> bool:
        return abs(row - other) <= 1

    marks = {(cell(p.intensity, x_range, columns), cell(p.gflops, y_range, rows)) for p in points}
    taken: list[tuple[int, int, int]] = []  # (row, first column, last column) of each placed label
    placed = []
    ordered = sorted(points, key=lambda p: (p is not first, -p.gflops))
    for point in ordered:
        column, row = cell(point.intensity * shift, x_range, columns), cell(point.gflops, y_range, rows)
        last = column + len(point_label(point))
        clash = any(near(r, row) and not (last < start - 1 or column > end + 1) for r, start, end in taken)
        clash = clash or any(near(r, row) and column <= c <= last for c, r in marks) or last >= columns
        if not clash:
            taken.append((row, column, last))
            placed.append(point)
    return placed


def highlight_legend(report: ScenarioReport | None, highlight: tuple[str | None, Kernel | None]) -> str | None:
    """The legend's entry for the highlighted kernel where the roofline places it; None where it does not."""
    mode_name, kernel = highlight
    marked_mode = report.mode(mode_name) if report is not None and mode_name else None
    kernels = marked_mode.kernels if marked_mode is not None else ()
    marked = highlighted_point(roofline_points(report), mode_name, kernel, kernels)
    return _legend(marked) if marked is not None else None


def _legend(marked: RooflinePoint) -> str:
    """The highlighted kernel's legend entry, with its table (an eager and a compiled kernel often share a
    spot, ``aten::matmul`` and ``aten::mm``) and its name whole: the legend has the room a label beside its
    point has not, and gives its other entries up first (``runtime_chart._legend``)."""
    return f"▶ {marked.mode} {marked.name}"


def draw_roofline(
    plt: Any,  # the chart's own plotext figure (textual_plotext's Plot), which ships no types
    report: ScenarioReport | None,
    highlight: tuple[str | None, Kernel | None],
    *,
    styles: dict[str, tuple[tuple[int, int, int], str]],
    plain: bool,
    ticks_for: Callable[[float, float], list[float]],
    area: tuple[int, int] = (60, 14),
) -> dict[str, Series]:
    """Draw the kernels against the roof on log-log axes; return every line and point set drawn by label.

    ``styles`` maps eager and compiled to (colour, mark without colour); ``highlight`` is the table and kernel
    under the cursor; ``area`` the plot's columns and rows, for labels that do not run into each other. An
    empty dict when no kernel can be placed (the caller's hint says why)."""
    points = roofline_points(report)
    if report is None or not points:
        return {}
    ridge = report.ceilings.ridge if report.ceilings is not None else None
    intensities = [point.intensity for point in points] + ([ridge] if ridge else [])
    low, high = min(intensities) / 4, max(intensities) * 4
    drawn: dict[str, Series] = dict(roof_lines(report, low, high))
    for xs, ys in drawn.values():
        plt.plot(xs, ys, color=CEILING_COLOR, marker="-" if plain else "braille")  # legend: the chart's line
    rates = [value for _, ys in drawn.values() for value in ys] + [point.gflops for point in points]
    mode_name, kernel = highlight
    marked_mode = report.mode(mode_name) if mode_name else None
    marked = highlighted_point(points, mode_name, kernel, marked_mode.kernels if marked_mode is not None else ())
    named = labelled(points, (low, high), (min(rates), max(rates)), area, first=marked)
    for mode in ("eager", "compiled"):
        chosen = [point for point in points if point.mode == mode]
        if not chosen:
            continue
        color, mark = styles[mode]
        xs, ys = [point.intensity for point in chosen], [point.gflops for point in chosen]
        plt.scatter(xs, ys, color=color, marker=mark)
        drawn[mode] = (xs, ys)
        for point in chosen:
            if point in named:
                shift = label_shift((low, high), area[0])
                plt.text(point_label(point), point.intensity * shift, point.gflops, color=color, alignment="left")
    if marked is not None:
        plt.scatter(
            [marked.intensity],
            [marked.gflops],
            color=HIGHLIGHT_COLOR,
            marker="◆",
        )
        drawn[HIGHLIGHT] = ([marked.intensity], [marked.gflops])
    ridge_text = f" · ridge {format_intensity(ridge)} FLOP/B" if ridge else " · no ceilings measured"
    plt.title(f"GFLOP/s against FLOP/B (log-log){ridge_text}")
    plt.xlabel("FLOPs per byte")
    plt.xscale("log")
    plt.yscale("log")
    xticks = ticks_for(low, high)
    plt.xticks(xticks, [format_intensity(value) for value in xticks])
    values = [value for _, ys in drawn.values() for value in ys]
    yticks = ticks_for(min(values), max(values))
    plt.yticks(yticks, [format_gflops(value) for value in yticks])
    return drawn


class RooflineDrawing:
    """The ``ModeDrawing`` of ``roofline``: the scenario's kernels, not the sweep's points."""

    def drawn(self, data: ChartData) -> bool:
        return bool(roofline_points(data.report))

    def hint(self, data: ChartData) -> str:
        report = data.report
        if report is None or report.eager is None:
            return "r measures the kernels; b then places them against the device's two ceilings."
        if report.is_preview:
            return "A preview runs nothing: no achieved FLOP/s to place (its FLOPs and intensity are in the tables)."
        return "No kernel here has both its FLOPs and a time: nothing to place on the roofline."

    def legend(self, data: ChartData) -> list[LegendEntry]:
        entries: list[LegendEntry] = []
        ceilings = data.report.ceilings if data.report is not None else None
        if ceilings is not None and ceilings.ridge is not None:
            entries += [(MEMORY_ROOF, CEILING_COLOR, "━"), (COMPUTE_ROOF, CEILING_COLOR, "━")]
        modes = {point.mode for point in roofline_points(data.report)}
        entries += [(mode, STYLES[mode][0], STYLES[mode][1]) for mode in STYLES if mode in modes]
        if marked := highlight_legend(data.report, data.highlight):
            entries.append((marked.removeprefix("▶ "), HIGHLIGHT_COLOR, "◆"))
        return entries

    def subtitle(self, data: ChartData) -> list[str]:
        ceilings = data.report.ceilings if data.report is not None else None
        parts = [f"ridge {format_intensity(ceilings.ridge)} FLOP/B"] if ceilings and ceilings.ridge else []
        if missing := unplaced(data.report):
            parts.append(f"{missing} not placed: FLOPs unknown or 0")
        return parts

    def key(self, data: ChartData) -> tuple[Any, ...]:
        return (id(data.report), data.highlight)

    def draw(self, plt: Any, data: ChartData, *, plain: bool, size: tuple[int, int]) -> dict[str, Series]:
        columns, rows = size
        return draw_roofline(
            plt,
            data.report,
            data.highlight,
            styles=STYLES,
            plain=plain,
            ticks_for=time_ticks,
            area=(max(columns - 8, 10), max(rows - 5, 4)),  # less axes, title and ticks
        )


DRAWING = RooflineDrawing()
