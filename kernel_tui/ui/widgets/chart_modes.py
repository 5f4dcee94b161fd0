"""What the chart can draw against size, in the order ``b`` cycles through them: one registry of modes.

The chart's title, the word its subtitle names the next mode by, and the cycle all come from ``CHART_MODES``;
what a mode draws is its plot's (``runtime_plot``, ``bandwidth_plot``, ``roofline_plot``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ChartMode:
    name: str
    title: str
    """The chart's border title in this mode."""
    word: str
    """The mode as the subtitle names it (``b bandwidth``: what ``b`` shows next)."""


CHART_MODES = (
    ChartMode("time", "Runtime vs size", "runtime"),
    ChartMode("bandwidth", "Bandwidth vs size", "bandwidth"),
    ChartMode("roofline", "Roofline", "roofline"),
)
"""What ``b`` cycles through, in order; the first is the chart's mode when the app starts."""
BY_NAME = {mode.name: mode for mode in CHART_MODES}


def next_chart_mode(mode: str) -> str:
    """The chart's mode after ``mode``: runtime, then achieved bandwidth, then the roofline, then runtime again."""
    names = [each.name for each in CHART_MODES]
    return names[(names.index(mode) + 1) % len(names)]
