"""Shared set-up for the UI tests (no tests here): the app on recorded engine messages, waiting, and what
the explorer shows. (Fixtures, such as running from the repository, are in ``conftest``.)

The recordings in ``tests/data`` are real engine output (``tests/data/record_messages.py``), replayed by
``ReplayEngineLink`` through the same interface the real engine link has.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path, PurePath
from typing import Any, Protocol

from textual.app import App
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Tabs

from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.screens.explorer import ExplorerScreen
from kernel_tui.ui.state.course.catalog import load_catalog
from support.locations import REPO
from support.pace import overdue
from support.replay import ReplayEngineLink, ReplayGate

DATA = REPO / "tests" / "data"
ADD_RELU = DATA / "ui_add_relu.py"
BROKEN = DATA / "ui_broken_fn.py"
RECORDINGS = (DATA / "ui_add_relu_messages.json", DATA / "ui_broken_fn_messages.json")
FROZEN_CLOCK = 1000.0
# Relative to the repository (the current folder in picture tests: ``from_the_repository``), so no machine's
# absolute path ends up in a snapshot: the replayed traceback names the scenario by the path it was run with.
PICTURED = (Path("tests/data/ui_add_relu.py"), Path("tests/data/ui_broken_fn.py"))


class SnapCompare(Protocol):
    """The ``snap_compare`` fixture of pytest-textual-snapshot: its own annotation names only the first
    parameter of the function it returns."""

    def __call__(
        self,
        app: str | PurePath | App[Any],
        press: Iterable[str] = (),
        terminal_size: tuple[int, int] = (80, 24),
        run_before: Callable[[Pilot[Any]], Awaitable[None] | None] | None = None,
    ) -> bool: ...


def make_link(*, gate: ReplayGate | None = None, **options: Any) -> ReplayEngineLink:
    return ReplayEngineLink.from_files(*RECORDINGS, gate=gate, **options)


def make_app(
    link: ReplayEngineLink | None = None,
    paths: tuple[Path, ...] = (ADD_RELU, BROKEN),
    course: Path | None = None,
    clock: Callable[[], float] = lambda: FROZEN_CLOCK,
) -> KernelTuiApp:
    """The app as the command line builds it, but on a replayed engine and a frozen clock."""
    link = link if link is not None else make_link()
    entries = load_catalog(list(paths), course)
    return KernelTuiApp(entries, device="cpu", link_factory=lambda device: link, clock=clock)


def still_app(link: ReplayEngineLink | None = None) -> KernelTuiApp:
    """The app for pictures: the scenarios by relative path, and nothing animating."""
    app = make_app(link, paths=PICTURED)
    app.animation_level = "none"  # the tab underline would otherwise slide into place
    return app


def explorer(app: App[Any]) -> ExplorerScreen:
    """The explorer of ``app``, which is a ``KernelTuiApp`` (typed as any app: a ``Pilot`` names only that)."""
    assert isinstance(app, KernelTuiApp)
    screen = app.get_explorer()
    assert screen is not None
    return screen


def tab_shown(app: App[Any]) -> str | None:
    """The pane whose tab the small layout shows (``scenarios`` ... ``editor``); None in the large layout."""
    screen = explorer(app)
    if not screen.has_class("-narrow"):
        return None
    active = screen.query_one("#tabs", Tabs).active
    pane = active.removeprefix("tab-")
    assert screen.has_class(f"-show-{pane}"), f"the tab bar shows {active}, the screen's class another pane"
    return pane


def status(app: KernelTuiApp) -> str:
    """The status line as shown."""
    return shown_text(explorer(app).query_one("#status-text"))


def finished(app: App[Any], path: Path = ADD_RELU) -> bool:
    """Whether the latest run of ``path`` has ended (however it ended)."""
    run = explorer(app).runs.get(path)
    return run is not None and not run.running


async def run_to_the_end(pilot: Pilot[None], path: Path = ADD_RELU, *, key: str = "r") -> None:
    """Press ``key`` (``r``: run, ``s``: run and sweep) and wait until a new run of ``path`` has ended."""
    screen = explorer(pilot.app)
    before = screen.runs.get(path)
    await pilot.press(key)
    await wait_for(
        pilot,
        lambda: (run := screen.runs.get(path)) is not None and run is not before and not run.running,
        what=f"a new run of {path.name} to finish",
    )


async def wait_for(pilot: Pilot[None], condition: Callable[[], bool], timeout: float = 10.0, what: str = "") -> None:
    """Let the app run until ``condition()`` holds; fail after ``timeout`` seconds, scaled by how busy the machine
    is (``conftest.overdue``)."""
    started = time.monotonic()
    while not condition():
        if overdue(started, timeout):
            raise AssertionError(f"timed out waiting for {what or condition}")
        await pilot.pause(0.01)
    await pilot.pause()


def shown_text(widget: Widget) -> str:
    """What a widget shows on screen right now, as plain text (its lines, cropped to its size)."""
    width, height = widget.size
    return "\n".join(strip.text.rstrip() for strip in widget.render_lines(Region(0, 0, width, height)))
