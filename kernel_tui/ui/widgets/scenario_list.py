"""The scenarios in course order, each marked with how its latest run went, the one on screen highlighted.

What it lists is its slice of the explorer's ``Shown`` (``ScenariosShown``), a reactive the explorer sets
(``shown``): the list is filled again only when the entries or their marks changed, and which one is on screen
(``current``) follows the slice's index.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual.content import Content
from textual.reactive import var
from textual.widgets import OptionList

if TYPE_CHECKING:
    from kernel_tui.ui.state.course.catalog import ScenarioEntry
    from kernel_tui.ui.view.shown import ScenariosShown

MARKS = {
    None: (" ", ""),
    "running": ("●", "bold cyan"),
    "done": ("✓", "green"),
    "claims": ("✗", "bold red"),
    "failed": ("✗", "bold red"),
    "cancelled": ("○", "dim"),
    "unreadable": ("!", "bold red"),
}
"""Glyphs first, colours second: with NO_COLOR the glyph alone still tells the states apart."""


class ScenarioList(OptionList):
    """A pick list of scenarios; highlighting one shows it (the screen listens for ``OptionHighlighted``)."""

    current: var[int] = var(0, init=False)
    """The index of the scenario on screen: the highlight follows it (and the screen follows the highlight)."""

    shown: var[ScenariosShown | None] = var(None, init=False)
    """What the explorer hands the list: the entries, their marks and the one on screen."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Scenarios"

    def watch_shown(self, old: ScenariosShown | None, shown: ScenariosShown | None) -> None:
        """Highlight the scenario on screen, and (re)fill the list when its entries or their marks changed."""
        if shown is None:
            return
        self.current = shown.index
        if old is None or (old.entries, old.marks) != (shown.entries, shown.marks):
            self._fill(shown.entries, shown.marks)

    def _fill(self, entries: Sequence[ScenarioEntry], marks: Sequence[str | None]) -> None:
        """(Re)fill the list, the current scenario highlighted."""
        # Mark the learner's own files; when every one is theirs, the title says it once for all.
        yours = [entry.user_file for entry in entries]
        all_yours = bool(yours) and all(yours)
        self.border_title = Content("Your scenarios" if all_yours else "Scenarios")
        prompts = [
            self._prompt(number, entry, mark, mark_yours=not all_yours)
            for number, (entry, mark) in enumerate(zip(entries, marks), start=1)
        ]
        if self.option_count == len(prompts):
            for index, prompt in enumerate(prompts):
                self.replace_option_prompt_at_index(index, prompt)
        else:
            self.set_options(prompts)
            self.highlighted = self.current if prompts else None

    def watch_current(self, current: int) -> None:
        # Setting the highlight to where it is would post one more ``OptionHighlighted`` for nothing. A scenario
        # not listed yet (a snippet just added) is highlighted by ``show`` when it is: here the highlight would be
        # clamped to the last one listed, and the screen would follow it there.
        if current < self.option_count and self.highlighted != current:
            self.highlighted = current

    @staticmethod
    def _prompt(number: int, entry: ScenarioEntry, mark: str | None, *, mark_yours: bool) -> Text:
        glyph, style = MARKS["unreadable" if entry.read_error else mark]
        text = Text()
        text.append(f"{number:>2} ", style="dim")
        text.append(glyph, style=style)
        text.append(f" {entry.title}")
        if entry.user_file and mark_yours:
            text.append(" (yours)", style="italic dim")
        return text
