"""Every kernel-tui screen, dialogs and all, carries the guards a screen needs against a careless user's
terminal: it lays itself out at the latest size only (``latest_size``), and it gives the focus only to a widget
that is staying (``focus_staying``). A screen added without them would bring back the orphaned app and the lost
keys those modules tell of."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest
from textual.screen import Screen

import kernel_tui.ui
from kernel_tui.ui.screens.focus_staying import FocusOnStayingWidgets
from kernel_tui.ui.screens.latest_size import LatestSizeOnly


def kernel_tui_screens() -> list[type[Screen[object]]]:
    screens = set()
    for module_info in pkgutil.walk_packages(kernel_tui.ui.__path__, prefix="kernel_tui.ui."):
        module = importlib.import_module(module_info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, Screen) and value.__module__.startswith("kernel_tui."):
                screens.add(value)
    return sorted(screens, key=lambda screen: screen.__qualname__)


SCREENS = kernel_tui_screens()


def test_the_screens_are_found() -> None:
    names = {screen.__name__ for screen in SCREENS}
    assert {"ExplorerScreen", "SavedResultsScreen", "HelpScreen", "PredictScreen"} <= names, names


@pytest.mark.parametrize("screen", SCREENS, ids=lambda screen: screen.__name__)
def test_each_screen_has_both_guards_before_textuals_screen(screen: type[Screen[object]]) -> None:
    order = screen.__mro__
    assert order.index(LatestSizeOnly) < order.index(Screen), order
    assert order.index(FocusOnStayingWidgets) < order.index(Screen), order
