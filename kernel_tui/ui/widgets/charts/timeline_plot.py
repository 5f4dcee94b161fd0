"""One call's timeline: what the chart draws in its fifth mode (key ``b``: runtime, bandwidth, roofline, memory,
timeline).

Eager, compiled and each variant one above the other on one time axis (µs from the start of the call), each
as its lanes (``call_breakdown.LANES``): operators and Python, Dynamo's guards and the compiled wrapper, the
runtime's launch calls, and the work itself (a GPU's kernels, copies and fills). A lane is drawn one mark per
column it is busy in, so the gaps between launches stay visible at any width, and a span shorter than a column
still marks the column it falls in. The kernel highlighted in the tables is marked once more in its mode's
work lane.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from kernel_tui.model.report.call_breakdown import LANES
from kernel_tui.text.formatting import format_time_us

if TYPE_CHECKING:
    from kernel_tui.model.report.call_breakdown import CallBreakdown, TimelineSpan
    from kernel_tui.model.report.report import ScenarioReport
    from kernel_tui.ui.widgets.charts.chart_modes import ChartData, LegendEntry, Series

LANE_WORDS = {"host": "ops", "framework": "guards", "launch": "launch", "device": "kernels"}
LANE_COLORS = {
    "host": (150, 150, 150),
    "framework": (255, 160, 40),
    "launch": (70, 170, 255),
    "device": (80, 200, 120),
}
LANE_MARKS = {"host": "─", "framework": "▒", "launch": "┃", "device": "█"}
"""Marks that tell the lanes apart without colour (``plain``)."""
HIGHLIGHT = "highlighted"
HIGHLIGHT_COLOR = (230, 60, 200)
MODE_CHARS = 9
"""A row's label is the mode cut to this many characters and the lane's word: it fits an 80-column chart."""


def breakdowns(report: ScenarioReport | None) -> list[tuple[str, CallBreakdown]]:
    """Each mode with a timeline, in the order drawn from the top: eager, compiled, then the variants."""
    if report is None:
        return []
    modes = [("eager", report.eager), ("compiled", report.compiled)]
    modes += [(name, variant.measured) for name, variant in report.variants.items()]
    # A call of no length (a hand-edited file) has no axis to draw on.
    return [
        (name, mode.call_breakdown)
        for name, mode in modes
        if mode is not None and mode.call_breakdown is not None and mode.call_breakdown.call_us > 0
    ]


def rows(report: ScenarioReport | None) -> list[tuple[str, str, list[TimelineSpan]]]:
    """(mode, lane, its spans) per row, top to bottom; a lane with nothing in it (no launch calls on a CPU,
    no guards eager) has no row."""
    found = []
    for name, breakdown in breakdowns(report):
        for lane in LANES:
            spans = [span for span in breakdown.timeline if span.lane == lane]
            if spans:
                found.append((name, lane, spans))
    return found


def busy_columns(spans: list[TimelineSpan], end_us: float, columns: int) -> list[int]:
    """The columns (0 to ``columns - 1`` across [0, ``end_us``]) that any of ``spans`` covers."""
    if end_us <= 0 or columns <= 0:
        return []
    width = end_us / columns
    busy: set[int] = set()
    for span in spans:
        first = min(int(span.start_us / width), columns - 1)
        last = min(max(int(math.ceil(span.end_us / width)) - 1, first), columns - 1)
        busy.update(range(max(first, 0), last + 1))
    return sorted(busy)


def row_label(mode: str, lane: str) -> str:
    cut = mode if len(mode) <= MODE_CHARS else mode[: MODE_CHARS - 1] + "…"
    return f"{cut} {LANE_WORDS[lane]}"


def draw_timeline(
    plt: Any,  # the chart's own plotext figure, which ships no types
    report: ScenarioReport | None,
    highlight: tuple[str | None, Any],
    *,
    plain: bool,
    columns: int,
) -> dict[str, Series]:
    """Draw every mode's lanes over one time axis; return what was drawn by row label (and ``highlighted``)."""
    drawn_rows = rows(report)
    if not drawn_rows:
        return {}
    end_us = max(breakdown.call_us for _, breakdown in breakdowns(report))
    # Sampled twice as finely as the plot's columns, which plotext sizes its own way: every column it draws
    # then holds a sample, so a busy stretch never shows a gap that is not in the call.
    columns *= 2
    width = end_us / columns
    drawn: dict[str, Series] = {}
    count = len(drawn_rows)
    for index, (mode, lane, spans) in enumerate(drawn_rows):
        y = float(count - index)
        xs = [(column + 0.5) * width for column in busy_columns(spans, end_us, columns)]
        plt.scatter(xs, [y] * len(xs), color=LANE_COLORS[lane], marker=LANE_MARKS[lane] if plain else "█")
        drawn[row_label(mode, lane)] = (xs, [y] * len(xs))
    mode_name, kernel = highlight
    if mode_name is not None and kernel is not None:
        for index, (mode, lane, spans) in enumerate(drawn_rows):
            if mode != mode_name or lane != "device":
                continue
            marked = [span for span in spans if span.name == kernel.short_name]
            xs = [(column + 0.5) * width for column in busy_columns(marked, end_us, columns)]
            if xs:
                y = float(count - index)
                plt.scatter(xs, [y] * len(xs), color=HIGHLIGHT_COLOR, marker="◆")
                drawn[HIGHLIGHT] = (xs, [y] * len(xs))
    plt.xlabel("time from the start of the call")
    plt.xlim(0, end_us)
    plt.ylim(0.5, count + 0.5)
    ticks = [end_us * share for share in (0, 0.25, 0.5, 0.75, 1)]
    plt.xticks(ticks, [format_time_us(tick) for tick in ticks])
    plt.yticks([float(count - index) for index in range(count)], [row_label(m, lane) for m, lane, _ in drawn_rows])
    plt.title("one profiled call, eager above compiled, on one time axis")
    return drawn


