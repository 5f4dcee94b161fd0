"""The sweep's sizes: asked for, else the scenario's, else powers of 4 from 2**10; never past free memory."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, cast

import pytest

from kernel_tui.engine.stages import sweep
from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.scenario.scenario_file import ScenarioInfo

if TYPE_CHECKING:
    from kernel_tui.engine.stages.loader import LoadedScenario


def plan(
    monkeypatch: pytest.MonkeyPatch,
    free_bytes: int,
    asked: list[int] | None = None,
    sizes: tuple[int, ...] | None = None,
    device: str = "cpu",
) -> sweep.SweepPlan:
    monkeypatch.setattr(sweep, "free_memory_bytes", lambda _device: free_bytes)
    # plan_sizes reads only the scenario's info: no function need be loaded for it.
    scenario = cast("LoadedScenario", SimpleNamespace(info=ScenarioInfo(Path("s.py"), "t", "", sizes=sizes)))
    report = ScenarioReport("s.py", "t", device, "", "", size=2**20, array_bytes=4 * 2**20)
    return sweep.plan_sizes(scenario, report, asked)


def test_default_is_powers_of_four_from_1024_to_the_device_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    result = plan(monkeypatch, free_bytes=2**40)
    assert result.sizes == tuple(4**k * 1024 for k in range(8)) and result.sizes[-1] == 2**24
    assert result.dropped == ()


def test_sizes_that_would_not_fit_are_dropped_and_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    # 4 bytes per element, 8x headroom, half of free memory: 64 MiB free fits 2**20 elements.
    result = plan(monkeypatch, free_bytes=64 * 2**20, sizes=(2**18, 2**20, 2**22))
    assert result.sizes == (2**18, 2**20) and result.dropped == (2**22,)


def test_asked_sizes_win_over_the_scenario(monkeypatch: pytest.MonkeyPatch) -> None:
    assert plan(monkeypatch, free_bytes=2**40, asked=[4096, 1024], sizes=(2**18,)).sizes == (1024, 4096)
