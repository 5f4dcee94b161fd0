"""Times that agree: eager and compiled timed interleaved, the speedup with its spread, honest digits."""

from __future__ import annotations

import itertools
import statistics
import time
from collections.abc import Callable
from dataclasses import replace

import pytest

from kernel_tui.engine.counting import timing
from kernel_tui.engine.stages.timed_report import with_time
from kernel_tui.model.meaning.machine_load import LoadSampler, MachineLoad
from kernel_tui.model.report.kernel import Kernel
from kernel_tui.model.report.mode_result import ModeResult
from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.text.formatting import format_ratio, report_notes, speedup_text, variant_rows


def test_the_two_calls_alternate_in_rounds_and_each_round_gives_a_ratio(monkeypatch: pytest.MonkeyPatch) -> None:
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


def test_ratios_keep_three_significant_figures_and_never_read_zero() -> None:
    assert format_ratio(0.0012) == "0.0012×"
    assert format_ratio(65.59) == "65.6×"
    assert format_ratio(1361.2) == "1361×"
    assert format_ratio(0.0000012) == "1.2e-06×"
    assert "0.00×" not in {format_ratio(10.0**-k) for k in range(8)}


def report_with(eager_us: float, compiled_us: float, spread: tuple[float, float]) -> ScenarioReport:
    eager = ModeResult(2, (), 0, eager_us)
    compiled = ModeResult(1, (), 0, compiled_us)
    return ScenarioReport("s.py", "t", "cpu", "cpu", "2.14", 8, eager=eager, compiled=compiled, speedup_range=spread)


def test_a_spread_that_holds_one_is_no_measurable_difference() -> None:
    assert speedup_text(report_with(30.0, 31.0, (0.8, 1.3))) == "no measurable difference (0.8–1.3×)"
    assert speedup_text(report_with(60.0, 30.0, (1.8, 2.2))) == "speedup 2× (1.8–2.2×)"


def test_kernel_times_above_the_call_are_marked_noisy() -> None:
    kernels = (Kernel("aten::add", "aten::add", 1, 11_840.0),)
    mode = ModeResult(1, kernels, 0, None)
    timed = with_time(mode, timing.Timing(792.8, 40.0, 20, 0.1), timing.Timing(792.8, 40.0, 20, 0.1))
    assert timed.time_us == 792.8 and timed.time_iqr_us == 40.0
    assert len(timed.notes) == 1 and timed.notes[0].startswith("noisy: the profiled kernel times add up to 11.84 ms")
    calm = with_time(replace_kernels(mode, 500.0), timing.Timing(792.8, 40.0, 20, 0.1), timing.Timing(1, 0, 1, 0))
    assert calm.notes == ()


def replace_kernels(mode: ModeResult, time_us: float) -> ModeResult:
    from dataclasses import replace

    return replace(mode, kernels=(Kernel("aten::add", "aten::add", 1, time_us),))


def test_kernel_times_above_the_call_are_marked_even_when_the_spread_exceeds_the_time() -> None:
    # Under load (issue 24): a 39.39 ms kernel inside a 6.53 ms call whose spread was wider than the call.
    mode = replace_kernels(ModeResult(1, (), 0, None), 39_390.0)
    loaded = timing.Timing(6_530.0, 40_000.0, 20, 0.1)
    assert len(with_time(mode, loaded, loaded).notes) == 1
    just_above = timing.Timing(38_000.0, 100.0, 20, 0.1)
    assert with_time(mode, just_above, just_above).notes[0].startswith("noisy:")


def test_kernel_times_above_the_call_by_less_than_is_shown_are_no_contradiction() -> None:
    # A busy box, lesson 02: "add up to 15.57 ms, more than the 15.57 ms a call takes".
    mode = replace_kernels(ModeResult(1, (), 0, None), 15_571.0)
    same_when_shown = timing.Timing(15_568.0, 1_975.0, 20, 0.1)
    assert with_time(mode, same_when_shown, same_when_shown).notes == ()


