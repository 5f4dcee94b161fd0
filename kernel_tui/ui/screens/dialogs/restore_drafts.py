"""Offered on start when an earlier session left unsaved edits behind (a crash, or a quit before saving).

Enter reopens the highlighted draft in the editor, x discards it for good, Esc keeps them all for later
(they stay in the scenario list, marked ✎, and e reopens one). The result says what was chosen.
"""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import OptionList, Static

from kernel_tui.ui.screens.dialogs.dialog import Dialog
from kernel_tui.ui.state.snippets.session_effects import DraftChoice, RestoreDecision


class RestoreDraftsScreen(Dialog[RestoreDecision]):
    """Unsaved drafts from before, one per line, newest last."""

    BINDINGS = [
        Binding("escape", "later", "Later"),
        Binding("x,delete", "discard", "Discard"),
    ]

    def __init__(self, drafts: list[DraftChoice]) -> None:
        super().__init__()
        self._drafts = list(drafts)
        self._decision = RestoreDecision()

    def compose(self) -> ComposeResult:
        with Vertical(id="restore-body", classes="dialog-body") as body:
            body.border_title = "Unsaved snippets from before"
            body.border_subtitle = "enter reopens · x discards · esc later"
            yield Static(
                Text(
                    "kernel-tui kept what you typed last time. Reopen one in the editor, or keep them for "
                    "later: they stay in the scenario list, marked ✎.",
                    style="dim",
                )
            )
            yield OptionList(*(self._prompt(draft) for draft in self._drafts), id="restore-list")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = len(self._drafts) - 1
        options.focus()

    @staticmethod
    def _prompt(draft: DraftChoice) -> Text:
        try:
            when = datetime.fromtimestamp(draft.path.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
        except OSError:
            when = "?"
        text = Text(draft.title)
        text.append(f"  {draft.where} · {when}", style="dim")
        return text

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._decision.restore = self._drafts[event.option_index].path
        self.dismiss(self._decision)

    def action_discard(self) -> None:
        options = self.query_one(OptionList)
        index = options.highlighted
        if index is None:
            return
        self._decision.discard.append(self._drafts.pop(index).path)
        options.remove_option_at_index(index)
        if not self._drafts:
            self.dismiss(self._decision)

    def action_later(self) -> None:
        self.dismiss(self._decision)
