"""Handing the explorer's panes their slices of ``Shown``: each pane is given its own when it changed.

The one place a pane is told what to show (``show_panes``): the explorer calls it from its ``shown`` watcher
with the value before, and with None (every slice) after a layout switch or when a deferred tab mounts. A
pane not mounted yet (``Deferred``) is skipped; it gets its slice when it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from kernel_tui.ui.screens.explorer_layout import find
from kernel_tui.ui.widgets.kernel_table import KernelTable
from kernel_tui.ui.widgets.lesson_view import LessonView
from kernel_tui.ui.widgets.run_status import RunStatusBar
from kernel_tui.ui.widgets.runtime_chart import RuntimeChart
from kernel_tui.ui.widgets.scenario_list import ScenarioList
from kernel_tui.ui.widgets.summary_strip import SummaryStrip
from kernel_tui.ui.widgets.variants_table import VariantsPane

if TYPE_CHECKING:
    from kernel_tui.ui.shown import Shown

PANE_SLICES = ("scenarios", "lesson", "signature", "eager", "variants", "compiled", "summary", "chart")
"""The slices of ``Shown`` handed to a pane, besides the status line's, in the order the panes are shown."""
OF_THE_RUN = frozenset(PANE_SLICES) - {"chart"}
"""Slices whose change can change the kernel under a table's cursor or which keys apply: a sweep point (the
chart) or a tick (the status line) changes neither, and they come many times a second."""


def show_panes(screen: Screen[Any], new: Shown, old: Shown | None) -> set[str]:
    """Hand each pane of ``screen`` its slice of ``new`` where it differs from ``old`` (None: every slice);
    the names of the slices that changed, the status line's left out."""
    changed = {name for name in PANE_SLICES if old is None or getattr(old, name) != getattr(new, name)}
    if "scenarios" in changed and (scenarios := find(screen, "#scenarios", ScenarioList)):
        scenarios.show(new.scenarios)
    if "lesson" in changed and (lesson := find(screen, "#lesson", LessonView)):
        lesson.show(new.lesson.entry, hide_explanation=new.lesson.hide_explanation)
    if "signature" in changed and (signature := find(screen, "#signature", Static)):
        signature.update(Content(new.signature))
        signature.display = bool(new.signature)
    if "eager" in changed and (eager := find(screen, "#eager", KernelTable)):
        eager.show(new.eager)
    if "variants" in changed and (variants := find(screen, "#variants", VariantsPane)):
        variants.show(new.variants)
    if "compiled" in changed and (compiled := find(screen, "#compiled", KernelTable)):
        compiled.show(new.compiled)
    if "summary" in changed and (summary := find(screen, "#summary", SummaryStrip)):
        summary.show(new.summary)
    if "chart" in changed and (chart := find(screen, "#chart", RuntimeChart)):
        chart.show(new.chart)
    if (old is None or old.status != new.status) and (status := find(screen, "#status", RunStatusBar)):
        status.show(new.status)
    return changed
