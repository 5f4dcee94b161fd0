"""Runtime against size, eager and compiled, each point delivered as soon as it is measured.

The compiled side goes on with the function compiled for the profile, as a user's code would: with
``torch.compile``'s default, the first new size recompiles once with a dynamic size and that graph serves
the rest. The recompile limit is raised first, so no size can silently run eagerly.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import torch

from kernel_tui.engine.compiler import compile_watch
from kernel_tui.engine.compiler.generated_code import compiled_traffic
from kernel_tui.engine.counting.device import free_memory_bytes
from kernel_tui.engine.counting.peak_memory import measured_peak
from kernel_tui.engine.counting.timing import (
    MIN_ROUNDS,
    ROUND_S,
    Comparison,
    compare_calls,
    compare_wall,
    synchronize,
)
from kernel_tui.engine.counting.traffic import eager_traffic
from kernel_tui.engine.stages import training
from kernel_tui.model.report.report import ScenarioReport, SweepPoint
from kernel_tui.model.settings import seconds_or_default

if TYPE_CHECKING:
    from kernel_tui.engine.stages.loader import LoadedScenario

FIRST_SIZE = 2**10
LARGEST_DEFAULT = {"cpu": 2**24, "cuda": 2**28}
# A scenario's intermediates are a few times its inputs; keep the largest size well inside free memory.
MEMORY_HEADROOM = 8
MEMORY_SHARE = 0.5
POINT_BUDGET_S = 0.1
BUDGET_KEY = "KERNEL_TUI_SWEEP_BUDGET_S"
"""The sweep's budget in seconds (``model.settings``), read at each sweep: a fn that grows faster than its size (a
loop over the elements, a pairwise distance) must not turn the last points into a ten-minute wait."""
TIMEABLE_CALL_S = 1e-3
"""One call must take at least this long for its growth from one size to the next to mean anything."""
GROWTH_EXPONENTS = (1.0, 4.0)
FEWEST_ROUNDS = 3
"""Rounds of a point when the budget is short: three still give a median and a spread (a wide one), where a
skipped size gives nothing."""
ROUNDS_TRIED = (MIN_ROUNDS, 5, FEWEST_ROUNDS)
CALLS_OUTSIDE_TIMING = 8
"""Calls a point makes outside its timed rounds: its inputs, three warm calls, the bytes' two and the peaks' two."""


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


def sweep_budget_s() -> float:
    """The budget this engine's environment gives a sweep, read when it starts (a forked engine's environment is
    its front end's, not the fork server's)."""
    return seconds_or_default(BUDGET_KEY)


@dataclass(frozen=True)
class PointCost:
    """What one measured point cost, in seconds of the sweep's clock: what the sizes after it are planned from."""

    size: int
    call_s: float
    """One warm eager call."""
    rounds: int
    """The interleaved rounds its times came from."""
    timing_s: float
    """The interleaved rounds, their block sizing included."""
    rest_s: float
    """The rest of the point: inputs, warm calls, bytes and peaks."""
    compile_s: float = 0.0
    """Phases of the point in which dynamo compiled (a new size's recompile): timed apart, never the point's."""

    @property
    def point_s(self) -> float:
        return self.timing_s + self.rest_s


@dataclass(frozen=True)
class SweepSpent:
    """What a sweep cost against its budget, for the line that says so."""

    timed_s: float
    """Seconds inside timed calls."""
    used_s: float
    budget_s: float
    skipped: tuple[int, ...] = ()
    """Sizes the budget did not cover."""
    fewer_rounds: int = 0
    """Points timed in fewer rounds than a sweep with time to spare gives each (their spread is wider)."""
    compile_s: float = 0.0


