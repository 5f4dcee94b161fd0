"""A widget's own child, or None while it is being removed.

Textual removes a widget's children before the widget (the app quitting takes the screens down), and a pane's
timer, worker or queued update can run in between, still attached and finding no child. Textual's ``query_one``
raises ``NoMatches`` there and ends the app with a traceback; a pane asks here instead, and does nothing when
its child has gone. (Until 7 December a layout switch removed every pane this way, and the crashes were common.)
"""

from __future__ import annotations

from typing import TypeVar

from textual.widget import Widget

W = TypeVar("W", bound=Widget)


def still_there(parent: Widget, selector: str, expect: type[W]) -> W | None:
    return next(parent.query(selector).results(expect), None)
