"""The keys page's table, from the same action tables and ``BINDINGS`` that the app binds, its help dialog lists
and its command palette offers (``ui/screens/actions.py``): a key the app answers to is documented, and only those."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from textual.binding import Binding, BindingType

from kernel_tui.ui.screens import actions
from kernel_tui.ui.screens.dialogs.details import DetailsScreen
from kernel_tui.ui.screens.dialogs.device_columns import DeviceColumnsScreen
from kernel_tui.ui.screens.dialogs.help import NAVIGATION_KEYS, HelpScreen, key_label
from kernel_tui.ui.screens.dialogs.kernel_code import KernelCodeScreen
from kernel_tui.ui.screens.dialogs.predict import PredictScreen, RevealScreen
from kernel_tui.ui.screens.dialogs.prompt import PromptScreen
from kernel_tui.ui.screens.dialogs.restore_drafts import RestoreDraftsScreen
from kernel_tui.ui.screens.dialogs.variants import VariantsScreen
from kernel_tui.ui.widgets.snippet_editor import SnippetEditor

if TYPE_CHECKING:
    from kernel_tui.ui.screens.actions import KeyAction

ACTION_TABLES: Sequence[tuple[str, Iterable[KeyAction]]] = (
    ("Anywhere", actions.APP_ACTIONS),
    ("Explorer", actions.EXPLORER_ACTIONS),
    ("Kernel tables", actions.ORDER_ACTIONS),
    ("Why these kernels", actions.WHY_ACTIONS),
    ("Compile variants", actions.VARIANT_ACTIONS),
    ("Your own code", actions.SNIPPET_ACTIONS),
    ("Saved results (kernel-tui view)", actions.VIEW_ACTIONS),
    ("Quitting", actions.QUIT_ACTIONS),
)
"""Where each table's keys work, in the order a newcomer meets them."""

BOUND_ELSEWHERE: Sequence[tuple[str, Sequence[BindingType]]] = (
    ("Inside the editor", SnippetEditor.BINDINGS),
    ("Predict dialog", PredictScreen.BINDINGS),
    ("Reveal dialog", RevealScreen.BINDINGS),
    ("Details dialog", DetailsScreen.BINDINGS),
    ("Device columns dialog", DeviceColumnsScreen.BINDINGS),
    ("Generated code dialog", KernelCodeScreen.BINDINGS),
    ("Compile variants dialog", VariantsScreen.BINDINGS),
    ("Unsaved drafts dialog", RestoreDraftsScreen.BINDINGS),
    ("A question (a path, a size)", PromptScreen.BINDINGS),
    ("Help dialog", HelpScreen.BINDINGS),
)
"""Keys bound by one widget or dialog of their own."""


def _keys(names: str) -> str:
    return " / ".join(f"`{key_label(name)}`" for name in names.split(","))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def keys_table() -> str:
    lines = ["| where | key | what it does |", "| --- | --- | --- |"]
    for where, table in ACTION_TABLES:
        for action in actions.keyed(table):
            lines.append(f"| {where} | {_keys(action.key or '')} | {_cell(action.help)} |")
    for keys, what in NAVIGATION_KEYS:
        lines.append(f"| Anywhere | `{keys}` | {_cell(what)} |")
    for where, bound in BOUND_ELSEWHERE:
        for binding in bound:
            assert isinstance(binding, Binding), f"{where}: bindings are declared as Binding objects"
            lines.append(f"| {where} | {_keys(binding.key)} | {_cell(binding.tooltip or binding.description)} |")
    return "\n".join(lines)
