"""The modules dialog (``M``): the call per ``nn.Module``, eager and compiled, ordered by a key.

The same table ``kernel-tui run`` prints under the kernel tables (``text/parts/module_text.py``): repeated blocks folded
(``h.*`` ×12 with the spread of their times), deeper modules summed into their parents until it fits. ``t``, ``y``
and ``l`` order it by time, bytes or launches, most first; ``o`` steps to the next order, round to the order the
modules nest, as ``o`` steps the explorer's kernel tables through theirs round to launch order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import RenderableType
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from kernel_tui.text.parts.module_text import ORDERS, module_table_view
from kernel_tui.ui.screens.dialogs.dialog import Dialog

if TYPE_CHECKING:
    from kernel_tui.model.report.report import ScenarioReport

NO_MODULES = "No kernel of this run names an nn.Module: fn calls none, or the report was saved before modules were."
SUBTITLE = "o next order · t time · y bytes · l launches · esc closes"


class ModulesScreen(Dialog[None]):
    """One report's per-module table; Esc, q or M closes it."""

    # Wider than the other dialogs: at their 110 columns the table's seven columns were cut ("launc…", "compi…",
    # "374.7…") on a 160-column terminal with room to spare.
    DEFAULT_CSS = """
    ModulesScreen > #modules-body {
        width: 96%;
        max-width: 170;
    }
    """

    BINDINGS = [
        Binding("escape,q,M", "dismiss", "Close"),
        Binding("t", "order('time')", "By time"),
        Binding("y", "order('bytes')", "By bytes"),
        Binding("l", "order('launches')", "By launches"),
        Binding("o", "order('next')", "Next order"),
    ]

    def __init__(self, title: str, report: ScenarioReport | None) -> None:
        super().__init__()
        self._title = title
        self._report = report
        self.order = "tree"
        """How the rows are ordered now (``module_text.ORDERS``)."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="modules-body", classes="dialog-body") as body:
            body.border_title = Content(f"Modules · {self._title}")
            body.border_subtitle = SUBTITLE
            yield Static(self._table(), id="modules-table")

    def action_order(self, order: str) -> None:
        """Order the table by ``order`` (``next``: the one after its own, round to the order the modules nest)."""
        if order == "next":
            turn = list(ORDERS)
            order = turn[(turn.index(self.order) + 1) % len(turn)]
        self.order = order
        self.query_one("#modules-table", Static).update(self._table())

    def _table(self) -> RenderableType:
        table = module_table_view(self._report, order=self.order) if self._report is not None else None
        return table if table is not None else NO_MODULES
