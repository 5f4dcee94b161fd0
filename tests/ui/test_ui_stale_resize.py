"""Resize events that reach a screen after a later size: the screen lays itself out at the terminal's size, once,
and goes quiet (issue 33's resize storms, then a killed tmux session, left an orphaned app at 90 % CPU).

Textual's screen posts itself a ``Resize`` whenever a layout changes its own size. With two older sizes still
queued (a screen that was busy recomposing, or a dialog's background screen, which is handed each size twice),
each one it handled changed its size and posted itself that size again, behind the other: the two sizes took
turns for ever, and a quit asked for in between waited behind them."""

from __future__ import annotations

from typing import Any

import pytest
from support.ui_support import explorer, make_app, wait_for
from textual import events
from textual.geometry import Size
from textual.screen import Screen

pytestmark = pytest.mark.asyncio

TERMINAL = (120, 36)
STALE = (Size(60, 15), Size(200, 50))


def stale_resizes(screen: Screen[Any]) -> None:
    """The queue of the storm: two old sizes, each behind a callback, so Textual cannot merge them."""
    for size in STALE:
        screen.post_message(events.Resize(size, size))
        screen.call_later(lambda: None)


async def layouts_at(monkeypatch: pytest.MonkeyPatch, screen_type: type[Screen[Any]]) -> list[Size]:
    """The sizes each screen of ``screen_type`` laid itself out at."""
    sizes: list[Size] = []
    real = Screen._refresh_layout

    def recorded(self: Screen[Any], size: Size | None = None, scroll: bool = False) -> None:
        if isinstance(self, screen_type) and size is not None:
            sizes.append(size)
        real(self, size, scroll)

    monkeypatch.setattr(Screen, "_refresh_layout", recorded)
    return sizes


async def test_old_sizes_queued_on_the_explorer_are_not_laid_out(monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app()
    async with app.run_test(size=TERMINAL) as pilot:
        screen = explorer(app)
        await pilot.pause()
        sizes = await layouts_at(monkeypatch, type(screen))
        stale_resizes(screen)
        for _ in range(40):
            await pilot.pause(0.02)
        assert [size for size in sizes if size != Size(*TERMINAL)] == [], "laid out at a size the terminal left"
        assert screen.size == Size(*TERMINAL) and app.size == Size(*TERMINAL)
        await pilot.press("ctrl+q")
    assert app.return_code == 0


async def test_old_sizes_queued_behind_a_dialog_are_not_laid_out(monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app()
    async with app.run_test(size=TERMINAL) as pilot:
        screen = explorer(app)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: app.screen is not screen, what="the help dialog")
        sizes = await layouts_at(monkeypatch, Screen)
        stale_resizes(screen)
        stale_resizes(app.screen)
        for _ in range(40):
            await pilot.pause(0.02)
        # Without the fix: 14 layouts in 0.8 s, the two old sizes by turns, and still going.
        assert [size for size in sizes if size != Size(*TERMINAL)] == [], f"laid out at old sizes: {sizes[:6]}"
        assert screen.size == Size(*TERMINAL) and app.screen.size == Size(*TERMINAL)
        await pilot.press("escape", "ctrl+q")
    assert app.return_code == 0
