"""A report's modes timed: eager, compiled and each measured variant interleaved in one measurement, so that
every speedup and its spread come from the same rounds (``timing``); or, untimed (``--no-time``), a note saying
so. The profiler's kernel times are the profile's, measured either way."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import torch

from kernel_tui.engine.counting.timing import Timing, compare_many, compare_many_wall, time_call, wall_time_call
from kernel_tui.text.formatting import format_time_us

if TYPE_CHECKING:
    from kernel_tui.model.report.mode_result import ModeResult
    from kernel_tui.model.report.report import ScenarioReport

UNTIMED = (
    "not timed (--no-time): no time per call, speedup or sweep; the kernels, bytes, memory and the profiler's "
    "kernel times are measured"
)


def timed_report(
    report: ScenarioReport,
    eager_call: Callable[[], Any],
    compiled_call: Callable[[], Any] | None,
    variant_calls: dict[str, Callable[[], Any]] | None = None,
    *,
    timed: bool = True,
) -> ScenarioReport:
    """Time per call of each mode, eager, compiled and each measured variant (``variant_calls`` by name)
    interleaved in one measurement so that every speedup and its spread come from the same rounds; on CUDA
    also the wall time of back-to-back calls. ``timed`` False (``--no-time``): no time, the note saying so."""
    device = report.device
    # What the timers run with (timing reads it too): a scenario may have set it in inputs() or fn.
    report = replace(report, threads=torch.get_num_threads())
    if not timed:
        return replace(report, notes=(*report.notes, UNTIMED))
    if report.eager is None:
        return report
    if compiled_call is None or report.compiled is None:
        eager = _no_grad(eager_call)
        timing = time_call(eager, device)
        wall = wall_time_call(eager, device) if device == "cuda" else timing
        return replace(report, eager=with_time(report.eager, timing, wall))
    names = list(variant_calls or {})
    calls = [_no_grad(call) for call in (eager_call, compiled_call, *(variant_calls or {}).values())]
    comparisons = compare_many(calls, device)
    walls = compare_many_wall(calls, device) if device == "cuda" else comparisons
    timed_variants = dict(report.variants)
    for side, name in enumerate(names, start=2):
        variant = timed_variants[name]
        assert variant.measured is not None
        timed_variants[name] = replace(
            variant,
            measured=with_time(variant.measured, comparisons.timings[side], walls.timings[side]),
            speedup_range=comparisons.against(side).ratio_range,
            speedup_median=comparisons.against(side).ratio,
        )
    return replace(
        report,
        eager=with_time(report.eager, comparisons.timings[0], walls.timings[0]),
        compiled=with_time(report.compiled, comparisons.timings[1], walls.timings[1]),
        speedup_range=comparisons.against(1).ratio_range,
        speedup_median=comparisons.against(1).ratio,
        variants=timed_variants,
    )


def _no_grad(call: Callable[[], Any]) -> Callable[[], Any]:
    """The call as it was profiled and compiled, under ``no_grad`` (a training step turns grad on itself). With
    grad on, a model's weights made its forward record autograd's graph, and dynamo, which guards on the grad
    mode, compiled the forward again, for autograd, inside the first timed round (issue 56)."""

    def under_no_grad() -> Any:
        with torch.no_grad():
            return call()

    return under_no_grad


def with_time(mode: ModeResult, timing: Timing, wall: Timing) -> ModeResult:
    notes = mode.notes
    profiled_us = sum(kernel.time_us or 0.0 for kernel in mode.kernels)
    # Kernels run inside the call, so their sum above the call's time is a contradiction, whatever the spread:
    # under load the spread can exceed the time itself, and a bound of time + spread would then never fire.
    # Read as shown: a sum a hair above the call prints as the same figure, "15.57 ms, more than the 15.57 ms".
    if profiled_us > timing.median_us and format_time_us(profiled_us) != format_time_us(timing.median_us):
        notes = (*notes, kernel_time_note(profiled_us, timing))
    return replace(mode, time_us=timing.median_us, time_iqr_us=timing.iqr_us, wall_us=wall.median_us, notes=notes)


def kernel_time_note(profiled_us: float, timing: Timing) -> str:
    return (
        f"noisy: the profiled kernel times add up to {format_time_us(profiled_us)}, more than the "
        f"{format_time_us(timing.median_us)} (± {format_time_us(timing.iqr_us / 2)}) a call takes when timed; "
        "profiling adds its own cost and the machine may have been busier then: read the kernel times as shares "
        "of the call"
    )
