"""Every kernel-tui screen gives the focus only to a widget that is staying on it, never to one being removed.

Textual's ``Widget.focus`` sets the focus later, from the app's queue, and ``Screen.set_focus`` accepts any widget
that can take it. A focus asked for just before a widget's removal (as when a layout switch recomposed the
explorer) lands on it after Textual moved the focus off everything it removes: the screen then holds a widget
that is gone, the app hands every key to its closed queue and finds no
binding from it up to the screen, and keys do nothing until something else takes the focus (``n`` held through
resizes: the list stopped short, and ``p`` pressed afterwards was ignored).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.widget import Widget

    _ScreenBase = Screen[Any]
else:
    _ScreenBase = object


class FocusOnStayingWidgets(_ScreenBase):
    """Put before Textual's ``Screen`` among a screen's bases: its ``set_focus`` refuses a widget that is leaving."""

    def set_focus(self, widget: Widget | None, scroll_visible: bool = True, from_app_focus: bool = False) -> None:
        # ``display`` is False for a widget being removed (Textual's pruning) and for one not displayed, which
        # Textual's own focus chain skips too.
        if widget is not None and not (widget.is_attached and widget.display):
            return
        super().set_focus(widget, scroll_visible=scroll_visible, from_app_focus=from_app_focus)
