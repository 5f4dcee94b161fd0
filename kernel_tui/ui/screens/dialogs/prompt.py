"""A one-line question over the explorer: a path to save to or open, or the size for runs.

Enter answers (after ``check`` accepts the value; ``confirm`` may ask for a second Enter, as before
overwriting a file), Esc cancels. The screen's result is the text typed, or None when cancelled.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, Static

from kernel_tui.ui.screens.dialogs.dialog import Dialog

Check = Callable[[str], str | None]
"""Returns why a value cannot be used, or None when it can."""


class PromptScreen(Dialog[str | None]):
    """Ask for one value."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self,
        title: str,
        value: str = "",
        *,
        help: str = "",
        placeholder: str = "",
        check: Check | None = None,
        confirm: Check | None = None,
    ) -> None:
        super().__init__()
        self._title = title
        self._value = value
        self._help = help
        self._placeholder = placeholder
        self._check = check
        self._confirm = confirm
        self._confirmed: str | None = None
        """The value a warning was shown for: Enter again on the same value goes ahead."""

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt-body", classes="dialog-body") as body:
            body.border_title = Content(self._title)
            body.border_subtitle = "enter confirms · esc cancels"
            if self._help:
                yield Static(Text(self._help), id="prompt-help")
            yield Input(self._value, placeholder=self._placeholder, id="prompt-input")
            yield Static(id="prompt-problem")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        self._say("")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = event.value.strip()
        problem = self._check(value) if self._check is not None else None
        if problem:
            self._say(problem, "bold red")
            return
        warning = self._confirm(value) if self._confirm is not None else None
        if warning and self._confirmed != value:
            self._confirmed = value
            self._say(f"{warning} · enter again to go ahead", "bold yellow")
            return
        self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def _say(self, text: str, style: str = "") -> None:
        if not text:
            self._confirmed = None
        self.query_one("#prompt-problem", Static).update(Text(text, style=style))
