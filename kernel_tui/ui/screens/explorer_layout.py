"""The explorer's two layouts: side by side on a large terminal, tabs on a small one (80x24).

Which widget goes where, and how to find and focus a pane in either layout: what the widgets show is the
explorer screen's business (it hands each pane its slice of ``kernel_tui.ui.view.shown.Shown``). On a small
terminal the tabs that start hidden are mounted just after the first frame (``Deferred``), so a pane's widget
may not be there yet.
"""

from __future__ import annotations

import weakref
from typing import Any, TypeVar

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane, Tabs

from kernel_tui.ui.widgets.charts.runtime_chart import RuntimeChart
from kernel_tui.ui.widgets.deferred import Deferred
from kernel_tui.ui.widgets.kernel_name import KernelNameLine
from kernel_tui.ui.widgets.kernel_table import KernelTable
from kernel_tui.ui.widgets.lesson_view import LessonView
from kernel_tui.ui.widgets.pane_tabs import PaneTabs
from kernel_tui.ui.widgets.run_status import RunStatusBar
from kernel_tui.ui.widgets.scenario_list import ScenarioList
from kernel_tui.ui.widgets.snippet_editor import SnippetEditor
from kernel_tui.ui.widgets.steady_footer import SteadyFooter
from kernel_tui.ui.widgets.steady_header import SteadyHeader
from kernel_tui.ui.widgets.steady_static import SteadyStatic
from kernel_tui.ui.widgets.summary_strip import SummaryStrip
from kernel_tui.ui.widgets.variants_table import VariantsPane, VariantsTable

WIDE_MIN_SIZE = (120, 32)
"""From this many columns and rows the panes sit side by side; below it they become tabs."""
TOP_MIN_HEIGHT = 12
"""Rows the lesson and the chart keep on a large terminal (``#top``); the results below get the rest."""
EDITING_TOP_SHARE = 0.6
"""While the editor holds the scenario shown on a large terminal, the share of the rows it and the chart keep:
at 120x36 that is 19 rows, room for a course scenario's ``fn`` and ``inputs`` whole (12 was 8 rows of text)."""
SCREEN_CHROME_ROWS = 3
"""The header, the status line and the footer."""
SIDE_BY_SIDE_TABLES_MIN_WIDTH = 176
"""From this many columns the two kernel tables sit side by side (each wide enough for a kernel name, its
bandwidth and what it was fused into or replaced); below it they are stacked."""
PANES = {
    "scenarios": "#scenarios",
    "lesson": "#lesson",
    "kernels": "#eager",
    "chart": "#chart",
    "editor": "#snippet-text",
}
"""What the 1-5 keys show, in order, and the widget each focuses; ``kernels`` means the eager table."""


def fits_wide(size: tuple[int, int]) -> bool:
    width, height = size
    return width >= WIDE_MIN_SIZE[0] and height >= WIDE_MIN_SIZE[1]


def compose_explorer(wide: bool) -> ComposeResult:
    """Every widget of the explorer, in the layout for a large (``wide``) or a small terminal."""
    yield SteadyHeader()
    if wide:
        with Horizontal(id="main"):
            yield ScenarioList(id="scenarios")
            with Vertical(id="work"):
                with Horizontal(id="top"):
                    yield SnippetEditor(id="editor")
                    yield LessonView(id="lesson")
                    yield RuntimeChart(id="chart")
                # Scrolls when the tables and the summary outgrow the room the lesson leaves them (a
                # training step's two sections at 120x36 pushed the summary off the screen).
                with VerticalScroll(id="results"):
                    yield SteadyStatic(id="signature")
                    with Horizontal(id="tables"):
                        yield KernelTable("eager", "Eager", id="eager")
                        yield KernelTable("compiled", "Compiled", id="compiled")
                    yield VariantsPane(id="variants")
                    yield KernelNameLine(id="kernel-name")
                    yield SummaryStrip(id="summary")
    else:
        with PaneTabs(id="tabs", initial="tab-scenarios"):
            with TabPane("1 Scenarios", id="tab-scenarios"):
                yield ScenarioList(id="scenarios")
            with TabPane("2 Lesson", id="tab-lesson"):
                yield Deferred(LessonView(id="lesson"))
            with TabPane("3 Kernels", id="tab-kernels"):
                with Deferred(VerticalScroll(id="kernels")):
                    yield SteadyStatic(id="signature")
                    yield KernelTable("eager", "Eager", id="eager")
                    yield KernelTable("compiled", "Compiled", id="compiled")
                    yield VariantsPane(id="variants")
                    yield KernelNameLine(id="kernel-name")
                    yield SummaryStrip(id="summary")
            with TabPane("4 Chart", id="tab-chart"):
                yield Deferred(RuntimeChart(id="chart"))
            with TabPane("5 Editor", id="tab-editor"):
                yield Deferred(SnippetEditor(id="editor"))
    yield RunStatusBar(id="status")
    yield SteadyFooter()


