"""Snapshots of the explorer's main states at 80x24 (tabs) and 160x48 (side by side), on replayed messages.

Deterministic by construction: the engine is a recording, the clock is frozen, nothing animates (the
progress bar has a known total, there is no spinner), and each state is reached by waiting for the app's
own state rather than for time. Update with ``--snapshot-update`` only after reading the report.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from support.replay import ReplayGate
from support.ui_support import PICTURED, SnapCompare, finished, make_link, wait_for
from support.ui_support import still_app as make_app
from textual.pilot import Pilot

from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.screens.explorer import ExplorerScreen

SMALL = (80, 24)
LARGE = (160, 48)
ADD_RELU, BROKEN = PICTURED

pytestmark = pytest.mark.usefixtures("from_the_repository")


def fully_mounted(explorer: ExplorerScreen) -> bool:
    """Everything that arrives just after the first frame is in: the lesson's Markdown, the plot."""
    return bool(explorer.query("#lesson-text")) and bool(explorer.query("RuntimePlot"))


def settle(
    *keys: str, done: Path | None = None, stage: str | None = None, then: str = "", shows: str = ""
) -> Callable[[Pilot[None]], Awaitable[None]]:
    """A ``run_before`` that waits for the engine's hello and presses ``keys``; then waits for the run
    to finish (``done``) or reach a stage; then presses ``then`` and waits until the focused widget
    or the screen is of the type named ``shows``. Every state is waited for, never slept on."""

    async def run_before(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, KernelTuiApp)
        explorer = app.get_explorer()
        assert explorer is not None
        await wait_for(pilot, lambda: explorer.hello is not None or explorer.engine.error is not None)
        await wait_for(pilot, lambda: fully_mounted(explorer), what="the panes mounted after the first frame")
        await pilot.press(*keys)
        if done is not None:
            await wait_for(pilot, lambda: finished(app, done))
        if stage is not None:
            await wait_for(
                pilot, lambda: explorer.runs.active is not None and explorer.runs.active.record.stage == stage
            )
        if then:
            await pilot.press(then)
        if shows:
            await wait_for(pilot, lambda: shows in (type(app.focused).__name__, type(app.screen).__name__))

    return run_before


class TestSmallTerminal:
    """80x24: one pane at a time, as tabs; the status line and footer always visible."""

    def test_start_shows_the_scenario_list(self, snap_compare: SnapCompare) -> None:
        """The list tab, first scenario highlighted, nothing run yet."""
        assert snap_compare(make_app(), terminal_size=SMALL, run_before=settle())

    def test_lesson_tab_shows_lesson_and_code(self, snap_compare: SnapCompare) -> None:
        """Key 2: the lesson (Markdown) then fn and inputs with their line numbers."""
        assert snap_compare(make_app(), terminal_size=SMALL, run_before=settle(then="2", shows="LessonView"))

    def test_compiling_shows_stage_and_progress(self, snap_compare: SnapCompare) -> None:
        """Mid-run: eager table filled, compiled waiting, the stage and a progress bar in the status line."""
        gate = ReplayGate()
        gate.release_until(stage="compile")
        app = make_app(make_link(gate=gate))
        assert snap_compare(app, terminal_size=SMALL, run_before=settle("r", stage="compile"))

    def test_finished_run_fills_the_kernel_tables(self, snap_compare: SnapCompare) -> None:
        """After r: both tables, the full kernel name, summary, claims and device."""
        assert snap_compare(make_app(), terminal_size=SMALL, run_before=settle("r", done=ADD_RELU))

    def test_sweep_chart_tab(self, snap_compare: SnapCompare) -> None:
        """After s, key 4: runtime against size, eager and compiled, log-log."""
        app = make_app()
        assert snap_compare(
            app, terminal_size=SMALL, run_before=settle("s", done=ADD_RELU, then="4", shows="RuntimeChart")
        )

    def test_scenario_error_is_one_line(self, snap_compare: SnapCompare) -> None:
        """A scenario that raises: file, line and stage in one line; d for the rest."""
        app = make_app()
        assert snap_compare(app, terminal_size=SMALL, run_before=settle("n", "r", done=BROKEN))

    def test_details_show_the_traceback(self, snap_compare: SnapCompare) -> None:
        """d after an error: the traceback in a dialog over the explorer."""
        app = make_app()
        assert snap_compare(
            app, terminal_size=SMALL, run_before=settle("n", "r", done=BROKEN, then="d", shows="DetailsScreen")
        )

    def test_help_lists_every_key(self, snap_compare: SnapCompare) -> None:
        """? over the explorer."""
        app = make_app()
        assert snap_compare(app, terminal_size=SMALL, run_before=settle(then="question_mark", shows="HelpScreen"))


class TestLargeTerminal:
    """160x48: list, lesson and chart, then the two kernel tables side by side, all at once."""

    def test_start(self, snap_compare: SnapCompare) -> None:
        """Nothing run yet: lesson, code, empty chart and tables, the claims still unchecked."""
        assert snap_compare(make_app(), terminal_size=LARGE, run_before=settle())

    def test_after_a_sweep(self, snap_compare: SnapCompare) -> None:
        """Everything filled: tables, summary, claims, sweep strategy and the chart."""
        assert snap_compare(make_app(), terminal_size=LARGE, run_before=settle("s", done=ADD_RELU))

    def test_scenario_error(self, snap_compare: SnapCompare) -> None:
        """The error in the summary (in full) and the status line (one line)."""
        app = make_app()
        assert snap_compare(app, terminal_size=LARGE, run_before=settle("n", "r", done=BROKEN))

    def test_help(self, snap_compare: SnapCompare) -> None:
        """? over the explorer."""
        assert snap_compare(make_app(), terminal_size=LARGE, run_before=settle(then="f1", shows="HelpScreen"))
