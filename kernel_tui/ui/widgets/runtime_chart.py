"""Runtime against size: the chart pane, which holds the sweep points and shows them as they arrive.

The plot itself (``runtime_plot``: plotext, about 0.08 s of imports) is mounted just after the first
frame, so the app paints at once. Until there are points, the pane says how to get some instead of
drawing empty axes.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Static

from kernel_tui.report import SweepPoint


class RuntimeChart(Widget):
    """Median time of one call against the number of elements, eager and compiled."""

    can_focus = True
    """So Tab reaches the chart like every other pane (its border lights up)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Runtime vs size"
        self.points: list[SweepPoint] = []
        """The points shown, in the order they arrived (tests read this)."""
        self.hint = ""

    def compose(self) -> ComposeResult:
        yield Static(id="chart-hint")

    def on_mount(self) -> None:
        self._replot()
        self.call_after_refresh(self._mount_plot)

    async def _mount_plot(self) -> None:
        if not self.is_attached:  # the app quit (or the layout changed) before the first frame was out
            return
        from kernel_tui.ui.widgets.runtime_plot import RuntimePlot

        await self.mount(RuntimePlot(self.points, self.hint))
        self._replot()

    def set_points(self, points: Sequence[SweepPoint], hint: str = "") -> None:
        """Show these points (a new scenario, or a finished sweep)."""
        self.points = list(points)
        self.hint = hint
        self._replot()

    def add_point(self, point: SweepPoint) -> None:
        """Add one point as the sweep measures it."""
        self.points.append(point)
        self._replot()

    def _replot(self) -> None:
        drawn = any(point.eager_us or point.compiled_us for point in self.points)
        hint = self.query_one("#chart-hint", Static)
        hint.update(self.hint)
        hint.display = not drawn
        for plot in self.query("RuntimePlot"):
            plot.points, plot.hint = self.points, self.hint  # type: ignore[attr-defined]
            plot.display = drawn
            plot.refresh()
