"""A line made of parts that fits its width by leaving out its least important parts first, never by cutting
its end: a table's subtitle ends in the learner's ``you said 2 ✓``, which a cut at the end would lose first."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

SUBTITLE_MARGIN = 6
"""Cells of a panel's bottom border a subtitle cannot have: ``╰─ `` before it and `` ─╯`` after it (Textual cuts
a longer one with ``…``)."""


@dataclass(frozen=True)
class Part:
    """One part of a line."""

    text: str
    priority: int = 0
    """Lower stays longer; 0 is never left out."""
    short: str = ""
    """What it says where it has to be shorter, before it is left out (none: left out at once). A part of
    priority 0 says it only as a last resort: where the line is wider than its width with every other part
    left out."""


def fit_parts(parts: Sequence[Part], width: int, separator: str = " · ") -> str:
    """The parts, in their order, joined by ``separator``: while the line is wider than ``width``, the part of
    highest ``priority`` (the last of them among equals) says its short form, or is left out. Parts of
    priority 0 all stay, even past ``width``; where they alone are too wide, they all say their short forms,
    and the other parts are fitted again beside them (the room those forms leave may hold some)."""
    line = _fitted(parts, width, separator)
    if len(line) > width and any(part.priority == 0 and part.short for part in parts):
        shorter = [Part(part.short, 0) if part.priority == 0 and part.short else part for part in parts]
        line = _fitted(shorter, width, separator)
    return line


def _fitted(parts: Sequence[Part], width: int, separator: str) -> str:
    """``fit_parts`` with the parts of priority 0 as they are."""
    kept = [part for part in parts if part.text]
    while len(separator.join(part.text for part in kept)) > width:
        droppable = [index for index, part in enumerate(kept) if part.priority > 0]
        if not droppable:
            break
        index = max(droppable, key=lambda index: (kept[index].priority, index))
        part = kept[index]
        if part.short and part.short != part.text:
            kept[index] = Part(part.short, part.priority)
        else:
            del kept[index]
    return separator.join(part.text for part in kept)
