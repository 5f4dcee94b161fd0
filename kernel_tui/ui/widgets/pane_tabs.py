"""The small layout's tabs (one pane each), which follow the focus only while it is still in the pane.

Textual's ``TabbedContent`` shows the tab of a widget that takes the focus, through three queued messages
(``Focus``, ``DescendantFocus``, ``TabPane.Focused``). A key that shows another tab can land between them: ``s``
focuses the kernel table, and a ``b`` pressed before its last message arrives showed the chart, then the stale
message showed the kernels again. A pane that no longer holds the focus when its message arrives is not shown.
"""

from __future__ import annotations

from textual.widgets import TabbedContent, TabPane


class PaneTabs(TabbedContent):
    """``TabbedContent`` whose focus-following ignores a pane the focus has left since."""

    def _on_tab_pane_focused(self, event: TabPane.Focused) -> None:
        # Textual calls each class's handler in turn, this one first: ``TabbedContent``'s shows the pane.
        focused = self.screen.focused
        if focused is None or (focused is not event.tab_pane and event.tab_pane not in focused.ancestors):
            event.stop()
            event.prevent_default()
