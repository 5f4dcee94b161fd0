"""The summary strip's lines: launches, bytes against the ideal, the hotspot, speedup, claims, device; a training
step's sections and saved bytes, the side of the ridge that dominates, and the run against its pinned baseline.

The text comes from ``kernel_tui.text.formatting``, ``kernel_tui.text.render``, ``kernel_tui.text.parts.roofline_text``
and ``kernel_tui.text.baseline``, the same functions the ``kernel-tui run`` tables use, so the app and the
command line never disagree. Plain functions of a ``SummaryShown`` (no Textual), tested without an app.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from kernel_tui.model.compare.baseline_marks import ADDED, MARK_STYLES
from kernel_tui.text.call_split import CONTRADICTION_MARK, cuda_graph_lines, split_lines, verdict_lines
from kernel_tui.text.formatting import (
    busy_while_measuring,
    device_line,
    format_count,
    report_notes,
    summary_line,
    training_line,
)
from kernel_tui.text.parts.hotspot_text import hotspot_line, shows_hotspots
from kernel_tui.text.parts.memory_text import memory_line
from kernel_tui.text.parts.roofline_text import roofline_summary

if TYPE_CHECKING:
    from kernel_tui.text.baseline import BaselineComparison
    from kernel_tui.ui.view.shown import SummaryShown

RETRY_KEYS = "r measures again (s with the sweep): a quieter moment gives numbers that agree"
"""The app's offer of a retry, under the busy machine's sentence."""


def summary_lines(shown: SummaryShown, width: int | None = None) -> list[Text]:
    """The strip's lines: a report (partial or final), or, before any run, the claims the lesson makes; the
    hotspot's line fit to ``width`` cells (None: cut at the strip's edge)."""
    report, claims, error, placeholder = shown.report, shown.claims, shown.error, shown.placeholder
    lines: list[Text] = []
    if error is not None:
        # In full here (it wraps); the status line has to cut it to one line.
        lines.append(Text(f"✗ {error.short_line()} · d details", style="bold red"))
    elif (report is None or report.eager is None) and placeholder:
        lines.append(Text(placeholder, style="dim"))
    if report is not None and report.eager is not None:
        for line in verdict_lines(report):  # what the time means comes first
            lines.append(Text(line, style="yellow" if line.startswith(CONTRADICTION_MARK) else "bold"))
        lines.append(Text(summary_line(report)))
        hotspots = report.hotspots if shows_hotspots(report) else ()
        if hotspots:  # one line, the compiled call's where it was measured: what a user would make faster
            lines.append(Text(hotspot_line(hotspots[-1], width), no_wrap=True, overflow="ellipsis"))
        # The compile split, a line per variant, is in the details (d): here it pushed the chart's labels out.
        lines.extend(Text(line) for line in (*split_lines(report), *cuda_graph_lines(report)))
        if report.eager.is_training:
            lines.append(Text(training_line(report)))
        memory = memory_line(report)
        if memory is not None:
            lines.append(Text(memory))
        if report.ceilings is not None and report.ceilings.ridge is not None:
            # Without a ridge the line would say only "?" FLOPs: which side dominates is its point.
            lines.append(Text(roofline_summary(report)))
    if shown.pinned:
        lines.append(Text("baseline: this run is pinned · B unpins it", style="bold"))
    elif shown.baseline is not None:
        lines.extend(baseline_lines(shown.baseline))
    if report is not None and report.expect:
        from kernel_tui.text.render import claims_text  # with the first report (the first frame has none)

        checks = Text("EXPECT ", style="bold")
        checks.append_text(claims_text(report))
        lines.append(checks)
    elif claims:
        declared = ", ".join(f"{key} {format_count(value)}" for key, value in claims.items())
        lines.append(Text.assemble(("EXPECT ", "bold"), (f"{declared} (not checked yet)", "dim")))
    for note in report_notes(report) if report is not None else ():
        lines.append(Text(f"⚠ {note}", style="yellow"))
    if report is not None and busy_while_measuring(report) is not None:
        lines.append(Text(RETRY_KEYS, style="bold yellow"))
    if report is not None and report.sweep_strategy:
        lines.append(Text(f"sweep: {report.sweep_strategy}", style="dim"))
    lines.append(Text(device_line(report) if report is not None else shown.engine, style="dim"))
    return lines


def baseline_lines(comparison: BaselineComparison) -> list[Text]:
    """Per mode, launches and bytes against the pinned run, and the time or ``no measurable difference``."""
    # With the first comparison, after the first frame.
    from kernel_tui.text.baseline import run_differences, time_text, totals_text

    besides = run_differences(comparison)
    heading = "against the run pinned with B" + (f" ({', '.join(besides)})" if besides else "")
    lines = [Text(heading, style="bold")]
    for mode in comparison.modes:
        line = Text("  ")
        line.append(totals_text(mode), style=MARK_STYLES[ADDED] if mode.launches_grew or mode.bytes_grew else "")
        if time := time_text(mode.time):
            line.append(f" · {time}")
        lines.append(line)
    lines.extend(Text(f"  {note}", style="yellow") for note in comparison.notes)
    return lines
