"""Textual's header, without its one crash: a title change that lands while the header is being removed.

Textual's ``Header`` updates its title from an async watcher, which Textual queues and runs a moment later; by
then the header's children may be gone (the app quitting removes them before the header; a layout switch did,
when it recomposed the explorer), and its ``query_one(HeaderTitle)`` raised ``NoMatches`` and took the app down.
This one sets the title at once, and only while its title is there.
"""

from __future__ import annotations

from textual.events import Mount
from textual.widget import Widget
from textual.widgets import Header
from textual.widgets._header import HeaderTitle


class SteadyHeader(Header):
    def _on_mount(self, event: Mount) -> None:
        # Header's own handler (the queued watcher) is not run; Widget's is, as it would have been.
        event.prevent_default()
        Widget._on_mount(self, event)

        def set_title() -> None:
            titles = self.query(HeaderTitle)
            if titles and self.is_attached:
                titles.first().update(self.format_title())

        self.watch(self.app, "title", set_title)
        self.watch(self.app, "sub_title", set_title)
        self.watch(self.screen, "title", set_title)
        self.watch(self.screen, "sub_title", set_title)
