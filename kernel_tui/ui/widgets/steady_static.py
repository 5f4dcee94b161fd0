"""A ``Static`` that lays the screen out again only when what it shows has changed.

``Static.update`` asks for a layout pass of the whole screen every time, even with the text it already shows.
The explorer shows its lines again on every refill, stage, cursor move and key: the editor's note under the text
was shown again on each key typed, two thirds of the layout passes of typing a line (about 30 ms of CPU a key on
a two-core machine).
"""

from __future__ import annotations

from collections.abc import Hashable

from rich.console import Group
from rich.text import Text
from textual.content import Content
from textual.reactive import var
from textual.visual import VisualType
from textual.widgets import Static

SteadyContent = Text | Content | str | Group
"""What a steady line shows: what the explorer's lines are built as; a ``Group`` of them for several lines."""


def look_of(content: SteadyContent) -> Hashable:
    """What ``content`` looks like on screen, to compare: ``Text ==`` and ``Content ==`` compare the characters
    only, not their styles; a ``Group`` holding anything else looks new every time."""
    if isinstance(content, Text):
        return ("text", content.plain, str(content.style), tuple(content.spans), content.no_wrap, content.overflow)
    if isinstance(content, Content):
        return ("content", content.plain, tuple(content.spans))
    if isinstance(content, Group):
        parts = [part for part in content.renderables if isinstance(part, Text | Content | str)]
        if len(parts) != len(content.renderables):
            return object()
        return ("group", *(look_of(part) for part in parts))
    return ("str", content)


class SteadyStatic(Static):
    """A line (or lines) of text shown with ``show_content``, which skips the update that would change nothing."""

    _look: Hashable = None
    """How what it shows now looked when it was handed over."""

    def show_content(self, content: SteadyContent) -> None:
        look = look_of(content)
        if look != self._look:
            super().update(content)
            self._look = look

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        # Shown some other way: the next ``show_content`` draws whatever it is handed, even the look it had.
        self._look = None
        super().update(content, layout=layout)


class SteadyLine(SteadyStatic):
    """A line bound to a string (``shown``, a reactive its screen sets): shown while it says something, hidden
    while it is empty (the explorer's shapes line above the tables)."""

    shown: var[str | None] = var(None, init=False)
    """What the line says; None: not handed anything yet."""

    def watch_shown(self, shown: str | None) -> None:
        self.show_content(Content(shown or ""))
        self.display = bool(shown)
