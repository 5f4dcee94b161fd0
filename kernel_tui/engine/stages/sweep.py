"""Runtime against size, eager and compiled, each point delivered as soon as it is measured.

The compiled side goes on with the function compiled for the profile, as a user's code would: with
``torch.compile``'s default, the first new size recompiles once with a dynamic size and that graph serves
the rest. The recompile limit is raised first, so no size can silently run eagerly.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import torch

from kernel_tui.engine.compiler.generated_code import compiled_traffic
from kernel_tui.engine.counting.device import free_memory_bytes
from kernel_tui.engine.counting.peak_memory import measured_peak
from kernel_tui.engine.counting.timing import Comparison, compare_calls, compare_wall, synchronize
from kernel_tui.engine.counting.traffic import eager_traffic
from kernel_tui.engine.stages import training
from kernel_tui.model.report.report import ScenarioReport, SweepPoint
from kernel_tui.model.settings import seconds_or_default

if TYPE_CHECKING:
    from kernel_tui.engine.compiler.compile_watch import CompileWatch
    from kernel_tui.engine.stages.loader import LoadedScenario

FIRST_SIZE = 2**10
LARGEST_DEFAULT = {"cpu": 2**24, "cuda": 2**28}
# A scenario's intermediates are a few times its inputs; keep the largest size well inside free memory.
MEMORY_HEADROOM = 8
MEMORY_SHARE = 0.5
POINT_BUDGET_S = 0.1
SWEEP_BUDGET_S = seconds_or_default("KERNEL_TUI_SWEEP_BUDGET_S")
"""A sweep ends before a point that would take it past this: a fn that grows faster than its size (a loop
over the elements, a pairwise distance) must not turn the last points into a ten-minute wait."""
TIMEABLE_CALL_S = 1e-3
"""One call must take at least this long for its growth from one size to the next to mean anything."""
GROWTH_EXPONENTS = (1.0, 4.0)


@dataclass(frozen=True)
class SweepPlan:
    sizes: tuple[int, ...]
    dropped: tuple[int, ...] = ()
    """Sizes asked for that would not fit in free memory."""


def plan_sizes(scenario: LoadedScenario, report: ScenarioReport, asked: list[int] | None) -> SweepPlan:
    """The sizes to sweep: asked for, else the scenario's ``SIZES``, else powers of 4 from 2**10; all bounded
    by free memory, estimated from the bytes per element of the inputs at the profiled size."""
    input_bytes = report.array_bytes or 4 * report.size
    bytes_per_element = max(input_bytes / max(report.size, 1), 1.0) * MEMORY_HEADROOM
    fits = int(free_memory_bytes(report.device) * MEMORY_SHARE / bytes_per_element)
    wanted = list(asked or scenario.info.sizes or _default_sizes(min(fits, LARGEST_DEFAULT[report.device])))
    kept = tuple(size for size in sorted(set(wanted)) if size <= fits)
    dropped = tuple(size for size in sorted(set(wanted)) if size > fits)
    return SweepPlan(kept, dropped)


def _default_sizes(largest: int) -> list[int]:
    sizes, size = [], FIRST_SIZE
    while size <= largest:
        sizes.append(size)
        size *= 4
    return sizes or [FIRST_SIZE]


def is_out_of_memory(exc: BaseException) -> bool:
    if isinstance(exc, getattr(torch, "OutOfMemoryError", ())):
        return True
    text = str(exc).lower()
    return isinstance(exc, (RuntimeError, MemoryError)) and (
        "out of memory" in text or "can't allocate memory" in text or isinstance(exc, MemoryError)
    )


def run_sweep(scenario: LoadedScenario, device: str, plan: SweepPlan, on_point: Callable[[SweepPoint], None]) -> float:
    """Measure each planned size, calling ``on_point`` as each is done; returns the seconds spent in timed
    calls. Ends early, with a note on each size left, when the next point would overrun SWEEP_BUDGET_S."""
    fn, compiled_fn = training.measured_fn(scenario), scenario.compiled_fn
    timed_s = 0.0
    started = time.perf_counter()
    history: list[tuple[int, float, float]] = []
    """(size, seconds of one eager call, seconds of the point without its compiled warm-up)"""
    for index, size in enumerate(plan.sizes):
        predicted = predicted_point_s(history, size)
        spent = time.perf_counter() - started
        if predicted is not None and spent + predicted > SWEEP_BUDGET_S:
            last_size, _, last_s = history[-1]
            budget_note = (
                f"sweep ended: this size would take about {predicted:,.0f} s (the last took {last_s:,.1f} s "
                f"at {last_size:,} elements; the sweep's budget is {SWEEP_BUDGET_S:g} s)"
            )
            for skipped in plan.sizes[index:]:
                on_point(SweepPoint(skipped, None, None, note=budget_note))
            break
        point_started = time.perf_counter()
        try:
            args = scenario.make_inputs(size, device)
            eager_call_s = _warm_up(scenario, fn, args, device)
            compiled_warm_up_s = _warm_up(scenario, compiled_fn, args, device)
            comparison = _compare(partial(fn, *args), partial(compiled_fn, *args), device)
            eager, compiled = comparison.first, comparison.second
            eager_bytes = sum(op.bytes_total for op in eager_traffic(fn, args))
            compiled_bytes = sum(kernel.bytes_total for kernel in compiled_traffic(compiled_fn, args))
            eager_peak = measured_peak(partial(fn, *args), device).bytes
            compiled_peak = measured_peak(partial(compiled_fn, *args), device).bytes
        except Exception as exc:  # only memory exhaustion ends a sweep quietly
            cause = exc.__cause__ or exc
            if not is_out_of_memory(cause):
                raise
            on_point(SweepPoint(size, None, None, note=f"out of memory at {size:,} elements: sweep ended"))
            _release(device)
            return timed_s
        # The compiled warm-up may recompile for a new size: seconds that say nothing about the next size, so
        # it counts as one eager call.
        point_s = time.perf_counter() - point_started - compiled_warm_up_s + eager_call_s
        history.append((size, eager_call_s, point_s))
        timed_s += eager.timed_s + compiled.timed_s
        noisy = [mode for mode, timing in (("eager", eager), ("compiled", compiled)) if timing.noisy]
        note = f"noisy {' and '.join(noisy)} timing: is the machine busy?" if noisy else None
        on_point(
            SweepPoint(
                size,
                eager.median_us,
                compiled.median_us,
                eager.iqr_us,
                compiled.iqr_us,
                note,
                eager_bytes=eager_bytes,
                compiled_bytes=compiled_bytes or None,
                eager_peak_bytes=eager_peak,
                compiled_peak_bytes=compiled_peak,
            )
        )
        del args
    for size in plan.dropped:
        on_point(SweepPoint(size, None, None, note=f"skipped: {size:,} elements would not fit in free memory"))
    return timed_s


def predicted_point_s(history: list[tuple[int, float, float]], size: int) -> float | None:
    """Seconds the point at ``size`` should take, from how one call grew over the last two points.

    None until there is a point to go on. Calls too short to time say only that the point is cheap; then
    the cost grows with the size, no faster."""
    if not history:
        return None
    last_size, last_call_s, last_point_s = history[-1]
    ratio = size / last_size
    exponent = GROWTH_EXPONENTS[0]
    if len(history) >= 2:
        before_size, before_call_s, _ = history[-2]
        if before_call_s >= TIMEABLE_CALL_S and last_call_s > before_call_s and last_size > before_size:
            growth = math.log(last_call_s / before_call_s) / math.log(last_size / before_size)
            exponent = min(max(growth, GROWTH_EXPONENTS[0]), GROWTH_EXPONENTS[1])
    return float(last_point_s * ratio**exponent)  # a positive ratio: ** gives a real number, never complex


def _warm_up(scenario: LoadedScenario, fn: Any, args: tuple[Any, ...], device: str) -> float:
    """Seconds of one call; for the compiled side this is where a recompile for the new size happens."""
    started = time.perf_counter()
    scenario.call(fn, args, "sweep")
    synchronize(device)
    return time.perf_counter() - started


def _compare(eager: Callable[[], Any], compiled: Callable[[], Any], device: str) -> Comparison:
    """Eager and compiled interleaved at one size. On CUDA, back-to-back calls: runtime against size is
    the learner's question of what a call costs, launches included, which single kernels timed on the
    GPU would hide at small sizes."""
    if device == "cuda":
        return compare_wall(eager, compiled, device, 2 * POINT_BUDGET_S)
    return compare_calls(eager, compiled, device, 2 * POINT_BUDGET_S)


def _release(device: str) -> None:
    if device == "cuda":
        torch.cuda.empty_cache()


def strategy_text(compile_options: dict[str, Any], watch: CompileWatch) -> str:
    dynamic = compile_options.get("dynamic")
    if dynamic is True:
        how = "dynamic=True: one graph with the size as an argument"
    elif dynamic is False:
        how = "dynamic=False: one static graph per size (recompile limit raised)"
    else:
        how = "torch.compile default: static at the profiled size, then one recompile with a dynamic size"
    return f"{how}; {watch.graphs} graph(s) compiled during the sweep, {watch.recompiles} recompile(s)"
