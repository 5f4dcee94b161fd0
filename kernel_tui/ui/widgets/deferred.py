"""Mount a pane just after the first frame, then say so: the screen fills it in when it arrives.

Like ``textual.lazy.Lazy``, for panes that start hidden (the tabs other than the first on a small
terminal): the first frame does without them, and the ``Deferred.Mounted`` message tells the screen
that it can show its data there now.
"""

from __future__ import annotations

from textual.message import Message
from textual.widget import Widget


class Deferred(Widget):
    """Stands in for ``widget`` until the first refresh, then mounts it in its place."""

    DEFAULT_CSS = """
    Deferred {
        display: none;
    }
    """

    class Mounted(Message):
        """A deferred pane is now mounted (posted from its parent, so it bubbles to the screen)."""

    def __init__(self, widget: Widget) -> None:
        self._widget = widget
        super().__init__()

    def compose_add_child(self, widget: Widget) -> None:
        # ``with Deferred(Container()):`` composes into the container, as with Lazy.
        self._widget.compose_add_child(widget)

    async def mount_composed_widgets(self, widgets: list[Widget]) -> None:
        parent = self.parent
        if not isinstance(parent, Widget):
            return

        async def mount() -> None:
            if not parent.is_attached:
                return
            await parent.mount(self._widget, after=self)
            await self.remove()
            parent.post_message(Deferred.Mounted())

        self.call_after_refresh(mount)
