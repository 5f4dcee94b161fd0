"""The explorer under a careless user: the terminal resized between 80x24 and 120x36 with keys pressed while the
layout switches (tabs ↔ side by side), during runs, sweeps, the editor and a dialog, 50 times; nothing crashes,
every key lands, and every pane shows the session's results afterwards."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from support.replay import ReplayGate
from support.ui_support import ADD_RELU, explorer, finished, make_app, make_link, tab_shown, wait_for
from textual.events import Key, Resize
from textual.geometry import Size
from textual.pilot import Pilot

from kernel_tui.model.scenario.course import course_dir
from kernel_tui.model.scenario.scenario_file import find_scenarios
from kernel_tui.transport.protocol import Partial
from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.widgets.kernel_table import KernelTable

SMALL = (80, 24)
LARGE = (120, 36)
KEYS_DURING_SWITCH: Sequence[Sequence[str]] = (("4",), ("4", "b"), ("3", "down", "down"), ("2",), ("1",))
"""The keys of the reported crashes (4, 4 b, 3 Down Down), and each other pane's (the editor's: below)."""
ROUNDS = 50


async def resize_without_waiting(pilot: Pilot[None], size: tuple[int, int]) -> None:
    """A resize as the terminal sends it: the keys that follow arrive while the screen is laid out again
    (``Pilot.resize_terminal`` waits for the screen to settle first, which no user does)."""
    app = pilot.app
    app._driver._size = Size(*size)  # type: ignore[union-attr]  # the headless driver's size, as Pilot sets it
    app.post_message(Resize(Size(*size), Size(*size)))


async def keys_without_waiting(pilot: Pilot[None], keys: Sequence[str]) -> None:
    """Keys as a terminal delivers a held key to a busy app: none waits for the one before to be shown."""
    driver = pilot.app._driver
    assert driver is not None
    for key in keys:
        driver.send_message(Key(key, key))


async def storm(pilot: Pilot[None], rounds: int = ROUNDS, extra: Sequence[str] = ()) -> None:
    for round_number in range(rounds):
        await resize_without_waiting(pilot, SMALL if round_number % 2 == 0 else LARGE)
        await pilot.press(*KEYS_DURING_SWITCH[round_number % len(KEYS_DURING_SWITCH)], *extra)


def layout_settled(app: KernelTuiApp, size: tuple[int, int]) -> bool:
    screen = explorer(app)
    return screen.wide == (size == LARGE) and (tab_shown(app) is not None) == (size == SMALL)


def eager_names(app: KernelTuiApp) -> list[str]:
    return [kernel.short_name for kernel in explorer(app).query_one("#eager", KernelTable).kernels]


@pytest.mark.long  # 50 rounds each: minutes of CPU together, so make test runs them and make test-fast does not
class TestResizeStorm:
    @pytest.mark.parametrize("sweep", [False, True], ids=["run", "sweep"])
    async def test_resizes_and_keys_during_a_run_never_crash_and_keep_the_results(self, sweep: bool) -> None:
        gate = ReplayGate()
        app = make_app(make_link(gate=gate))
        async with app.run_test(size=LARGE) as pilot:
            await pilot.press("s" if sweep else "r")
            gate.release_until(kind=Partial)
            await storm(pilot)
            gate.release_all()
            await wait_for(pilot, lambda: finished(app), what="the run to finish")
            await storm(pilot, rounds=10)
            await resize_without_waiting(pilot, SMALL)
            await wait_for(pilot, lambda: layout_settled(app, SMALL), what="the small layout")
            run = explorer(app).runs.get(ADD_RELU)
            assert run is not None and run.record.report is not None, "the run's results are kept"
            await pilot.press("1", "home", "enter", "3")
            await wait_for(pilot, lambda: eager_names(app) == ["aten::add", "aten::relu"], what="the kept results")
        assert app.return_code in (None, 0)

    async def test_resizes_while_idle_during_the_warm_up(self) -> None:
        app = make_app()
        async with app.run_test(size=LARGE) as pilot:
            await storm(pilot)
            await resize_without_waiting(pilot, LARGE)
            await wait_for(pilot, lambda: layout_settled(app, LARGE), what="the large layout")
        assert app.return_code in (None, 0)

    async def test_resizes_with_a_dialog_open(self) -> None:
        app = make_app()
        async with app.run_test(size=LARGE) as pilot:
            await pilot.press("r")
            await wait_for(pilot, lambda: finished(app), what="the run to finish")
            await pilot.press("question_mark")
            await storm(pilot, rounds=20, extra=("escape", "question_mark"))
            await pilot.press("escape", "escape")
            await resize_without_waiting(pilot, SMALL)
            await wait_for(pilot, lambda: layout_settled(app, SMALL), what="the small layout")
        assert app.return_code in (None, 0)

    async def test_resizes_and_keys_in_the_editor(self) -> None:
        app = make_app()
        async with app.run_test(size=LARGE) as pilot:
            await pilot.press("r")
            await wait_for(pilot, lambda: finished(app), what="the run to finish")
            for round_number in range(ROUNDS):
                await resize_without_waiting(pilot, SMALL if round_number % 2 == 0 else LARGE)
                await pilot.press("5", "x", "escape", "3", "down")
            await resize_without_waiting(pilot, SMALL)
            await wait_for(pilot, lambda: layout_settled(app, SMALL), what="the small layout")
        assert app.return_code in (None, 0)

    async def test_resizes_while_lessons_change_under_a_held_key(self) -> None:
        """``n`` and ``p`` held through resizes: each lesson's text is being replaced (a worker of the lesson
        pane) while the layout switches, and a chart redraws on a timer (the tmux storm of 3 December, when a
        switch replaced the widgets: ``NoMatches`` on ``#lesson-text``, then on ``#tables``)."""
        course = tuple(find_scenarios([course_dir()]))
        app = make_app(paths=course, course=course_dir())
        sizes = ((60, 15), (200, 50), (40, 10), (130, 40))
        presses = (("n",) * 30, ("p",) * 10, ("escape",), ("n", "n", "n", "escape"))
        index = 0
        async with app.run_test(size=LARGE) as pilot:
            # Ten rounds of four resizes: the crash itself is pinned by test_ui_fast_keys, without a race.
            for round_number in range(ROUNDS // 5):
                for size, keys in zip(sizes, presses, strict=True):
                    await resize_without_waiting(pilot, size)
                    await keys_without_waiting(pilot, keys)
                    await pilot.pause(0.01 * (round_number % 3))
                    for key in keys:
                        index = max(0, min(len(course) - 1, index + {"n": 1, "p": -1}.get(key, 0)))
            await resize_without_waiting(pilot, SMALL)
            await wait_for(pilot, lambda: layout_settled(app, SMALL), what="the small layout")
            catalog = explorer(app).catalog
            await wait_for(pilot, lambda: catalog.index == index, what=f"lesson {index}, where the keys end")
        assert app.return_code in (None, 0)
