"""Keys pressed as a resize switches the explorer's layout all arrive where they were typed: the switch sets the
screen's classes and replaces no widget, so none is lost, none goes to the screen's bindings meanwhile, and none is
sent afterwards to a widget that has gone (CI of 3 December, when a switch recomposed the screen: ``n`` and ``p``
held through resizes ended a few lessons short, and the ``p`` pressed next did nothing; letters typed in the
editor during a resize were lost, and its ``r`` ran)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from conftest import overdue
from support.snippet_support import new_snippet, snippet_link, text_area
from support.snippet_support import quick_timers as quick_timers  # autouse: faster autosave
from support.ui_support import explorer, make_app, wait_for
from test_ui_resize_storm import LARGE, SMALL, keys_without_waiting, layout_settled, resize_without_waiting
from textual.pilot import Pilot
from textual.widgets import Button

from kernel_tui.model.scenario.course import course_dir
from kernel_tui.model.scenario.scenario_file import find_scenarios
from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.screens.explorer import ExplorerScreen
from kernel_tui.ui.widgets.scenario_list import ScenarioList

COURSE = tuple(find_scenarios([course_dir()]))


async def while_held(condition: Callable[[], bool], what: str) -> None:
    """Wait for ``condition`` while a widget is held busy: ``Pilot.pause`` would wait for that widget's queue."""
    started = time.monotonic()
    while not condition():
        assert not overdue(started, 10.0), f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


async def busy_focused_list(pilot: Pilot[None]) -> tuple[ScenarioList, asyncio.Event]:
    """The focused scenario list, its queue held by a handler that waits for the event returned (a widget busy
    in one of its own handlers while keys arrive): what reaches it meanwhile waits behind that handler."""
    screen = explorer(pilot.app)
    await pilot.press("1")
    scenarios = screen.query_one("#scenarios", ScenarioList)
    await wait_for(pilot, lambda: screen.focused is scenarios, what="the list's focus")
    release = asyncio.Event()

    async def busy() -> None:
        await release.wait()

    scenarios.call_later(busy)
    return scenarios, release


async def switch_to_small(pilot: Pilot[None], app: KernelTuiApp, release: asyncio.Event) -> None:
    """Resize to the tabs while the list is busy, let it go once the layout has switched (which waits for no
    widget), and wait for the tabs."""
    await resize_without_waiting(pilot, SMALL)
    await while_held(lambda: explorer(app).has_class("-narrow"), "the switch")
    await asyncio.sleep(0.1)
    release.set()
    await wait_for(pilot, lambda: layout_settled(app, SMALL), what="the small layout")


async def test_keys_waiting_in_the_focused_widget_when_a_switch_begins_move_the_list() -> None:
    app = make_app(paths=COURSE, course=course_dir())
    async with app.run_test(size=LARGE) as pilot:
        screen = explorer(app)
        start = screen.catalog.index
        _, release = await busy_focused_list(pilot)
        await keys_without_waiting(pilot, ("n", "n", "n"))
        await switch_to_small(pilot, app, release)
        await wait_for(pilot, lambda: screen.catalog.index == start + 3, what=f"lesson {start + 3}")
        await pilot.press("p")
        await wait_for(pilot, lambda: screen.catalog.index == start + 2, what=f"lesson {start + 2}")


async def test_a_focus_asked_for_as_its_widget_is_being_removed_leaves_the_keys_working() -> None:
    """A focus is set later than asked for (``ExplorerLayout.focus``, then ``Widget.focus``), and a widget can begin its
    removal meanwhile (as a layout switch that recomposed the screen once did). It took the focus, and once it had
    gone every key went to its closed queue (the storm's lost moves, and the ``p`` ignored after it)."""
    app = make_app(paths=COURSE, course=course_dir())
    async with app.run_test(size=LARGE) as pilot:
        screen = explorer(app)
        start = screen.catalog.index
        leaving = Button("leaving")
        await screen.mount(leaving)
        leaving.focus()
        await wait_for(pilot, lambda: screen.focused is leaving, what="the button's focus")
        release = asyncio.Event()

        async def busy() -> None:
            await release.wait()

        leaving.call_later(busy)  # its removal waits for its queue, as a pane's widget busy in a handler does
        # A focus asked for just before a switch removes the widget: the app's queue sets it (``Widget.focus``)
        # after the removal has begun and before the app waits for the removal to end.
        leaving.focus()
        removal = leaving.remove()
        assert not leaving.display and leaving.is_attached  # being removed, not gone yet
        await asyncio.sleep(0.2)
        release.set()
        await removal
        assert screen.focused is not leaving
        await pilot.press("n", "n")
        await wait_for(pilot, lambda: screen.catalog.index == start + 2, what=f"lesson {start + 2}")


async def test_letters_typed_in_the_editor_during_a_switch_land_in_the_editor() -> None:
    """When a switch replaced the widgets nothing held the focus meanwhile: ``x`` was lost, ``n`` moved the list
    and ``r`` ran the snippet. Typed right behind the resize, as a terminal delivers them."""
    app = make_app(snippet_link())
    async with app.run_test(size=LARGE) as pilot:
        await new_snippet(pilot, "(a - b)")
        screen = explorer(app)
        start = screen.catalog.index
        await resize_without_waiting(pilot, SMALL)
        await keys_without_waiting(pilot, ("x", "n", "r"))
        await wait_for(pilot, lambda: layout_settled(app, SMALL), what="the small layout")
        await wait_for(pilot, lambda: text_area(app).text == "(a - b)xnr", what="the letters in the editor")
        assert screen.catalog.index == start and isinstance(app.screen, ExplorerScreen)
        assert screen.runs.active is None
