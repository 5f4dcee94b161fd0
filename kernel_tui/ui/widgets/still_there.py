"""A widget's own child, or None while a layout switch is removing it.

A layout switch recomposes the explorer (``screens/layout_switch.py``): the old panes' children go before the
panes, and a pane's timer, worker or queued update can run in between, still attached and finding no child.
Textual's ``query_one`` raises ``NoMatches`` there and ends the app; a pane asks here instead, and does nothing
when its child has gone, since the pane that replaces it shows the same.
"""

from __future__ import annotations

from typing import TypeVar

from textual.widget import Widget

W = TypeVar("W", bound=Widget)


def still_there(parent: Widget, selector: str, expect: type[W]) -> W | None:
    return next(parent.query(selector).results(expect), None)
