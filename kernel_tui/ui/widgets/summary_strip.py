"""The numbers that tell the story in one glance, under the kernel tables: the lines of
``kernel_tui.ui.view.summary_lines`` for the explorer's ``SummaryShown``.

Before any run its last line is the engine's status, which is part of what it is handed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group
from textual.reactive import var

from kernel_tui.ui.view.summary_lines import summary_lines
from kernel_tui.ui.widgets.steady_static import SteadyStatic

if TYPE_CHECKING:
    from kernel_tui.ui.view.shown import SummaryShown


class SummaryStrip(SteadyStatic):
    """Summary line, claims (EXPECT ✓/✗), the sweep's strategy and the device the numbers came from; shown again
    at every stage of a run."""

    shown: var[SummaryShown | None] = var(None, init=False)
    """What the explorer hands the strip (its slice of ``Shown``)."""

    @property
    def engine(self) -> str:
        """Which engine the numbers will come from (or why there is none)."""
        return self.shown.engine if self.shown is not None else ""

    def watch_shown(self) -> None:
        """Show a report (partial or final), or, before any run, the claims the lesson makes."""
        self._draw()

    def on_resize(self) -> None:
        # The hotspot's line is fit to the strip's width: another width keeps other parts of it.
        self._draw()

    def _draw(self) -> None:
        if (summary := self.shown) is not None:
            self.show_content(Group(*summary_lines(summary, self.content_size.width or None)))
