"""The base of every dialog over the explorer: centred, one bordered body, Esc (or its own keys) closes it.

A dialog composes one container with the ``dialog-body`` class; its own stylesheet says only how it differs
(a fixed height, a narrower body). Closing goes through Textual's own ``dismiss`` action, which runs the
result callback given to ``push_screen`` after the callbacks already queued on the screen.
"""

from __future__ import annotations

from typing import TypeVar

from textual.screen import ModalScreen

from kernel_tui.ui.screens.focus_staying import FocusOnStayingWidgets
from kernel_tui.ui.screens.latest_size import LatestSizeOnly

ResultType = TypeVar("ResultType")


class Dialog(LatestSizeOnly, FocusOnStayingWidgets, ModalScreen[ResultType]):
    """A modal dialog with kernel-tui's look."""

    DEFAULT_CSS = """
    Dialog {
        align: center middle;
    }

    Dialog > .dialog-body {
        width: 90%;
        max-width: 110;
        height: auto;
        max-height: 90%;
        border: round $accent;
        background: $surface;
        padding: 0 1;
    }
    """
