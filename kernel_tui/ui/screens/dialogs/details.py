"""The details dialog: the whole story behind a one-line error or a number (traceback, engine output)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from kernel_tui.ui.screens.dialogs.dialog import Dialog


class DetailsScreen(Dialog[None]):
    """Scrollable plain text (never markup: tracebacks contain brackets); Esc, q or d closes it."""

    BINDINGS = [Binding("escape,q,d", "dismiss", "Close")]

    def __init__(self, title: str, body: Text) -> None:
        super().__init__()
        self._title = title
        self._body = body

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="details-body", classes="dialog-body") as body:
            body.border_title = Content(self._title)
            body.border_subtitle = "esc closes"
            yield Static(self._body)
