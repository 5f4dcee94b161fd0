"""Times that agree: eager and compiled timed interleaved, the speedup with its spread, honest digits."""

from __future__ import annotations

import itertools

from kernel_tui.engine import timing
from kernel_tui.engine.measure import _with_time
from kernel_tui.formatting import format_ratio, speedup_text
from kernel_tui.report import Kernel, ModeResult, ScenarioReport


def test_the_two_calls_alternate_in_rounds_and_each_round_gives_a_ratio(monkeypatch):
    monkeypatch.setattr(timing, "ROUND_S", 0.001)
    order: list[str] = []
    timing_result = timing.compare_wall(lambda: order.append("a"), lambda: order.append("b"), "cpu", budget_s=0.01)
    assert len(timing_result.ratios) >= timing.MIN_ROUNDS
    assert timing_result.first.samples == timing_result.second.samples == len(timing_result.ratios)
    # After sizing the blocks, whole blocks of one call follow whole blocks of the other: A B, B A, A B, ...
    blocks = [key for key, _ in itertools.groupby(order)]
    assert len(blocks) >= timing.MIN_ROUNDS
    low, high = timing_result.ratio_range
    assert low <= timing_result.ratio <= high


def test_ratios_keep_three_significant_figures_and_never_read_zero():
    assert format_ratio(0.0012) == "0.0012×"
    assert format_ratio(65.59) == "65.6×"
    assert format_ratio(1361.2) == "1361×"
    assert format_ratio(0.0000012) == "1.2e-06×"
    assert "0.00×" not in {format_ratio(10.0**-k) for k in range(8)}


def report_with(eager_us: float, compiled_us: float, spread: tuple[float, float]) -> ScenarioReport:
    eager = ModeResult(2, (), 0, eager_us)
    compiled = ModeResult(1, (), 0, compiled_us)
    return ScenarioReport("s.py", "t", "cpu", "cpu", "2.14", 8, eager=eager, compiled=compiled, speedup_range=spread)


def test_a_spread_that_holds_one_is_no_measurable_difference():
    assert speedup_text(report_with(30.0, 31.0, (0.8, 1.3))) == "no measurable difference (0.8–1.3×)"
    assert speedup_text(report_with(60.0, 30.0, (1.8, 2.2))) == "speedup 2× (1.8–2.2×)"


def test_kernel_times_above_the_call_are_marked_noisy():
    kernels = (Kernel("aten::add", "aten::add", 1, 11_840.0),)
    mode = ModeResult(1, kernels, 0, None)
    timed = _with_time(mode, timing.Timing(792.8, 40.0, 20, 0.1), timing.Timing(792.8, 40.0, 20, 0.1))
    assert timed.time_us == 792.8 and timed.time_iqr_us == 40.0
    assert len(timed.notes) == 1 and timed.notes[0].startswith("noisy: the profiled kernel times add up to 11.84 ms")
    calm = _with_time(replace_kernels(mode, 500.0), timing.Timing(792.8, 40.0, 20, 0.1), timing.Timing(1, 0, 1, 0))
    assert calm.notes == ()


def replace_kernels(mode: ModeResult, time_us: float) -> ModeResult:
    from dataclasses import replace

    return replace(mode, kernels=(Kernel("aten::add", "aten::add", 1, time_us),))
