"""The explorer driven by keys (Pilot) on replayed engine messages: navigate, run, sweep, cancel, help (errors:
test_ui_errors.py)."""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Group
from rich.text import Text
from support.replay import ReplayGate
from support.ui_support import (
    ADD_RELU,
    BROKEN,
    DATA,
    explorer,
    finished,
    make_app,
    make_link,
    shown_text,
    status,
    tab_shown,
    wait_for,
)
from textual.widgets._header import HeaderTitle

from kernel_tui.model.report.report import ScenarioError
from kernel_tui.transport.protocol import Done, Partial, SweepPointMessage
from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.screens.dialogs.help import HelpScreen
from kernel_tui.ui.screens.explorer import ExplorerScreen
from kernel_tui.ui.state.run_state import RunStatus
from kernel_tui.ui.view import describe
from kernel_tui.ui.widgets.charts.runtime_chart import RuntimeChart
from kernel_tui.ui.widgets.charts.runtime_plot import RuntimePlot
from kernel_tui.ui.widgets.kernel_name import KernelNameLine
from kernel_tui.ui.widgets.kernel_table import KernelTable
from kernel_tui.ui.widgets.lesson_view import LessonView
from kernel_tui.ui.widgets.run_status import RunStatusBar
from kernel_tui.ui.widgets.scenario_list import ScenarioList
from kernel_tui.ui.widgets.summary_strip import SummaryStrip

WIDE = (160, 48)
SMALL = (80, 24)


def table_names(app: KernelTuiApp, mode: str) -> list[str]:
    return [kernel.short_name for kernel in explorer(app).query_one(f"#{mode}", KernelTable).kernels]


def last_line(summary: SummaryStrip) -> str:
    """The summary's last line as given to it, shown or not (a tab that is not active has no size)."""
    shown = summary.content
    assert isinstance(shown, Group)
    last = shown.renderables[-1]
    assert isinstance(last, Text)
    return last.plain


class TestNavigation:
    """Moving between scenarios shows each one's lesson and code, never running anything."""

    async def test_starts_on_the_first_scenario_with_its_lesson_and_code(self) -> None:
        app = make_app()
        async with app.run_test(size=WIDE) as pilot:
            await pilot.pause()
            screen = explorer(app)
            assert screen.catalog.index == 0
            lesson = screen.query_one(LessonView)
            assert lesson.border_title == "Lesson: Add, then ReLU"
            source = shown_text(lesson.query_one("#lesson-source"))
            assert "def fn(a, b):" in source and "def inputs(size, device):" in source
            assert screen.query_one(ScenarioList).option_count == 2
            assert "r runs this scenario" in status(app)

    async def test_next_and_previous_move_through_the_list_and_stop_at_its_ends(self) -> None:
        app = make_app()
        async with app.run_test(size=WIDE) as pilot:
            await pilot.pause()
            screen = explorer(app)
            await pilot.press("n")
            assert screen.catalog.index == 1
            assert screen.sub_title == "2/2 · A scenario whose fn fails"
            await pilot.press("n")
            assert screen.catalog.index == 1
            await pilot.press("p", "p")
            assert screen.catalog.index == 0
            await pilot.press("right_square_bracket")
            assert screen.query_one(ScenarioList).highlighted == 1
            assert not screen.runs, "navigating must not run anything"

    async def test_user_files_are_marked_when_mixed_with_the_course(self, tmp_path: Path) -> None:
        course = DATA  # pretend tests/data is the course: ui_add_relu.py is in it, the other file is not
        yours = tmp_path / "mine.py"
        yours.write_text('"""My own\n\nA file of mine."""\ndef fn(a):\n    return a\n')
        app = make_app(paths=(ADD_RELU, yours), course=course)
        async with app.run_test(size=WIDE) as pilot:
            await pilot.pause()
            scenarios = explorer(app).query_one(ScenarioList)
            assert "(yours)" not in str(scenarios.get_option_at_index(0).prompt)
            assert "(yours)" in str(scenarios.get_option_at_index(1).prompt)
            assert scenarios.border_title == "Scenarios"

    async def test_tab_moves_focus_between_panes(self) -> None:
        app = make_app()
        async with app.run_test(size=WIDE) as pilot:
            await pilot.pause()
            assert isinstance(app.focused, ScenarioList)
            seen = set()
            for _ in range(5):
                await pilot.press("tab")
                seen.add(type(app.focused).__name__)
            assert {"LessonView", "RuntimeChart", "KernelTable"} <= seen


