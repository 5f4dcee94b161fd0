"""The sweep's sizes: asked for, else the scenario's, else powers of 4 from 2**10; never past free memory."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, cast

import pytest
from support.locations import REPO

from kernel_tui.engine.counting.timing import MIN_ROUNDS
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


# The budget's planning: what the points so far cost (seconds of the sweep's clock) and the budget left decide the
# rest. Lesson 01's sizes, and a first point like a busy two-core box's: 6 s, most of it the fixed cost of a point.
LESSON_SIZES = (2**12, 2**14, 2**16, 2**18, 2**20, 2**22)
BUSY_FIRST = sweep.PointCost(2**10, call_s=2e-5, rounds=MIN_ROUNDS, timing_s=2.0, rest_s=4.0)


def test_a_sweep_with_time_to_spare_measures_every_size_in_full_rounds() -> None:
    assert sweep.plan_rest([BUSY_FIRST], LESSON_SIZES, left_s=600) == (LESSON_SIZES, MIN_ROUNDS)


def test_short_of_time_it_takes_fewer_rounds_before_it_gives_up_a_size() -> None:
    full = sum(sweep.predicted_point_s([BUSY_FIRST], size, MIN_ROUNDS) for size in LESSON_SIZES)
    sizes, rounds = sweep.plan_rest([BUSY_FIRST], LESSON_SIZES, left_s=full * 0.9)
    assert sizes == LESSON_SIZES and sweep.FEWEST_ROUNDS <= rounds < MIN_ROUNDS


def test_shorter_still_it_keeps_the_largest_size_and_spreads_the_rest() -> None:
    """The point of lesson 02 (compiled ahead at ten million elements) shows at its largest sizes: a sweep short
    of time gives up middle sizes, never the largest it can afford, and keeps the others spread on the log axis."""
    one = {size: sweep.predicted_point_s([BUSY_FIRST], size, sweep.FEWEST_ROUNDS) for size in LESSON_SIZES}
    sizes, rounds = sweep.plan_rest([BUSY_FIRST], LESSON_SIZES, left_s=one[2**22] + one[2**16] + one[2**12] / 2)
    assert rounds == sweep.FEWEST_ROUNDS
    assert sizes == (2**16, 2**22)


def test_a_fixed_cost_per_point_is_not_multiplied_by_the_size() -> None:
    """The old prediction grew the whole point with the size: 6 s at 1,024 elements predicted 97 s at 16,384, and a
    busy box's sweep stopped after one or two points. The fixed part stays; only the calls grow."""
    assert sweep.predicted_point_s([BUSY_FIRST], 2**14, MIN_ROUNDS) < 2 * BUSY_FIRST.point_s


def test_a_recompile_inside_a_point_is_kept_apart_and_not_predicted_again() -> None:
    """A point that recompiled for its size (77 s of it, a user's MLP on a busy box) is timed apart: the next size
    does not recompile with the default dynamic shapes, so it is not predicted to; with one graph per size it is."""
    recompiled = sweep.PointCost(2**10, call_s=2e-5, rounds=MIN_ROUNDS, timing_s=2.0, rest_s=4.0, compile_s=77)
    assert recompiled.point_s == BUSY_FIRST.point_s
    assert sweep.predicted_point_s([recompiled], 2**12, MIN_ROUNDS) < 10
    assert sweep.predicted_point_s([recompiled], 2**12, MIN_ROUNDS, each_compiles=True) > 77


def test_a_size_that_cannot_fit_alone_ends_the_sweep() -> None:
    assert sweep.plan_rest([BUSY_FIRST], LESSON_SIZES, left_s=0.5) == ((), sweep.FEWEST_ROUNDS)


@pytest.mark.engine
def test_a_sweep_out_of_budget_says_how_much_it_used_and_the_key_that_gives_more() -> None:
    """Lesson 01 on the real engine with a budget no point fits in (``run --sweep-budget``): the first size is
    always measured (its recompile for a new size kept out of its time), every other size says why not and how to
    get it, and the sweep's line says what it spent of its budget."""
    command = [sys.executable, "-m", "kernel_tui", "run", "--device", "cpu", "--json", "--sweep-budget", "0.001"]
    command.append("scenarios/01_one_add.py")  # the suite's own budget (3600 s, conftest) is in the environment
    result = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=REPO, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout)
    measured = [point for point in report["sweep"] if point["eager_us"] is not None]
    given_up = [point for point in report["sweep"] if point["eager_us"] is None]
    assert [point["size"] for point in measured] == [2**10] and len(given_up) == 6
    assert "compiled for this size in" in measured[0]["note"] and "kept out of the point's time" in measured[0]["note"]
    for point in given_up:
        assert point["note"].startswith("sweep ended: this size would take about")
        assert "the sweep's budget is 0.001 s; KERNEL_TUI_SWEEP_BUDGET_S gives it more" in point["note"]
    assert "of its 0.001 s budget" in report["sweep_strategy"]
    assert "not measured for want of time: 4,096, 16,384" in report["sweep_strategy"]
    assert "KERNEL_TUI_SWEEP_BUDGET_S=SECONDS" in report["sweep_strategy"]