def test_the_speedup_comes_from_the_same_rounds_as_its_range_so_it_lies_inside() -> None:
    # Each side's median alone can give a ratio outside the rounds' range when the slow moments hit the two
    # sides in different rounds (issue 24: lesson 17's 2.83 outside [0.382, 2.79]).
    eager = [8.0, 8.0, 2.0, 8.0, 8.0, 2.0, 1.0, 8.0]
    compiled = [2.0, 1.0, 1.0, 1.0, 2.0, 1.0, 1.0, 2.0]
    comparison = timing._comparisons([eager, compiled], [1, 1]).against(1)
    low, high = comparison.ratio_range
    medians = comparison.first.median_us / comparison.second.median_us
    assert not low <= medians <= high and low <= comparison.ratio <= high
    report = report_with(comparison.first.median_us, comparison.second.median_us, comparison.ratio_range)
    report = replace(report, speedup_median=comparison.ratio)
    assert report.speedup == comparison.ratio and low <= report.speedup <= high
    assert ScenarioReport.from_dict(report.to_dict()).speedup == comparison.ratio


def test_the_timing_gives_the_report_its_speedup_from_the_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    from kernel_tui.engine.stages import timed_report

    eager, compiled = [8.0, 8.0, 2.0, 8.0, 8.0, 2.0, 1.0, 8.0], [2.0, 1.0, 1.0, 1.0, 2.0, 1.0, 1.0, 2.0]
    skewed = timing._comparisons([eager, compiled], [1, 1])
    monkeypatch.setattr(timed_report, "compare_many", lambda calls, device: skewed)
    report = report_with(1.0, 1.0, (1.0, 1.0))
    timed = timed_report.timed_report(report, lambda: None, lambda: None)
    assert timed.speedup_range is not None and timed.speedup is not None
    low, high = timed.speedup_range
    assert timed.speedup_median == skewed.against(1).ratio and low <= timed.speedup <= high


def test_a_range_too_wide_to_mean_anything_is_said_in_words() -> None:
    assert speedup_text(report_with(60.0, 30.0, (1.21, 88.7))) == (
        "speedup too noisy to tell on this machine right now (fewer other jobs or a retry would help)"
    )
    assert speedup_text(report_with(60.0, 30.0, (1.5, 4.4))) == "speedup 2× (1.5–4.4×)"
    wide = replace(report_with(60.0, 30.0, (0.255, 124.0)), speedup_median=2.0)
    assert wide.to_dict()["speedup_too_noisy"] is True
    assert report_with(60.0, 30.0, (1.8, 2.2)).speedup_too_noisy is False
    (_, cells) = variant_rows(wide)[1]
    assert cells is not None
    (_, _, _, cell, *_) = cells
    assert cell == "too noisy"
    (_, cells) = variant_rows(replace(wide, speedup_range=(1.8, 2.2), speedup_median=2.01))[1]
    assert cells is not None
    (_, _, _, cell, *_) = cells
    assert cell == "2.01×"


def test_the_times_of_a_mode_whose_kernels_exceed_the_call_are_marked_in_the_table() -> None:
    from kernel_tui.text.render import kernel_table

    mode = replace_kernels(ModeResult(1, (), 0, None), 39_390.0)
    noisy = with_time(mode, timing.Timing(6_530.0, 40_000.0, 20, 0.1), timing.Timing(6_530.0, 40_000.0, 20, 0.1))
    assert [column.header for column in kernel_table("eager", noisy).columns][2] == "time ⚠ noisy"
    calm = with_time(mode, timing.Timing(50_000.0, 10.0, 20, 0.1), timing.Timing(50_000.0, 10.0, 20, 0.1))
    assert [column.header for column in kernel_table("eager", calm).columns][2] == "time"


def test_how_busy_the_machine_was_is_said_in_a_plain_sentence() -> None:
    busy = MachineLoad(load_avg=9.3, cores=2, steal_pct=0.0, disagreement=73.3)
    assert busy.busy and busy.sentence() == (
        "the machine was busy while measuring (load 9.3 on 2 cores, repeated runs disagreed up to 73.3×): "
        "times marked noisy moved with it; fewer other jobs or a retry would help"
    )
    quiet = MachineLoad(load_avg=0.4, cores=2, steal_pct=0.0, disagreement=1.1)
    assert not quiet.busy and quiet.sentence() == "the machine was quiet while measuring (load 0.4 on 2 cores)"
    assert MachineLoad(0.5, 2, steal_pct=12.0).busy and "12% of CPU time stolen" in MachineLoad(0.5, 2, 12.0).sentence()
    measured = replace(report_with(60.0, 30.0, (1.8, 2.2)), machine_load=busy)
    assert busy.sentence() in report_notes(measured)
    assert not any("machine was" in note for note in report_notes(replace(measured, machine_load=quiet)))
    assert ScenarioReport.from_dict(measured.to_dict()).machine_load == busy