class TestRun:
    """r runs the scenario on screen at once; the tables, summary and claims fill from the engine."""

    async def test_run_fills_both_tables_the_summary_and_the_claims(self) -> None:
        link = make_link()
        app = make_app(link)
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("r")
            await wait_for(pilot, lambda: finished(app), what="the run to finish")
            assert link.runs == [(ADD_RELU, False)]
            assert table_names(app, "eager") == ["aten::add", "aten::relu"]
            assert table_names(app, "compiled") == ["cpp_fused_add_relu_0"]
            summary = shown_text(explorer(app).query_one(SummaryStrip))
            assert "launches 2 → 1" in summary
            assert "✓ eager: claimed 2, measured 2" in summary
            assert "cpu (AMD EPYC, 2 threads)" in summary
            assert "✓ done" in status(app)
            assert "✓" in str(explorer(app).query_one(ScenarioList).get_option_at_index(0).prompt)
            assert explorer(app).query_one(RuntimeChart).points == (), "r runs without the sweep"

    async def test_the_full_name_of_the_highlighted_kernel_is_shown(self) -> None:
        app = make_app()
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("r")
            await wait_for(pilot, lambda: finished(app))
            line = explorer(app).query_one(KernelNameLine)
            assert "eager › aten::add" in shown_text(line)
            explorer(app).query_one("#compiled", KernelTable).focus()
            await pilot.pause()
            assert "compiled › graph_0_cpp_fused_add_relu_0" in shown_text(line)
            explorer(app).query_one("#eager", KernelTable).focus()
            await pilot.press("down")
            assert "eager › aten::relu" in shown_text(line)

    async def test_tables_fill_as_partial_reports_arrive(self) -> None:
        gate = ReplayGate()
        app = make_app(make_link(gate=gate))
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("r")
            gate.release_until(kind=Partial)  # load, inputs, eager, then the partial report with eager only
            await wait_for(pilot, lambda: table_names(app, "eager") == ["aten::add", "aten::relu"])
            assert table_names(app, "compiled") == []
            assert explorer(app).query_one("#compiled", KernelTable).border_subtitle == "waiting for eager"
            gate.release_until(stage="compile")
            await wait_for(pilot, lambda: "compile" in status(app))
            assert explorer(app).query_one("#compiled", KernelTable).border_subtitle == "compiling…"
            gate.release_all()
            await wait_for(pilot, lambda: finished(app))
            assert table_names(app, "compiled") == ["cpp_fused_add_relu_0"]

    async def test_small_terminal_switches_to_the_kernels_tab_when_a_run_starts(self) -> None:
        app = make_app()
        async with app.run_test(size=SMALL) as pilot:
            await pilot.pause()
            assert tab_shown(app) == "scenarios"
            await pilot.press("r")
            await wait_for(pilot, lambda: finished(app))
            assert tab_shown(app) == "kernels"
            assert table_names(app, "compiled") == ["cpp_fused_add_relu_0"]


