"""The help dialog: every key the explorer answers to, built from the action tables so it cannot go stale."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from kernel_tui.ui.screens.dialogs.dialog import Dialog

if TYPE_CHECKING:
    from kernel_tui.ui.screens.actions import KeyAction

NAVIGATION_KEYS = (
    ("tab / shift+tab", "Move focus to the next / previous pane"),
    ("↑ ↓ pgup pgdn", "Move in the focused list or table, scroll the lesson"),
    ("enter", "In the scenario list: show the lesson"),
    ("ctrl+p", "Command palette: every action by name"),
    ("ctrl+q", "Quit"),
)


class HelpScreen(Dialog[None]):
    """Keys and what they do; Esc, q, ? or F1 closes it."""

    BINDINGS = [
        Binding("escape,q,question_mark,f1", "dismiss", "Close"),
    ]

    def __init__(self, actions: Iterable[KeyAction]) -> None:
        super().__init__()
        self._listed = list(actions)

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        seen = set()
        for action in self._listed:
            if action.key is None or action.action in seen:
                continue
            seen.add(action.action)
            keys = " / ".join(key_label(key) for key in action.key.split(","))
            table.add_row(keys, action.help)
        for keys, what in NAVIGATION_KEYS:
            table.add_row(keys, what)
        with VerticalScroll(id="help-body", classes="dialog-body") as body:
            body.border_title = "Keys"
            body.border_subtitle = "esc closes"
            yield Static(Text("kernel-tui: which kernels your code runs, eager and compiled.\n", style="dim"))
            yield Static(table)


def key_label(key: str) -> str:
    """How a key is written on a keyboard rather than in Textual's key names."""
    names = {"question_mark": "?", "escape": "esc", "left_square_bracket": "[", "right_square_bracket": "]"}
    return names.get(key.strip(), key.strip())
