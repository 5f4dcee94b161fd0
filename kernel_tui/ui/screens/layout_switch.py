"""The explorer's switch between its two layouts (``explorer_layout``) when the terminal is resized, as one step.

Recomposing replaces every widget, and keys, ticks and engine messages keep arriving meanwhile: a pane being
replaced is attached before its own children are composed, and a tab bar before its tabs. So the keys already
on their way reach the screen before the switch begins, the keys pressed while it runs are kept and pressed
again once the new pane has the focus (a pane asked for otherwise, from the palette, is shown then too), and the
panes are handed their slices only once it has ended (``find`` skips a widget not mounted yet). A resize that
comes during the switch is read when it ends, so the layout always follows the last size. ``LayoutSwitch`` is a
part the explorer holds, not a half of it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import events

from kernel_tui.ui.screens.explorer_layout import (
    EDITING_TOP_SHARE,
    SCREEN_CHROME_ROWS,
    SIDE_BY_SIDE_TABLES_MIN_WIDTH,
    TOP_MIN_HEIGHT,
    fits_wide,
    focused_pane,
)

if TYPE_CHECKING:
    from textual.screen import Screen

KEYS_UNDER_WAY_S = 2.0
"""How long a switch waits for the keys under way to arrive: past it, a widget stuck in a handler of its own loses
them rather than holding up the layout."""


class LayoutSwitch:
    """Which layout the explorer's widgets are in, and the switch to the other one."""

    def __init__(
        self, screen: Screen[Any], wide: bool, *, show_every_pane: Callable[[], None], show_pane: Callable[[str], None]
    ) -> None:
        self._screen = screen
        self._show_every_pane = show_every_pane
        """Hands every pane its slice of ``Shown`` again, once the widgets are new."""
        self._show_pane = show_pane
        self.wide = wide
        """The layout the widgets on screen are composed in: side by side (True) or tabs."""
        self._switching_to: bool | None = None
        """While the screen is recomposed for the other layout: that layout."""
        self._pane_after_switch: str | None = None
        """The pane to show once the switch ends: the one focused before it, or one a key asked for during it."""
        self._kept_keys: list[events.Key] = []
        """Keys pressed while the switch runs, in order, for the pane focused once it ends."""
        self._refocusing: str | None = None
        """After a switch, until its pane has the focus back: that pane."""

    @property
    def switching(self) -> bool:
        """Whether the widgets are being replaced for the other layout now."""
        return self._switching_to is not None

    @property
    def composing_wide(self) -> bool:
        """The layout ``compose`` builds: the one being switched to, else the one on screen."""
        return self.wide if self._switching_to is None else self._switching_to

    def keep_pane_for_after_switch(self, pane: str) -> bool:
        """During a switch, remember ``pane`` to show when it ends (True); False when no switch is under way."""
        if self._switching_to is None:
            return False
        self._pane_after_switch = pane
        return True

    def keep_key(self, key: events.Key) -> None:
        """Keep ``key`` for the widget the switch focuses when it ends (the app asks, ``keeping_keys``).

        Mid-switch, and until the new pane has the focus, nothing holds it (the focused widget was replaced), so
        a key went to the screen's bindings: letters typed in the editor were lost, and its ``r`` and ``n`` ran a
        scenario or moved the list.
        """
        self._kept_keys.append(key)

    @property
    def keeping_keys(self) -> bool:
        """Whether a key pressed now is kept (``keep_key``): during a switch, and after it until the pane it
        restores has the focus and the keys kept are pressed again, so that none overtakes them."""
        return self._switching_to is not None or self._refocusing is not None

    def _press_kept_keys(self, pane: str, tries: int = 20) -> None:
        # After the pane's focus, which ``show_pane`` asks for a frame or more later (a tab shown first); until
        # then the focus is nowhere, or on a widget Textual chose when it removed the focused one.
        if self._switching_to is not None or self._refocusing != pane:
            return  # another switch: its end presses them
        focused = self._screen.focused
        if (focused is None or focused_pane(self._screen) != pane) and tries > 0:
            self._screen.call_after_refresh(self._press_kept_keys, pane, tries - 1)
            return
        # From the app's queue, as the app hands a key on (``App.on_event``): keys pressed until then are kept too,
        # behind these. A key made here would name the screen as its sender, and stop there on its way up to the
        # app's check of the bindings.
        self._screen.app.call_later(self._hand_on_kept_keys)

    def _hand_on_kept_keys(self) -> None:
        if self._switching_to is not None:
            return  # another switch: its end hands them on
        self._refocusing = None
        kept, self._kept_keys = self._kept_keys, []
        app = self._screen.app
        for key in kept:
            (app.focused or app.screen)._forward_event(events.Key(key.key, key.character))

    async def resized(self) -> None:
        if self._switching_to is not None:
            return  # the switch under way reads the size again when it ends
        screen = self._screen
        while screen.is_attached and (wide := fits_wide(screen.app.size)) != self.wide:
            self._pane_after_switch = self._pane_after_switch or focused_pane(screen)
            self._switching_to = wide
            try:
                await deliver_keys_under_way(screen)
                await screen.recompose()
            finally:
                self._switching_to = None
            self.wide = wide
        self.fit_tables()
        if (pane := self._pane_after_switch) is not None:
            self._pane_after_switch = None
            self._show_every_pane()
            self._show_pane(pane)
            self._refocusing = pane
            self._screen.call_after_refresh(self._press_kept_keys, pane)

    def fit_tables(self) -> None:
        # The layout on screen is the one compose last built (its class), which a resize handler's ``wide`` can
        # trail: a held key and a resize together once left ``wide`` True over the tabs, and #tables was not there.
        if not self._screen.has_class("-wide") or self._switching_to is not None:
            return
        size = self._screen.app.size
        stacked = size.width < SIDE_BY_SIDE_TABLES_MIN_WIDTH
        self._screen.query_one("#tables").set_class(stacked, "-stacked")
        # What the lesson and the chart leave: past it the results scroll rather than run off the screen.
        rows = size.height - SCREEN_CHROME_ROWS
        editing = self._screen.has_class("-editing")
        top = max(TOP_MIN_HEIGHT, int(rows * EDITING_TOP_SHARE)) if editing else TOP_MIN_HEIGHT
        self._screen.query_one("#results").styles.max_height = max(rows - top, 6)


async def deliver_keys_under_way(screen: Screen[Any]) -> None:
    """Let the keys the app has already handed the focused widget reach the screen's bindings before the switch
    removes that widget.

    The app forwards a key to the focused widget's queue, and from there it climbs the widget's ancestors; a
    widget removed first drops what waits in its queue, and one whose parent is going drops what it would pass
    up (``n`` held through a resize lost moves: the list ended a few lessons short). Each ancestor's queue is
    emptied in turn; keys pressed from now on are kept by the app until the switch ends (``keep_key``).
    """
    focused = screen.focused
    if focused is None:
        return
    for node in (focused, *focused.ancestors):
        if node is screen:
            return
        emptied = asyncio.Event()
        # Behind the keys in this widget's queue, and behind whatever the widget below has passed up to it.
        if node.call_later(emptied.set):
            try:
                await asyncio.wait_for(emptied.wait(), KEYS_UNDER_WAY_S)
            except TimeoutError:
                return