class TestSweep:
    """s runs with the size sweep; each measured point reaches the chart as it arrives."""

    async def test_sweep_points_stream_into_the_chart(self) -> None:
        gate = ReplayGate()
        link = make_link(gate=gate)
        app = make_app(link)
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("s")
            chart = explorer(app).query_one(RuntimeChart)
            gate.release_until(stage="sweep")
            await wait_for(pilot, lambda: explorer(app).runs[ADD_RELU].record.stage == "sweep")
            assert not chart.points

            def points_shown(count: int) -> bool:
                # Held by the chart and drawn by its plot (at most every STREAMED_REPLOT_INTERVAL_S).
                plots = chart.query(RuntimePlot)
                drawn = len(plots.first().drawn.get("eager", ([], []))[0]) if plots else 0
                return len(chart.points) == count == drawn

            for count in range(1, 7):
                gate.release_until(kind=SweepPointMessage)
                await wait_for(pilot, functools.partial(points_shown, count), what=f"point {count}")
                assert explorer(app).runs[ADD_RELU].running
                assert "sweep" in status(app)
            assert [point.size for point in chart.points] == [2**10, 2**12, 2**14, 2**16, 2**18, 2**20]
            gate.release_until(kind=Done)
            await wait_for(pilot, lambda: finished(app))
            assert len(chart.points) == 6
            assert link.runs == [(ADD_RELU, True)]
            assert "sweep: torch.compile default" in shown_text(explorer(app).query_one(SummaryStrip))

    async def test_chart_tells_the_two_lines_apart_without_colour(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("NO_COLOR", "1")
        app = make_app()
        async with app.run_test(size=WIDE) as pilot:
            assert app.no_color
            await pilot.press("s")
            await wait_for(pilot, lambda: finished(app))
            rendered = explorer(app).query_one("RuntimePlot").render()
            assert isinstance(rendered, Text)
            drawn = rendered.plain
            assert "•" in drawn and "×" in drawn

    async def test_a_scenarios_results_come_back_when_returning_to_it(self) -> None:
        app = make_app()
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("s")
            await wait_for(pilot, lambda: finished(app))
            await pilot.press("n")
            assert explorer(app).query_one(RuntimeChart).points == ()
            assert table_names(app, "eager") == []
            await pilot.press("p")
            assert len(explorer(app).query_one(RuntimeChart).points) == 6
            assert table_names(app, "eager") == ["aten::add", "aten::relu"]


class TestCancel:
    """Esc stops the engine; the app stays usable and the next run starts again."""

    async def test_escape_cancels_a_run_and_the_next_run_works(self) -> None:
        gate = ReplayGate()
        link = make_link(gate=gate)
        app = make_app(link)
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("r")
            gate.release_until(stage="compile")
            await wait_for(pilot, lambda: "compile" in status(app))
            assert app.screen.check_action("cancel", ()) is True
            await pilot.press("escape")
            run = explorer(app).runs[ADD_RELU]
            assert run.status is RunStatus.CANCELLED
            assert "cancelled" in status(app)
            assert explorer(app).runs.active is None
            gate.release_all()  # whatever the stopped run had left must not reach the screen
            await pilot.pause(0.1)
            assert explorer(app).runs[ADD_RELU].status is RunStatus.CANCELLED
            assert table_names(app, "compiled") == []
            await pilot.press("r")
            await wait_for(pilot, lambda: finished(app))
            assert explorer(app).runs[ADD_RELU].status is RunStatus.DONE
            assert table_names(app, "compiled") == ["cpp_fused_add_relu_0"]
            assert len(link.runs) == 2

    async def test_escape_without_a_run_does_nothing(self) -> None:
        app = make_app()
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("escape")
            assert explorer(app).runs == {}
            assert app.screen.check_action("cancel", ()) is False

    async def test_running_another_scenario_replaces_the_current_run(self) -> None:
        gate = ReplayGate()
        link = make_link(gate=gate)
        app = make_app(link)
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("r")
            gate.release_until(stage="eager")
            await wait_for(pilot, lambda: explorer(app).runs[ADD_RELU].record.stage == "eager")
            await pilot.press("n", "r")
            assert explorer(app).runs[ADD_RELU].status is RunStatus.CANCELLED
            gate.release_all()
            await wait_for(pilot, lambda: finished(app, BROKEN))
            assert [path for path, _ in link.runs] == [ADD_RELU, BROKEN]


class TestHelpAndCommands:
    """Every key is listed on the help screen, and the command palette offers the actions."""

    async def test_question_mark_and_f1_open_help_listing_every_key(self) -> None:
        app = make_app()
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("question_mark")
            assert isinstance(app.screen, HelpScreen)
            text = "".join(shown_text(static) for static in app.screen.query("Static"))
            for key in ("r ", "s ", "esc", "n / ]", "p / [", "d ", "? / f1", "tab", "ctrl+p", "q "):
                assert key in text, key
            await pilot.press("escape")
            assert isinstance(app.screen, ExplorerScreen)
            await pilot.press("f1")
            assert isinstance(app.screen, HelpScreen)

    async def test_command_palette_offers_the_explorer_actions(self) -> None:
        app = make_app()
        async with app.run_test(size=WIDE) as pilot:
            await pilot.pause()
            titles = [command.title for command in app.get_system_commands(app.screen)]
            for title in ("Run", "Run with sweep", "Cancel run", "Next scenario", "Details", "Help"):
                assert title in titles
            run = next(c for c in app.get_system_commands(app.screen) if c.title == "Run")
            await run.callback()
            await wait_for(pilot, lambda: finished(app))

    async def test_footer_shows_cancel_only_while_running(self) -> None:
        gate = ReplayGate()
        app = make_app(make_link(gate=gate))
        async with app.run_test(size=WIDE) as pilot:
            await pilot.pause()
            keys = {binding.key for _, binding, enabled, _ in app.active_bindings.values() if enabled}
            assert "escape" not in keys or not app.screen.check_action("cancel", ())
            await pilot.press("r")
            assert app.screen.check_action("cancel", ())
            gate.release_all()
            await wait_for(pilot, lambda: finished(app))
            assert not app.screen.check_action("cancel", ())


def panes_on_screen(app: KernelTuiApp) -> set[str]:
    """The panes (and the tab bar) that take room on the screen: hidden ones have none."""
    selectors = ("#tabs", "#scenarios", "#lesson", "#chart", "#eager", "#compiled", "#editor")
    return {selector for selector in selectors if explorer(app).query_one(selector).region.area}


class TestLayout:
    """Tabs at 80x24, panes side by side on a large terminal; resizing keeps what was shown."""

    async def test_small_terminal_uses_tabs_and_large_one_does_not(self) -> None:
        app = make_app()
        async with app.run_test(size=SMALL) as pilot:
            await pilot.pause()
            assert panes_on_screen(app) == {"#tabs", "#scenarios"}
            await pilot.press("3")
            await pilot.pause()
            assert tab_shown(app) == "kernels"
            assert panes_on_screen(app) == {"#tabs", "#eager", "#compiled"}, "only the kernels tab's panes"
        app = make_app()
        async with app.run_test(size=WIDE) as pilot:
            await pilot.pause()
            assert tab_shown(app) is None
            assert panes_on_screen(app) == {"#scenarios", "#lesson", "#chart", "#eager", "#compiled"}
            eager, compiled = explorer(app).query(KernelTable)
            assert eager.region.y < compiled.region.y, "one above the other: each with every column"
            await pilot.resize_terminal(200, 50)
            await pilot.pause()
            eager, compiled = explorer(app).query(KernelTable)
            assert eager.region.y == compiled.region.y, "side by side"

    async def test_resizing_switches_layout_and_keeps_the_results(self) -> None:
        app = make_app()
        async with app.run_test(size=SMALL) as pilot:
            await pilot.press("s")
            await wait_for(pilot, lambda: finished(app))
            await pilot.resize_terminal(*WIDE)
            await wait_for(pilot, lambda: tab_shown(app) is None)
            assert table_names(app, "eager") == ["aten::add", "aten::relu"]
            assert len(explorer(app).query_one(RuntimeChart).points) == 6
            await pilot.resize_terminal(*SMALL)
            await wait_for(pilot, lambda: tab_shown(app) is not None)
            assert table_names(app, "compiled") == ["cpp_fused_add_relu_0"]

    async def test_a_layout_switch_while_no_widget_has_the_focus_comes_back_to_the_tab_shown(self) -> None:
        """A tab's key takes the focus from the pane it leaves before its own pane's widget can take it: a resize
        in that moment came back to the scenario list, not to the tab the learner had just asked for."""
        app = make_app()
        async with app.run_test(size=SMALL) as pilot:
            screen = explorer(app)
            await pilot.press("4")
            assert tab_shown(app) == "chart"
            screen.set_focus(None)  # as between the tab's key and its pane's widget taking the focus
            await pilot.resize_terminal(*WIDE)
            await wait_for(pilot, lambda: tab_shown(app) is None, what="the wide layout")
            await pilot.resize_terminal(*SMALL)
            await wait_for(pilot, lambda: tab_shown(app) == "chart", what="the chart tab")

    async def test_resizing_keeps_the_same_panes_bound_to_the_screen_values(self) -> None:
        app = make_app()
        async with app.run_test(size=WIDE) as pilot:
            screen = explorer(app)
            await wait_for(pilot, lambda: screen.hello is not None, what="the engine's hello")
            await pilot.press("n", "b")
            screen.run_size = 4096
            engine = describe.engine_line(screen.hello, None)
            await pilot.pause()

            def tabbed(tabs: bool) -> bool:
                return (tab_shown(app) is not None) == tabs

            selectors = ("#scenarios", "#lesson", "#chart", "#eager", "#compiled", "#summary", "#editor", "#status")
            panes = [screen.query_one(selector) for selector in selectors]
            for size in (SMALL, WIDE, SMALL):
                tabs = size == SMALL
                await pilot.resize_terminal(*size)
                await wait_for(pilot, functools.partial(tabbed, tabs))
                # Composed once: a switch only lays the same widgets out anew.
                assert all(screen.query_one(selector) is pane for selector, pane in zip(selectors, panes, strict=True))
                scenarios = screen.query_one(ScenarioList)
                assert (scenarios.current, scenarios.highlighted, screen.catalog.index) == (1, 1, 1)
                chart = screen.query_one(RuntimeChart)
                assert (chart.mode, chart.border_title) == ("bandwidth", "Bandwidth vs size")
                summary = screen.query_one(SummaryStrip)
                assert summary.engine == engine
                assert last_line(summary) == engine
                assert "size 4,096" in shown_text(screen.query_one(HeaderTitle))
            # The panes stay bound: what changes after the switch reaches them too.
            await pilot.press("b", "p")
            screen.engine_side.state = replace(screen.engine, error=ScenarioError(stage="engine", message="no torch"))
            await pilot.pause()
            assert (screen.query_one(ScenarioList).highlighted, screen.catalog.index) == (0, 0)
            assert screen.query_one(RuntimeChart).border_title == "Roofline"
            assert last_line(screen.query_one(SummaryStrip)) == "engine: could not start (no torch)"

    async def test_status_line_stays_one_line(self) -> None:
        app = make_app()
        async with app.run_test(size=SMALL) as pilot:
            await pilot.press("n", "r")
            await wait_for(pilot, lambda: finished(app, BROKEN))
            assert explorer(app).query_one(RunStatusBar).region.height == 1
