"""The first answer comes sooner: the explorer's engine compiles a tiny function while the learner reads,
says so, and a run asked for meanwhile waits for it instead of competing with it for the 2 cores."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import pytest
from conftest import measure, overdue
from support.locations import REPO
from support.replay import ReplayEngineLink
from support.ui_support import ADD_RELU, explorer, make_app, make_link, wait_for
from textual.widgets import ProgressBar

from kernel_tui.transport.client import EngineClient
from kernel_tui.transport.protocol import Done, Hello, StageStartedMessage, Warmup, WarmupPlan
from kernel_tui.ui.link.engine_link import ClientEngineLink
from kernel_tui.ui.view import describe
from kernel_tui.ui.widgets.run_status import RunStatusBar

SMALL = (80, 24)


@pytest.mark.engine
def test_the_explorer_engine_warms_the_compiler_and_a_run_still_measures_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KERNEL_TUI_CACHE_DIR", str(tmp_path))
    with EngineClient("cpu", warm_up=True) as client:
        hello = client.start()
        assert hello.warmup is not None
        assert hello.warmup.estimate_s > 0 and isinstance(hello.warmup.cold, bool)
        stages = []
        report = None
        # Asked for at once: the run waits for the warm-up rather than measuring beside it.
        for message in client.run(str(REPO / "tests" / "data" / "add_relu.py"), sweep=False, timeout=600):
            if isinstance(message, StageStartedMessage):
                stages.append(message.detail)
            if isinstance(message, Done):
                report = message.report
        assert report is not None and report.error is None
        # A compile takes far longer than sending a request: the run found the warm-up going, and said so.
        assert any("first compile of the session" in detail for detail in stages), stages
        assert report.compiled is not None and report.compiled.kernel_count == 1
        assert report.compiled.recompiles in (0, None), "the tiny function is not the scenario's"
        assert not any("fresh engine" in note for note in report.notes), "the warm-up left nothing behind"
        started = time.monotonic()
        while client.warmup_result is None and not overdue(started, 60):
            time.sleep(0.05)
        assert client.warmup_result is not None
        assert client.warmup_result.state == "done" and client.warmup_result.seconds > 0
    assert (tmp_path / "warmup.json").exists(), "the next session's estimate comes from this one"


@pytest.mark.engine
def test_the_cli_engine_does_not_warm_up_and_its_spares_do() -> None:
    """The CLI's request comes at once: its first engine does not warm up, and the spare that each run starts for the
    next one does, while that run measures."""
    with EngineClient("cpu") as client:
        assert client.start().warmup is None
        report = measure(client, REPO / "tests" / "data" / "add_relu.py")
        assert report.compiled is not None
        assert report.compiled.kernel_count == 1
        hello = client.start()
        assert hello.warmup is not None, "the run's spare, now this client's engine, warmed up"


def test_the_explorer_asks_for_the_warm_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KERNEL_TUI_WARM_UP", raising=False)
    link = ClientEngineLink("cpu")
    try:
        assert "--warm-up" in link._client._command
    finally:
        link.close()


def test_the_warm_up_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KERNEL_TUI_WARM_UP", "0")
    link = ClientEngineLink("cpu")
    try:
        assert "--warm-up" not in link._client._command
    finally:
        link.close()


class WarmingLink:
    """The replayed engine, with a hello that announces a warm-up, ended when the test says so."""

    def __init__(self) -> None:
        self.replay = make_link()
        self.result: Warmup | None = None

    def start(self) -> Hello:
        return replace(self.replay.start(), warmup=WarmupPlan(cold=True, estimate_s=20.0))

    def warmup_result(self) -> Warmup | None:
        return self.result

    def __getattr__(self, name: str) -> Any:
        return getattr(self.replay, name)


async def test_the_explorer_shows_the_first_compile_with_its_progress_until_it_ends() -> None:
    link = WarmingLink()
    now = [1000.0]
    # A ReplayEngineLink in all but its hello and warm-up, which it hands on through __getattr__.
    app = make_app(cast(ReplayEngineLink, link), clock=lambda: now[0])
    async with app.run_test(size=SMALL) as pilot:
        bar = explorer(app).query_one(RunStatusBar)

        def status() -> str:
            return str(bar.query_one("#status-text").render())

        await wait_for(pilot, lambda: "first compile of the session: about 20 s" in status(), what="the warm-up")
        now[0] += 5
        explorer(app).derive_shown()
        await pilot.pause()
        assert "5 s so far" in status()
        progress = bar.query_one("#status-progress", ProgressBar)
        assert progress.total is not None
        assert progress.display and 0 < progress.progress < progress.total
        link.result = Warmup(state="done", seconds=6.0)
        explorer(app).derive_shown()
        await pilot.pause()
        assert "first compile" not in status() and not progress.display
        await pilot.press("r")
        await wait_for(pilot, lambda: not explorer(app).runs[ADD_RELU].running, what="the run")


async def test_the_first_compiles_counter_and_its_end_are_shown_with_nothing_else_happening() -> None:
    """Time passing is shown with no event besides it. Textual calls a timer's callback in the timer's own task, not
    through the screen's queue, so the explorer's one-second tick was followed by no idle and derived nothing: the
    counter moved only while the progress bar's own repaints kept the funnel going (about ninety times a second),
    and froze where the bar stops short of full (95 %: "19 s so far" of an estimated 20, for four minutes once);
    the warm-up's end (kept by the link, not posted) was not shown either until a key came."""
    link = WarmingLink()
    later = [0.0]
    app = make_app(cast(ReplayEngineLink, link), clock=lambda: time.monotonic() + later[0])
    async with app.run_test(size=SMALL) as pilot:
        screen = explorer(app)
        bar = screen.query_one(RunStatusBar)

        def status() -> str:
            return str(bar.query_one("#status-text").render())

        async def untouched_until(condition: Callable[[], bool], what: str) -> None:
            # Not ``pilot.pause``: it posts to every widget of the screen, an event that ran the funnel after it.
            started = time.monotonic()
            while not condition():
                assert not overdue(started, 10), f"{what}: {status()!r}"
                await asyncio.sleep(0.05)

        await wait_for(pilot, lambda: "first compile of the session: about 20 s" in status(), what="the warm-up")
        derived = [0]
        derive = screen.derive_shown

        def counted() -> None:
            derived[0] += 1
            derive()

        screen.derive_shown = counted  # type: ignore[method-assign]
        await asyncio.sleep(2.0)
        assert derived[0] <= 10, f"the funnel ran {derived[0]} times in 2 s of a counter that moves each second"
        later[0] = 40.0  # past where the bar stops (95 % of 20 s)
        await untouched_until(lambda: int(status().split(" s so far")[0].split("· ")[-1]) >= 40, "the counter")
        link.result = Warmup(state="done", seconds=41.0)
        await untouched_until(lambda: "first compile" not in status(), "the warm-up's end")
        assert not bar.query_one("#status-progress", ProgressBar).display


def test_warming_progress_stays_short_of_full_until_the_engine_says_done() -> None:
    assert describe.warming_progress(20.0, 10.0) == (50.0, 100)
    assert describe.warming_progress(20.0, 60.0)[0] < 100