def run_sweep(
    scenario: LoadedScenario,
    device: str,
    plan: SweepPlan,
    on_point: Callable[[SweepPoint], None],
    *,
    budget_s: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> SweepSpent:
    """Measure the planned sizes, calling ``on_point`` as each is done (or given up, with its reason).

    Short of budget (``KERNEL_TUI_SWEEP_BUDGET_S``), a sweep first times each point in fewer rounds, then gives
    up middle sizes, keeping the largest it can afford: where the lesson's point shows (``plan_rest``). Planned
    again after every point, from what the points so far cost on ``clock``."""
    budget_s = sweep_budget_s() if budget_s is None else budget_s
    fn, compiled_fn = training.measured_fn(scenario), scenario.compiled_fn
    static = scenario.info.compile_options.get("dynamic") is False
    started = clock()
    history: list[PointCost] = []
    timed_s, compile_s, fewer, skipped = 0.0, 0.0, 0, []
    remaining = list(plan.sizes)
    while remaining:
        left_s = budget_s - (clock() - started)
        each_compiles = static or (len(history) >= 2 and all(point.compile_s > 0 for point in history[-2:]))
        kept, rounds = plan_rest(history, remaining, left_s, each_compiles)
        given_up = [size for size in remaining if not kept or size < kept[0]]
        last = history[-1] if history else None
        for size in given_up:
            note = _budget_note(
                size,
                predicted_point_s(history, size, FEWEST_ROUNDS, each_compiles),
                left_s,
                budget_s,
                last,
                ended=not kept,
            )
            on_point(SweepPoint(size, None, None, note=note))
        skipped.extend(given_up)
        if not kept:
            break
        size = kept[0]
        remaining = [later for later in remaining if later > size]
        phases = _Phases(clock)
        try:
            point, point_cost, timed = _measure_point(scenario, fn, compiled_fn, size, device, rounds, phases)
        except Exception as exc:  # only memory exhaustion ends a sweep quietly
            cause = exc.__cause__ or exc
            if not is_out_of_memory(cause):
                raise
            on_point(SweepPoint(size, None, None, note=f"out of memory at {size:,} elements: sweep ended"))
            _release(device)
            return SweepSpent(timed_s, clock() - started, budget_s, tuple(skipped), fewer, compile_s)
        history.append(point_cost)
        timed_s, compile_s, fewer = timed_s + timed, compile_s + point_cost.compile_s, fewer + (rounds < MIN_ROUNDS)
        on_point(point)
    for size in plan.dropped:
        on_point(SweepPoint(size, None, None, note=f"skipped: {size:,} elements would not fit in free memory"))
    return SweepSpent(timed_s, clock() - started, budget_s, tuple(skipped), fewer, compile_s)


class _Phases:
    """A point's seconds on the sweep's clock, each phase in which dynamo compiled kept apart: a recompile for a
    new size (or for the grad mode the timed calls run in) says nothing of what the next size costs."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.own_s = 0.0
        self.compile_s = 0.0

    @contextlib.contextmanager
    def phase(self) -> Iterator[None]:
        graphs, started = compile_watch.graphs_so_far(), self.clock()
        yield
        spent = self.clock() - started
        if compile_watch.graphs_so_far() > graphs:
            self.compile_s += spent
        else:
            self.own_s += spent


def _measure_point(
    scenario: LoadedScenario, fn: Any, compiled_fn: Any, size: int, device: str, rounds: int, phases: _Phases
) -> tuple[SweepPoint, PointCost, float]:
    """One size, eager and compiled: the point, what it cost, and the seconds inside its timed calls."""
    with phases.phase():
        args = scenario.make_inputs(size, device)
    call_started = phases.clock()
    with phases.phase():
        _warm_up(scenario, fn, args, device)
    call_s = phases.clock() - call_started
    with phases.phase():
        _warm_up(scenario, compiled_fn, args, device)  # as the bytes and peaks call it, without grad
    with phases.phase():
        compiled_fn(*args)  # as the timed calls run it, grad on: a guard of its own, a recompile of its own
        synchronize(device)
    own_before = phases.own_s
    with phases.phase():
        comparison = _compare(partial(fn, *args), partial(compiled_fn, *args), device, rounds)
    timing_s = phases.own_s - own_before  # nothing where a compile landed in the rounds: that phase is apart
    with phases.phase():
        eager_bytes = sum(op.bytes_total for op in eager_traffic(fn, args))
        compiled_bytes = sum(kernel.bytes_total for kernel in compiled_traffic(compiled_fn, args))
    with phases.phase():
        eager_peak = measured_peak(partial(fn, *args), device).bytes
        compiled_peak = measured_peak(partial(compiled_fn, *args), device).bytes
    del args
    eager, compiled = comparison.first, comparison.second
    notes = []
    if noisy := [mode for mode, timing in (("eager", eager), ("compiled", compiled)) if timing.noisy]:
        notes.append(f"noisy {' and '.join(noisy)} timing: is the machine busy?")
    if phases.compile_s > 0:
        notes.append(f"compiled for this size in {phases.compile_s:,.1f} s, kept out of the point's time")
    point = SweepPoint(
        size,
        eager.median_us,
        compiled.median_us,
        eager.iqr_us,
        compiled.iqr_us,
        "; ".join(notes) or None,
        eager_bytes=eager_bytes,
        compiled_bytes=compiled_bytes or None,
        eager_peak_bytes=eager_peak,
        compiled_peak_bytes=compiled_peak,
    )
    cost = PointCost(size, call_s, rounds, timing_s, phases.own_s - timing_s, phases.compile_s)
    return point, cost, eager.timed_s + compiled.timed_s


def plan_rest(
    history: Sequence[PointCost], remaining: Sequence[int], left_s: float, each_compiles: bool = False
) -> tuple[tuple[int, ...], int]:
    """The sizes still to measure and the rounds each gets, from what the points so far cost.

    Every size if they fit in the budget left, in as many rounds as fit (``ROUNDS_TRIED``): a wider spread is
    better than a missing size. Else, in the fewest rounds, the largest size that fits on its own (a lesson's point
    shows at its largest sizes: eager against compiled at ten million elements), then the middle sizes that
    spread the chart most evenly, as long as they fit. None until there is a point to go on: the first size is
    always measured."""
    if not history:
        return tuple(remaining), MIN_ROUNDS
    for rounds in ROUNDS_TRIED:
        if sum(predicted_point_s(history, size, rounds, each_compiles) for size in remaining) <= left_s:
            return tuple(remaining), rounds
    cost = {size: predicted_point_s(history, size, FEWEST_ROUNDS, each_compiles) for size in remaining}
    fitting = [size for size in remaining if cost[size] <= left_s]
    if not fitting:
        return (), FEWEST_ROUNDS
    kept = [fitting[-1]]
    left_s -= cost[fitting[-1]]
    candidates = [size for size in remaining if size < kept[0]]
    measured = [point.size for point in history]
    while candidates:
        # The one farthest, on the chart's log axis, from every size there already.
        farthest = max(candidates, key=lambda size: min(abs(math.log(size / other)) for other in measured + kept))
        candidates.remove(farthest)
        if cost[farthest] <= left_s:
            kept.append(farthest)
            left_s -= cost[farthest]
    return tuple(sorted(kept)), FEWEST_ROUNDS


def predicted_point_s(history: Sequence[PointCost], size: int, rounds: int, each_compiles: bool = False) -> float:
    """Seconds the point at ``size`` should take in ``rounds`` rounds, from the last point: its calls grow as one
    call grew over the last two points (calls too short to time say only that they are cheap: then with the size,
    no faster); the rounds' blocks are fixed in length until one call outgrows them; the rest of the point makes
    about ``CALLS_OUTSIDE_TIMING`` calls over its fixed cost. A compile only where every size compiles."""
    if not history:
        return 0.0
    last = history[-1]
    exponent = GROWTH_EXPONENTS[0]
    if len(history) >= 2:
        before = history[-2]
        if before.call_s >= TIMEABLE_CALL_S and last.call_s > before.call_s and last.size > before.size:
            growth = math.log(last.call_s / before.call_s) / math.log(last.size / before.size)
            exponent = min(max(growth, GROWTH_EXPONENTS[0]), GROWTH_EXPONENTS[1])
    call_s = float(last.call_s * (size / last.size) ** exponent)  # a positive ratio: a real number, never complex
    rest_s = last.rest_s + CALLS_OUTSIDE_TIMING * max(call_s - last.call_s, 0.0)
    timing_s = last.timing_s * rounds / last.rounds * max(ROUND_S, call_s) / max(ROUND_S, last.call_s)
    return rest_s + timing_s + (last.compile_s if each_compiles else 0.0)


def _budget_note(
    size: int, cost_s: float, left_s: float, budget_s: float, last: PointCost | None, *, ended: bool
) -> str:
    """Why ``size`` was given up, in words the chart's border and the claims' "not measured" both quote."""
    took = f"the last took {last.point_s:,.1f} s at {last.size:,} elements; " if last is not None else ""
    why = (
        f"this size would take about {cost_s:,.1f} s, {max(left_s, 0.0):,.1f} s left "
        f"({took}the sweep's budget is {budget_s:g} s; {BUDGET_KEY} gives it more)"
    )
    if ended:
        return f"sweep ended: {why}"
    return f"skipped {size:,} elements so that the larger sizes fit: {why}"


def budget_text(spent: SweepSpent) -> str:
    """What the sweep spent of its budget, and how to give it more where it had to cut."""
    text = f"{spent.used_s:,.0f} s of its {spent.budget_s:g} s budget"
    if spent.compile_s >= 0.05:
        text += f" ({spent.compile_s:,.1f} s compiling, kept out of the points' times)"
    if spent.fewer_rounds:
        text += f"; {spent.fewer_rounds} size(s) timed in fewer rounds (a wider spread)"
    if spent.skipped:
        sizes = ", ".join(f"{size:,}" for size in spent.skipped)
        text += f"; not measured for want of time: {sizes} ({BUDGET_KEY}=SECONDS, or run --sweep-budget, gives more)"
    return text


def _warm_up(scenario: LoadedScenario, fn: Any, args: tuple[Any, ...], device: str) -> float:
    """Seconds of one call; for the compiled side this is where a recompile for the new size happens."""
    started = time.perf_counter()
    scenario.call(fn, args, "sweep")
    synchronize(device)
    return time.perf_counter() - started


def _compare(eager: Callable[[], Any], compiled: Callable[[], Any], device: str, rounds: int) -> Comparison:
    """Eager and compiled interleaved at one size. On CUDA, back-to-back calls: runtime against size is
    the learner's question of what a call costs, launches included, which single kernels timed on the
    GPU would hide at small sizes."""
    if device == "cuda":
        return compare_wall(eager, compiled, device, _rounds_budget(rounds), rounds)
    return compare_calls(eager, compiled, device, _rounds_budget(rounds), rounds)


def _rounds_budget(rounds: int) -> float:
    """A sweep with time to spare times each point for ``POINT_BUDGET_S`` per side at least; one short of it runs
    the rounds it was given and no more."""
    return 2 * POINT_BUDGET_S if rounds >= MIN_ROUNDS else 0.0


def _release(device: str) -> None:
    if device == "cuda":
        torch.cuda.empty_cache()


def strategy_text(compile_options: dict[str, Any], watch: compile_watch.CompileWatch) -> str:
    dynamic = compile_options.get("dynamic")
    if dynamic is True:
        how = "dynamic=True: one graph with the size as an argument"
    elif dynamic is False:
        how = "dynamic=False: one static graph per size (recompile limit raised)"
    else:
        how = "torch.compile default: static at the profiled size, then one recompile with a dynamic size"
    return f"{how}; {watch.graphs} graph(s) compiled during the sweep, {watch.recompiles} recompile(s)"
