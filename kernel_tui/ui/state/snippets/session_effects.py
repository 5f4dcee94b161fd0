"""What a snippet session call hands back to the screen: what to show again, what to tell the learner.

The ``SnippetSession`` has no Textual in it; after each call the screen takes its ``Effects`` (the notices, how
much of the screen to show again, the runs to forget, whether the editor is to be filled or focused). The
restore dialog's choices travel in ``DraftChoice`` and ``RestoreDecision``. Plain data, no Textual.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path
from typing import Literal

Severity = Literal["information", "warning", "error"]
"""How much a notice matters (Textual's notification severities)."""


@dataclass(frozen=True)
class DraftChoice:
    """One draft as the restore dialog lists it."""

    path: Path
    title: str
    where: str
    """The file it edits, or that it was never saved."""


@dataclass
class RestoreDecision:
    """What the learner chose: one draft to reopen (or none), and the drafts to throw away."""

    restore: Path | None = None
    discard: list[Path] = field(default_factory=list)


@dataclass(frozen=True)
class Notice:
    """Something to tell the learner (a Textual notification, once it reaches the screen)."""

    message: str
    severity: Severity = "information"
    timeout: float | None = None


class Shown(IntEnum):
    """How much of the screen a change to the catalog asks to show again; a larger value includes less."""

    NOTHING = 0
    MARKS = 1
    """The list changed, not the scenario on screen."""
    SCENARIO = 2
    """The scenario on screen changed too."""
    EVERYTHING = 3
    """The selection moved, or an entry went away."""


@dataclass
class Effects:
    """What the screen has to do after a session call, in the order the session asked for it."""

    notices: list[Notice] = field(default_factory=list)
    shown: Shown = Shown.NOTHING
    dropped: list[Path] = field(default_factory=list)
    """Paths that left the list: their runs are to be forgotten."""
    focus_editor: bool = False
    fill_editor: bool = False
    """The editor is to show the document again (text, titles and note)."""