class TimelineDrawing:
    """The ``ModeDrawing`` of ``timeline``: the profiled calls of the scenario on screen, not the sweep."""

    def drawn(self, data: ChartData) -> bool:
        return bool(rows(data.report))

    def hint(self, data: ChartData) -> str:
        report = data.report
        if report is None or report.eager is None:
            return "r measures the call; b then shows where one call's time goes, eager above compiled."
        if report.is_preview:
            return "A preview runs nothing: no call to draw (a GPU run or a CPU run has its timeline)."
        return "This report holds no profiled call's timeline (saved by an older kernel-tui)."

    def legend(self, data: ChartData) -> list[LegendEntry]:
        lanes = {lane for _, lane, _ in rows(data.report)}
        entries: list[LegendEntry] = [
            (LANE_WORDS[lane], LANE_COLORS[lane], LANE_MARKS[lane]) for lane in LANES if lane in lanes
        ]
        mode_name, kernel = data.highlight
        if kernel is not None and any(
            mode == mode_name and lane == "device" and any(span.name == kernel.short_name for span in spans)
            for mode, lane, spans in rows(data.report)
        ):
            entries.append((f"{mode_name} {kernel.short_name}", HIGHLIGHT_COLOR, "◆"))
        return entries

    def subtitle(self, data: ChartData) -> list[str]:
        parts = []
        for name, breakdown in breakdowns(data.report):
            share = 100 * breakdown.kernels_us / breakdown.parts_us if breakdown.parts_us else 0.0
            parts.append(f"{name} {format_time_us(breakdown.call_us)}, kernels {share:.0f}%")
        return parts

    def key(self, data: ChartData) -> tuple[Any, ...]:
        return (id(data.report), data.highlight)

    def draw(self, plt: Any, data: ChartData, *, plain: bool, size: tuple[int, int]) -> dict[str, Series]:
        columns, _ = size
        # Less the row labels on the left and the frame.
        return draw_timeline(plt, data.report, data.highlight, plain=plain, columns=max(columns - 22, 10))


DRAWING = TimelineDrawing()
