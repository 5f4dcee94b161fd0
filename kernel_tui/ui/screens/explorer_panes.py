"""The explorer's panes, made once and held, and the one place they are handed their slices of ``Shown``.

Each pane holds its slice as a reactive (``shown``; the lesson and the editor's text also hold the code's links,
``code``, and the kernel tables the code cursor's line, ``marked_line``). ``Panes.hand`` sets them all from one
``Shown``, inside one ``batch_update``; a reactive compares what it is handed with what it holds (each slice is a
frozen value, compared field by field, the same objects at once), so a pane whose slice did not change is not
drawn again, and no list of what changed is kept here. The explorer calls it from its ``shown`` watcher, the one
funnel.

The panes are composed once (``explorer_layout.compose_explorer`` lays these very widgets out), so they are held
rather than looked up on every change. The editor's text area is the one pane mounted later, with the first
snippet: it is found under the editor pane each time, and one not mounted yet gets its slice with the next change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from textual.css.query import NoMatches

from kernel_tui.ui.widgets.charts.runtime_chart import RuntimeChart
from kernel_tui.ui.widgets.kernel_name import KernelNameLine
from kernel_tui.ui.widgets.kernel_table import KernelTable
from kernel_tui.ui.widgets.lesson_view import LessonView
from kernel_tui.ui.widgets.run_status import RunStatusBar
from kernel_tui.ui.widgets.scenario_list import ScenarioList
from kernel_tui.ui.widgets.snippet_editor import SnippetEditor
from kernel_tui.ui.widgets.steady_static import SteadyLine
from kernel_tui.ui.widgets.summary_strip import SummaryStrip
from kernel_tui.ui.widgets.variants_table import VariantsPane

if TYPE_CHECKING:
    from textual.app import App

    from kernel_tui.ui.view.shown import Shown
    from kernel_tui.ui.widgets.snippet_text import SnippetTextArea


@dataclass(frozen=True)
class Panes:
    """Every pane of the explorer that shows a slice of ``Shown``, and the editor pane that holds the text area."""

    scenarios: ScenarioList
    lesson: LessonView
    chart: RuntimeChart
    editor: SnippetEditor
    signature: SteadyLine
    eager: KernelTable
    compiled: KernelTable
    variants: VariantsPane
    name: KernelNameLine
    summary: SummaryStrip
    status: RunStatusBar

    @classmethod
    def made(cls) -> Panes:
        """The panes, each with the id the style sheet, the keys and the tests know it by."""
        return cls(
            scenarios=ScenarioList(id="scenarios"),
            lesson=LessonView(id="lesson"),
            chart=RuntimeChart(id="chart"),
            editor=SnippetEditor(id="editor"),
            signature=SteadyLine(id="signature"),
            eager=KernelTable("eager", "Eager", id="eager"),
            compiled=KernelTable("compiled", "Compiled", id="compiled"),
            variants=VariantsPane(id="variants"),
            name=KernelNameLine(id="kernel-name"),
            summary=SummaryStrip(id="summary"),
            status=RunStatusBar(id="status"),
        )

    def hand(self, app: App[Any], shown: Shown) -> None:
        """Hand each pane its slice of ``shown``, in one batch (no frame is painted with some panes handed theirs
        and others not). The code's links go after the tables' own slices, whose rows they mark."""
        with app.batch_update():
            self.scenarios.shown = shown.scenarios
            self.lesson.shown = shown.lesson
            self.signature.shown = shown.signature
            self.eager.shown = shown.eager
            self.variants.shown = shown.variants
            self.compiled.shown = shown.compiled
            self.summary.shown = shown.summary
            self.chart.shown = shown.chart
            self.lesson.code = shown.code
            if (text_area := self._text_area()) is not None:
                text_area.code = shown.code
            self.eager.marked_line = shown.code.marked_line
            self.compiled.marked_line = shown.code.marked_line
            self.name.shown = shown.name
            self.status.shown = shown.status

    def _text_area(self) -> SnippetTextArea | None:
        """The editor's text area once mounted (with the first snippet). Looked up among the editor's children by id,
        not queried (a query walks the pane, on every change): its class is imported only once a snippet opens."""
        try:
            found = self.editor.get_child_by_id("snippet-text")
        except NoMatches:
            return None
        return cast("SnippetTextArea", found) if found.is_mounted else None
