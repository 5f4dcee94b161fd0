"""An exception nothing in the app expected: the session's results are saved where ``kernel-tui view`` reads them,
the traceback beside them, and the app ends with one line naming both instead of a traceback."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from support.ui_support import explorer, finished, make_app, wait_for

from kernel_tui.model.storage.results_file import read_results
from kernel_tui.ui.screens.explorer import ExplorerScreen


class Surprise(RuntimeError):
    pass


async def test_an_unexpected_exception_saves_the_session_and_ends_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def fails(self: ExplorerScreen) -> None:
        raise Surprise("a bug in a pane\nwith a second line")

    monkeypatch.setattr(ExplorerScreen, "action_details", fails)
    app = make_app()
    app.crash_to_file = True  # as on a terminal; under Pilot the exception would reach the test
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("r")
        await wait_for(pilot, lambda: finished(app), what="the run to finish")
        screen = explorer(app)
        run = screen.runs.get(next(iter(screen.runs)))
        assert run is not None and run.record.report is not None
        await pilot.press("B")  # pinned: the baseline is the same report, saved once
        # The key's action, as the key runs it; the app ends while the press would still wait for a frame.
        app.call_later(app.run_action, "details", screen)
        for _ in range(500):  # not Pilot's pause: it waits for a frame of an app that has ended
            if app.return_code is not None:
                break
            await asyncio.sleep(0.02)
    assert app.return_code == 1
    saved = app.crash_saved
    assert saved is not None and saved.results is not None and saved.traceback is not None
    state = Path(os.environ["KERNEL_TUI_STATE_DIR"])
    assert saved.results.parent == state
    reports = read_results(saved.results)
    assert [report.scenario for report in reports] == [run.record.report.scenario]
    measured, kept = run.record.report.compiled, reports[0].compiled
    assert measured is not None and kept is not None and kept.kernel_count == measured.kernel_count
    assert "Surprise: a bug in a pane" in saved.traceback.read_text()
    line = saved.one_line(Surprise("a bug in a pane\nwith a second line"))
    assert "\n" not in line
    assert "internal error (Surprise: a bug in a pane)" in line
    assert f"kernel-tui view {saved.results}" in line or "kernel-tui view ~/" in line
