"""What a part of the explorer hands back instead of reaching into the screen: a dialog to show, or a notice.

The explorer's parts (``WhyPart``, ``VariantsPart``) are plain objects over the screen's state; where a key
of theirs needs the learner (a guess, a choice) or has something to say, they return an ``Asked`` or a
``Notice`` and the screen shows it, then shows its state again (``ExplorerScreen.reply``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from textual.screen import Screen

if TYPE_CHECKING:
    # The snippet workbench's module: loaded with the first snippet, not before the explorer's first frame.
    from kernel_tui.ui.state.snippets.session_effects import Notice


@dataclass(frozen=True)
class Asked:
    """A dialog to show over the explorer; ``answered`` gets its result (before the screen shows its state)."""

    dialog: Screen[Any]
    answered: Callable[[Any], None] | None = None


Reply: TypeAlias = "Asked | Notice"
"""One thing a part hands the screen to show."""
