"""The explorer driven by keys (Pilot) on replayed engine messages, when a scenario, the engine or the app's
worker fails: one line naming file, line and stage, the details one key away, the app still usable."""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path

from support.ui_support import ADD_RELU, BROKEN, explorer, finished, make_app, make_link, shown_text, status, wait_for

from kernel_tui.transport.engine_died import EngineDied
from kernel_tui.transport.protocol import RunMessage, StageStartedMessage
from kernel_tui.ui.link.engine_link import CompileVariants
from kernel_tui.ui.link.run_lifecycle import RunMessages
from kernel_tui.ui.screens.dialogs.details import DetailsScreen
from kernel_tui.ui.screens.explorer import ExplorerScreen
from kernel_tui.ui.state.run_state import RunStatus
from kernel_tui.ui.widgets.scenario_list import ScenarioList
from kernel_tui.ui.widgets.summary_strip import SummaryStrip

WIDE = (160, 48)


class TestErrors:
    """A failing scenario or engine: one line naming file, line and stage; the rest one key away."""

    async def test_scenario_error_shows_file_line_and_stage(self) -> None:
        app = make_app()
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("n", "r")
            await wait_for(pilot, lambda: finished(app, BROKEN))
            assert "✗ ui_broken_fn.py:9: eager: TypeError" in status(app)
            assert "ui_broken_fn.py:9: eager: TypeError" in shown_text(explorer(app).query_one(SummaryStrip))
            assert "✗" in str(explorer(app).query_one(ScenarioList).get_option_at_index(1).prompt)

    async def test_details_key_shows_the_traceback_and_escape_closes_it(self) -> None:
        app = make_app()
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("n", "r")
            await wait_for(pilot, lambda: finished(app, BROKEN))
            await pilot.press("d")
            assert isinstance(app.screen, DetailsScreen)
            body = shown_text(app.screen.query_one("#details-body Static"))
            assert "Traceback (most recent call last)" in body
            assert 'return a / "two"' in body
            await pilot.press("escape")
            assert isinstance(app.screen, ExplorerScreen)
            assert finished(app, BROKEN), "closing the details must not cancel or rerun anything"

    async def test_an_engine_that_dies_is_reported_with_its_stderr(self) -> None:
        link = make_link()
        link.recordings.pop("ui_add_relu.py")  # the stand-in then dies as an engine would
        app = make_app(link)
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("r")
            await wait_for(pilot, lambda: finished(app))
            assert "ui_add_relu.py: engine: no recording for ui_add_relu.py" in status(app)
            assert explorer(app).runs[ADD_RELU].status is RunStatus.FAILED

    async def test_a_bug_in_the_worker_ends_the_run_with_its_traceback(self) -> None:
        link = make_link()

        def broken_run(
            path: Path, *, sweep: bool, size: int | None = None, variants: CompileVariants | None = None
        ) -> RunMessages:
            run = link.lifecycle.ask(Path(path))  # numbered by the link, as every run is

            def messages() -> Generator[RunMessage, None, None]:
                yield StageStartedMessage(run.run_id, "load", "")
                raise ValueError("a bug, not an engine death")

            return RunMessages(run, messages())

        link.run = broken_run  # type: ignore[method-assign]  # a bug, as a worker's might be
        app = make_app(link)
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("r")
            await wait_for(pilot, lambda: finished(app))
            assert "the app failed talking to the engine" in status(app)
            error = explorer(app).runs[ADD_RELU].record.error
            assert error is not None
            assert "ValueError: a bug" in error.details
            await pilot.press("r")  # and the app is still usable
            assert explorer(app).runs[ADD_RELU].running or finished(app)

    async def test_an_engine_that_cannot_start_says_so(self) -> None:
        link = make_link(start_error=EngineDied(1, "ModuleNotFoundError: No module named 'torch'\n"))
        app = make_app(link)
        async with app.run_test(size=WIDE) as pilot:
            await wait_for(pilot, lambda: explorer(app).engine.error is not None)
            assert "engine: the engine exited with code 1" in status(app)
            await pilot.press("d")
            assert isinstance(app.screen, DetailsScreen)
            assert "No module named 'torch'" in shown_text(app.screen.query_one("#details-body Static"))
