"""The explorer's widgets, composed once, and its two layouts: side by side on a large terminal, one pane at a
time under a tab bar on a small one (80x24).

A layout is a class on the screen, never a new set of widgets: ``-wide`` or ``-narrow``, and ``-show-<pane>`` for
the pane the small layout shows (``app.tcss`` hides the others and shows the tab bar). A resize only sets those
classes (``ExplorerLayout.fit``), so the focused widget stays where it is and a key typed during a resize reaches
it, as any other key does. What the widgets show is the explorer screen's business (it hands each pane its slice
of ``kernel_tui.ui.view.shown.Shown``).
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, TypeVar

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Tab, Tabs

from kernel_tui.ui.widgets.steady_footer import SteadyFooter
from kernel_tui.ui.widgets.steady_header import SteadyHeader

if TYPE_CHECKING:
    from kernel_tui.ui.screens.explorer_panes import Panes

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
PANE_BOXES = {
    "scenarios": "#scenarios",
    "lesson": "#lesson",
    "kernels": "#results",
    "chart": "#chart",
    "editor": "#editor",
}
"""The widget that holds each pane, and that the small layout shows alone."""


def fits_wide(size: tuple[int, int]) -> bool:
    width, height = size
    return width >= WIDE_MIN_SIZE[0] and height >= WIDE_MIN_SIZE[1]


def compose_explorer(panes: Panes) -> ComposeResult:
    """Every widget of the explorer, once (the ``panes`` made for it, held by the screen): the screen's classes
    lay them out (``app.tcss``)."""
    yield SteadyHeader()
    # Each tab says its key and its pane: "1 Scenarios" ... "5 Editor".
    yield Tabs(*(Tab(f"{key} {pane.capitalize()}", id=f"tab-{pane}") for key, pane in enumerate(PANES, 1)), id="tabs")
    with Horizontal(id="main"):
        yield panes.scenarios
        with Vertical(id="work"):
            with Horizontal(id="top"):
                yield panes.editor
                yield panes.lesson
                yield panes.chart
            # Scrolls when the tables and the summary outgrow the room the lesson leaves them (a training
            # step's two sections at 120x36 pushed the summary off the screen); the small layout's kernels tab.
            with VerticalScroll(id="results"):
                yield panes.signature
                with Horizontal(id="tables"):
                    yield panes.eager
                    yield panes.compiled
                yield panes.variants
                yield panes.name
                yield panes.summary
    yield panes.status
    yield SteadyFooter()


class ExplorerLayout:
    """Which layout the explorer is in, and which pane the small one shows: classes on the screen.

    Setting a class on the screen restyles every widget on it (a tenth of a second at 80x24 on a loaded machine),
    so the classes change together, once per switch, and the 1-5 keys change none in the large layout, where
    every pane is shown anyway."""

    def __init__(self, screen: Screen[Any]) -> None:
        self._screen = screen
        self.pane = "scenarios"
        """The pane the small layout shows (its tab), and the one the 1-5 keys last asked for."""
        self._set_classes(fits_wide(screen.app.size))

    @property
    def wide(self) -> bool:
        return self._screen.has_class("-wide")

    def _set_classes(self, wide: bool) -> None:
        screen = self._screen
        for pane in PANES:
            screen.remove_class(f"-show-{pane}", update=False)
        screen.set_class(wide, "-wide", update=False)
        screen.set_class(not wide, "-narrow", update=False)
        if not wide:
            screen.add_class(f"-show-{self.pane}", update=False)
        screen.update_node_styles()

    def fit(self) -> None:
        """Lay the panes out for the terminal's size now: after every resize."""
        screen = self._screen
        wide = fits_wide(screen.app.size)
        if wide != self.wide:
            if not wide:
                # The small layout shows the pane that holds the focus, which so stays on screen.
                self.pane = self.focused_pane()
                screen.query_one("#tabs", Tabs).active = f"tab-{self.pane}"
            self._set_classes(wide)
            if wide and (screen.focused is None or isinstance(screen.focused, Tabs)):
                # The tab bar is gone: back to the pane it showed (a tab's key had taken the focus from the pane
                # it left, and its own pane's widget had not taken it yet).
                screen.call_after_refresh(self.focus, self.pane)
        self.fit_tables()

    def bring_forward(self, pane: str) -> None:
        """Show ``pane`` (its tab, in the small layout). The focus leaves a pane hidden: held there, keys would
        go to a widget no one sees until ``pane``'s widget takes the focus (``focus``, a refresh later)."""
        screen = self._screen
        if pane == self.pane:
            return
        self.pane = pane
        if self.wide:
            return
        self._set_classes(wide=False)
        screen.query_one("#tabs", Tabs).active = f"tab-{pane}"
        focused = screen.focused
        if focused is not None and not isinstance(focused, Tabs) and self.focused_pane() != pane:
            screen.set_focus(None)

    def tab_activated(self, tabs: Tabs, tab: Tab) -> None:
        """A tab clicked, or chosen with the arrow keys on the tab bar: its pane shown, the focus left on the bar.
        A tab the bar has left since (``bring_forward`` moved it on before this message arrived) is not shown again."""
        if tab.id is not None and tabs.active == tab.id:
            self.bring_forward(tab.id.removeprefix("tab-"))

    def focused_pane(self) -> str:
        """The pane that holds the focus; when none does, the pane shown (a tab's key takes the focus from the
        pane it leaves before its own pane's widget can take it)."""
        screen = self._screen
        focused = screen.focused
        if focused is not None:
            for pane, selector in PANE_BOXES.items():
                box = find(screen, selector, Widget)
                if box is not None and (focused is box or box in focused.ancestors):
                    return pane
        return self.pane

    def focus(self, pane: str, tries: int = 10) -> None:
        """Focus ``pane``'s widget once it can take focus, and keep it through the tab switch. A pane asked for
        since (``b`` right after ``s``: the chart after the kernels) wins: this one then gives up."""
        if self.pane != pane:
            return
        screen = self._screen
        widget = find(screen, PANES[pane], Widget)
        if widget is not None and widget.focusable and all(node.display for node in widget.ancestors_with_self):
            widget.focus()
            screen.call_after_refresh(self._keep_focus, pane, widget, 3)
        elif tries:
            # A pane just shown can take the focus once laid out, a refresh later (the editor's text area mounts
            # later still).
            screen.call_after_refresh(self.focus, pane, tries - 1)

    def _keep_focus(self, pane: str, widget: Widget, checks: int) -> None:
        # A pane hidden and shown again (3, 4, 3) can be handed a late Hide, and Textual then moves the focus on
        # (to the tab bar): take it back for the next few refreshes, before a learner could have moved it. Once
        # another pane is shown, taking the focus back would undo that pane's key.
        if self.pane != pane:
            return
        screen = self._screen
        if screen.focused is not widget and isinstance(screen.focused, Tabs) and widget.focusable:
            widget.focus()
        if checks > 1:
            screen.call_after_refresh(self._keep_focus, pane, widget, checks - 1)

    def fit_tables(self) -> None:
        screen = self._screen
        results = screen.query_one("#results")
        if not self.wide:
            results.styles.max_height = None  # the kernels tab: the whole pane
            return
        size = screen.app.size
        stacked = size.width < SIDE_BY_SIDE_TABLES_MIN_WIDTH
        screen.query_one("#tables").set_class(stacked, "-stacked")
        # What the lesson and the chart leave: past it the results scroll rather than run off the screen.
        rows = size.height - SCREEN_CHROME_ROWS
        editing = screen.has_class("-editing")
        top = max(TOP_MIN_HEIGHT, int(rows * EDITING_TOP_SHARE)) if editing else TOP_MIN_HEIGHT
        results.styles.max_height = max(rows - top, 6)


W = TypeVar("W", bound=Widget)


_found: weakref.WeakKeyDictionary[Screen[Any], dict[str, Widget]] = weakref.WeakKeyDictionary()
"""Per screen, the widget each ``#id`` was last found as: the snippet workbench looks the editor pane up on every
key typed, and each query walked the whole screen (about 1 ms). (The panes that show ``Shown`` are held, not
looked up: ``explorer_panes.Panes``.)"""


def find(screen: Screen[Any], selector: str, expect: type[W]) -> W | None:
    """The widget, or None while it is not mounted (the editor's text area before a snippet opens, every pane
    before the screen has composed them)."""
    known = _found.setdefault(screen, {})
    widget = known.get(selector)
    if widget is not None and widget.is_attached and isinstance(widget, expect):
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
