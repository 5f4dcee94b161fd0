"""The device columns dialog (``m`` in ``kernel-tui view``): one scenario's saved reports side by side.

The same table ``kernel-tui view --text`` prints (``text/device_columns_text.py``), one column per device, torch
release or architecture, in a scrollable dialog over the explorer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from kernel_tui.model.compare.device_columns import compare_devices
from kernel_tui.text.device_columns_text import device_columns_view
from kernel_tui.ui.screens.dialogs.dialog import Dialog

if TYPE_CHECKING:
    from collections.abc import Sequence

    from kernel_tui.model.report.report import ScenarioReport


class DeviceColumnsScreen(Dialog[None]):
    """A scenario's reports as device columns; Esc, q or m closes it."""

    BINDINGS = [Binding("escape,q,m", "dismiss", "Close")]

    def __init__(self, reports: Sequence[ScenarioReport]) -> None:
        super().__init__()
        self._reports = tuple(reports)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="device-columns-body", classes="dialog-body") as body:
            count = len(self._reports)
            title = f"{count} saved reports side by side" if count > 1 else "1 saved report: no other machine's"
            body.border_title = Content(title)
            body.border_subtitle = "esc closes"
            yield Static(device_columns_view(compare_devices(self._reports)))
