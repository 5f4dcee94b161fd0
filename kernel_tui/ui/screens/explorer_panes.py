"""Handing the explorer's panes their slices of ``Shown``: each pane is given its own when it changed.

The one place a pane is told what to show (``show_panes``): the explorer calls it from its ``shown`` watcher
with the value before, and with None (every slice) when the editor's text area mounts. A widget not mounted yet
(the text area before a snippet opens) is skipped; it gets its slice when it is. The code's
links go to three panes: the lesson's code and the editor (the gutter, the linked lines, the lesson's line
cursor) and both tables (the code cursor's line, whose rows they mark), after the tables' own slices.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from textual.content import Content
from textual.screen import Screen
from textual.widget import Widget

from kernel_tui.ui.screens.explorer_layout import find
from kernel_tui.ui.widgets.charts.runtime_chart import RuntimeChart
from kernel_tui.ui.widgets.kernel_name import KernelNameLine
from kernel_tui.ui.widgets.kernel_table import KernelTable
from kernel_tui.ui.widgets.lesson_view import LessonView
from kernel_tui.ui.widgets.run_status import RunStatusBar
from kernel_tui.ui.widgets.scenario_list import ScenarioList
from kernel_tui.ui.widgets.steady_static import SteadyStatic
from kernel_tui.ui.widgets.summary_strip import SummaryStrip
from kernel_tui.ui.widgets.variants_table import VariantsPane

if TYPE_CHECKING:
    from kernel_tui.ui.view.code_links import CodeLinks
    from kernel_tui.ui.view.shown import NameShown, Shown
    from kernel_tui.ui.widgets.snippet_text import SnippetTextArea

PANE_SLICES = ("scenarios", "lesson", "signature", "eager", "variants", "compiled", "summary", "chart", "code", "name")
"""The slices of ``Shown`` handed to panes, besides the status line's, in the order they are handed: the code's
links after the tables, whose rows they mark."""
OF_THE_RUN = frozenset(PANE_SLICES) - {"chart", "code", "name"}
"""Slices whose change can change which keys apply: a sweep point (the chart), a cursor's move (the code's links,
the line under the tables) or a tick (the status line) changes none, and they come many times a second."""


def show_panes(screen: Screen[Any], new: Shown, old: Shown | None) -> set[str]:
    """Hand each pane of ``screen`` its slice of ``new`` where it differs from ``old`` (None: every slice);
    the names of the slices that changed, the status line's left out."""
    changed = {name for name in PANE_SLICES if old is None or getattr(old, name) != getattr(new, name)}
    if "scenarios" in changed and (scenarios := find(screen, "#scenarios", ScenarioList)):
        scenarios.show(new.scenarios)
    if "lesson" in changed and (lesson := find(screen, "#lesson", LessonView)):
        lesson.show(new.lesson.entry, hide_explanation=new.lesson.hide_explanation)
    if "signature" in changed and (signature := find(screen, "#signature", SteadyStatic)):
        signature.show_content(Content(new.signature))
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
    if "code" in changed:
        _show_code_links(screen, new.code)
    if "name" in changed and (name := find(screen, "#kernel-name", KernelNameLine)):
        _show_name(name, new.name)
    if (old is None or old.status != new.status) and (status := find(screen, "#status", RunStatusBar)):
        status.show(new.status)
    return changed


def _show_code_links(screen: Screen[Any], links: CodeLinks) -> None:
    if lesson := find(screen, "#lesson", LessonView):
        lesson.show_work(links.work, links.linked, links.changes, cursor=links.lesson_cursor)
    if text_area := _text_area(screen):
        if links.in_editor:
            text_area.show_lines(links.work, links.changes, links.linked)
        else:
            text_area.show_lines({}, {}, frozenset())
    for mode in ("#eager", "#compiled"):
        if table := find(screen, mode, KernelTable):
            table.mark_line(links.marked_line)


def _show_name(line: KernelNameLine, name: NameShown) -> None:
    if name.story is not None:
        line.say(name.story)
    else:
        line.show(name.mode, name.kernel, hint=name.hint, compiled=name.compiled)


def _text_area(screen: Screen[Any]) -> SnippetTextArea | None:
    found = find(screen, "#snippet-text", Widget)
    if found is None or not hasattr(found, "show_lines"):
        return None
    # Looked up as a plain Widget so that the editor's module loads only once a snippet opens (the explorer's
    # first frame does without it); the check above is what stands for the class.
    return cast("SnippetTextArea", found)
