"""Asked before quitting when the snippet's text is in no file (its draft and a copy of it could not be written).

Enter quits all the same, Esc goes back to the editor, where ctrl+s can save the text somewhere that has room.
The result is whether to quit.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from kernel_tui.ui.screens.dialogs.dialog import Dialog


class QuitAnywayScreen(Dialog[bool]):
    """Quitting would lose typed text: say so, and quit only on Enter."""

    BINDINGS = [Binding("enter", "quit_anyway", "Quit anyway"), Binding("escape", "stay", "Back")]

    def __init__(self, why: str) -> None:
        super().__init__()
        self._why = why

    def compose(self) -> ComposeResult:
        with Vertical(id="quit-body", classes="dialog-body") as body:
            body.border_title = "Quit and lose the snippet?"
            body.border_subtitle = "enter quits · esc goes back"
            yield Static(
                Text(f"{self._why}\nQuitting now loses it. Esc goes back: ctrl+s saves it to a file of your choice.")
            )

    def action_quit_anyway(self) -> None:
        self.dismiss(True)

    def action_stay(self) -> None:
        self.dismiss(False)