def test_spinning_openmp_threads_are_named_where_a_busy_machine_moved_the_times() -> None:
    """A user's own ``OMP_WAIT_POLICY=ACTIVE`` is measured as set (theirs wins over kernel-tui's PASSIVE), and a busy
    machine's sentence names the one setting that makes CPU times hold; a quiet machine's does not."""
    spinning = MachineLoad(load_avg=12.0, cores=2, steal_pct=0.0, disagreement=1.2, omp_wait_policy="ACTIVE")
    assert spinning.sentence().endswith(
        "; OpenMP threads spun while they waited (OMP_WAIT_POLICY=ACTIVE), which on a busy machine reads CPU times "
        "several times slow: unset it (kernel-tui then sets PASSIVE)"
    )
    assert "OpenMP" not in replace(spinning, omp_wait_policy="passive").sentence()
    assert "OpenMP" not in replace(spinning, load_avg=0.5).sentence()
    saved = replace(report_with(60.0, 30.0, (1.8, 2.2)), machine_load=spinning).to_dict()
    assert ScenarioReport.from_dict(saved).machine_load == spinning


def test_the_load_sampler_reads_this_machine() -> None:
    load = LoadSampler().read(disagreement=2.0)
    assert load.cores >= 1 and load.load_avg >= 0 and load.disagreement == 2.0
    assert load.steal_pct is None or 0 <= load.steal_pct <= 100


def test_the_engine_s_own_threads_alone_do_not_make_the_machine_busy() -> None:
    # Measuring on every core puts about one runnable job per core in the load average by itself.
    assert not MachineLoad(load_avg=2.3, cores=2, steal_pct=0.0, disagreement=1.2).busy
    assert MachineLoad(load_avg=4.5, cores=2, steal_pct=0.0, disagreement=1.2).busy


def test_a_call_that_fills_a_block_alone_is_called_once_per_sample_and_stops_once_tight() -> None:
    """A model's training step of seconds (issue 56): ``Timer.timeit`` made two warm-up calls before each timed
    one, and the blocks were sized with six more, so its eight rounds cost thirty calls a side; now every call
    but one (the block's sizing) is a sample, and rounds stop at four once the ratio is known within 10 %."""
    made = {"a": 0, "b": 0}

    def sleeper(name: str) -> Callable[[], None]:
        def call() -> None:
            made[name] += 1
            time.sleep(2 * timing.ROUND_S)

        return call

    result = timing.compare_wall(sleeper("a"), sleeper("b"), "cpu", budget_s=0.01)
    samples = result.first.samples
    assert made == {"a": samples + 1, "b": samples + 1}
    assert timing.FEWEST_TIGHT_ROUNDS <= samples <= timing.MIN_ROUNDS
    low, middle, high = statistics.quantiles(result.ratios[: timing.FEWEST_TIGHT_ROUNDS], n=4)
    tight_at_four = high - low <= timing.TIGHT_SPREAD * middle
    assert (samples == timing.FEWEST_TIGHT_ROUNDS) == tight_at_four


@pytest.mark.engine  # compiles in the test process
def test_a_model_s_forward_is_timed_as_it_was_compiled_with_no_second_compile() -> None:
    """The timed calls ran with grad on: a model's weights then made dynamo, which guards on the grad mode,
    compile the forward again, with a backward, inside the first round (issue 56); they run under no_grad, as
    the compile's first call and the profiles do."""
    import torch

    from kernel_tui.engine.compiler.compile_watch import CompileWatch
    from kernel_tui.engine.stages import timed_report

    model = torch.nn.Linear(8, 8)
    compiled = torch.compile(model)
    x = torch.randn(4, 8)
    with torch.no_grad():
        compiled(x)
    watch = CompileWatch().start()
    report = report_with(1.0, 1.0, (1.0, 1.0))
    timed = timed_report.timed_report(report, lambda: model(x), lambda: compiled(x))
    assert timed.compiled is not None and timed.compiled.time_us is not None
    assert watch.graphs == 0