W = TypeVar("W", bound=Widget)


_found: weakref.WeakKeyDictionary[Screen[Any], dict[str, Widget]] = weakref.WeakKeyDictionary()
"""Per screen, the widget each ``#id`` was last found as: the explorer looks its panes up on every report,
stage and sweep point, and each query walked the whole screen (about 1 ms)."""


def find(screen: Screen[Any], selector: str, expect: type[W]) -> W | None:
    """The widget, or None while its pane has not been mounted yet (see ``Deferred``) or is being replaced
    (a layout switch): a widget attached but not mounted has not composed its own children yet, and asking
    it to show something queried children that were not there (``NoMatches`` on ``#status-text``)."""
    known = _found.setdefault(screen, {})
    widget = known.get(selector)
    # A widget removed since (the layout changed, and the screen was composed again) is looked up anew.
    if widget is not None and widget.is_attached and widget.screen is screen and isinstance(widget, expect):
        return widget if widget.is_mounted else None
    found = screen.query(selector)
    if not found:
        return None
    widget = found.first(expect)
    if not widget.is_mounted:
        return None
    if selector.startswith("#") and selector[1:].replace("-", "").replace("_", "").isalnum():
        known[selector] = widget
    return widget


def focused_pane(screen: Screen[Any]) -> str:
    """The pane that holds the focus; when none does, the tab shown (a tab's key takes the focus from the pane
    it leaves before its own pane's widget can take it), else the scenario list."""
    focused = screen.focused
    if focused is None:
        return shown_tab(screen) or "scenarios"
    for pane, selector in PANES.items():
        widget = find(screen, selector, Widget)
        if widget is not None and (focused is widget or widget in focused.ancestors):
            return pane
    return "kernels" if isinstance(focused, (KernelTable, VariantsTable)) else "scenarios"


def focus_pane(screen: Screen[Any], pane: str, *, tabs: bool, tries: int = 10) -> None:
    """Focus ``pane``'s widget once it can take focus; with ``tabs``, keep it through the tab switch. A pane asked
    for since (``b`` right after ``s``: the chart after the kernels) wins: this one then gives up."""
    if tabs and not _tab_shown(screen, pane):
        return
    widget = find(screen, PANES[pane], Widget)
    if widget is not None and widget.focusable:
        widget.focus()
        if tabs:
            screen.call_after_refresh(_keep_focus, screen, pane, widget, 3)
    elif tries:
        # The tab switch shows the pane (or a deferred pane mounts) a refresh or two later; until then its
        # widget cannot take focus.
        screen.call_after_refresh(focus_pane, screen, pane, tabs=tabs, tries=tries - 1)


def show_tab(screen: Screen[Any], pane: str) -> None:
    """Show ``pane``'s tab (the small layout). The focus leaves with the tab it was in: held there, the tab left
    would be shown again by that pane's focus message still queued (``PaneTabs``) before the new pane's widget
    can take the focus (``focus_pane``, a refresh or two later)."""
    tabs = screen.query_one(TabbedContent)
    tabs.active = f"tab-{pane}"
    if screen.focused is not None and tabs.active_pane not in screen.focused.ancestors:
        screen.set_focus(None)


def shown_tab(screen: Screen[Any]) -> str | None:
    """The pane whose tab is shown (the small layout); None where there are no tabs, or none is shown."""
    tabs = screen.query(TabbedContent)
    pane = tabs.first().active.removeprefix("tab-") if tabs else ""
    return pane if pane in PANES else None


def _tab_shown(screen: Screen[Any], pane: str) -> bool:
    """Whether ``pane``'s tab is the one shown (True where there are no tabs)."""
    return not screen.query(TabbedContent) or shown_tab(screen) == pane


def _keep_focus(screen: Screen[Any], pane: str, widget: Widget, checks: int) -> None:
    # A tab switch can deliver a late Hide to the newly focused pane (Textual then moves focus to the tab
    # bar): take it back for the next few refreshes, before a learner could have moved it. Focusing a widget
    # shows its tab, so once another tab is shown, taking the focus back would undo that tab's key.
    if not _tab_shown(screen, pane):
        return
    if screen.focused is not widget and isinstance(screen.focused, Tabs) and widget.focusable:
        widget.focus()
    if checks > 1:
        screen.call_after_refresh(_keep_focus, screen, pane, widget, checks - 1)
