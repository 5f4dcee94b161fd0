"""Steady-state time of one call: ``torch.utils.benchmark`` on CPU, CUDA events around single calls on a GPU.

Two calls that are compared (eager against compiled) are timed interleaved, in rounds of A then B then B
then A, in one process: a shared machine's slow moment hits both alike, and the ratio of each round
carries the spread of the comparison itself, not of two measurements taken seconds apart.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    from torch.utils.benchmark import Timer

NOISY_SPREAD = 0.5


@dataclass(frozen=True)
class Timing:
    median_us: float
    iqr_us: float
    samples: int
    timed_s: float
    """Wall time spent inside the timed calls themselves, for the sweep's cost against its work."""

    @property
    def noisy(self) -> bool:
        """A spread this wide means the machine was busy, not that the code is slow."""
        return self.iqr_us > NOISY_SPREAD * self.median_us


def time_call(call: Callable[[], object], device: str, budget_s: float = 0.2) -> Timing:
    """Median time of ``call()`` in microseconds, with the interquartile range; ``call`` is warm already."""
    if device == "cuda":
        return _cuda_event_timing(call, budget_s)
    return wall_time_call(call, device, budget_s)


L2_FLUSH_BYTES = 256 * 2**20
"""Larger than any GPU's L2 (50 MB on H100/H200, 126 MB on B200), so writing it evicts the inputs."""


def l2_flush(device: str) -> Callable[[], object]:
    """A call that evicts the GPU's L2 cache (nothing to do on CPU), so the next kernel reads from memory."""
    if device != "cuda":
        return lambda: None
    buffer = torch.empty(L2_FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")
    return buffer.zero_


def wall_time_call(call: Callable[[], object], device: str, budget_s: float = 0.2) -> Timing:
    """Time per call of back-to-back calls, the host's overhead included: Python, dispatch and the launches.

    On CPU this is what ``time_call`` measures already. On CUDA ``torch.utils.benchmark`` synchronizes
    only at the edges of a block of calls, so small kernels show the launch rate, which the event-timed,
    L2-flushed single calls of ``time_call`` hide."""
    timer = _timer(call)
    measurement = timer.blocked_autorange(min_run_time=budget_s)
    timed_s = sum(measurement.times) * measurement.number_per_run
    return Timing(measurement.median * 1e6, measurement.iqr * 1e6, len(measurement.times), timed_s)


def _cuda_event_timing(call: Callable[[], object], budget_s: float) -> Timing:
    # Like triton.testing.do_bench: an L2 flush before each call so every call reads from HBM, and an
    # event pair around it so the time is the device's, not the launch rate's.
    flush = l2_flush("cuda")
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    call()
    end.record()
    torch.cuda.synchronize()
    estimate_ms = max(start.elapsed_time(end), 1e-3)
    repeats = int(min(1000, max(10, budget_s * 1e3 / estimate_ms)))
    pairs = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(repeats)]
    for begin, finish in pairs:
        flush()
        begin.record()
        call()
        finish.record()
    torch.cuda.synchronize()
    times_us = sorted(begin.elapsed_time(finish) * 1e3 for begin, finish in pairs)
    quartiles = statistics.quantiles(times_us, n=4)
    return Timing(statistics.median(times_us), quartiles[2] - quartiles[0], repeats, sum(times_us) / 1e6)


def synchronize(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


ROUND_S = 0.04
"""One block of back-to-back calls per side and round. Shorter blocks (10 ms) read a 2**22-element compiled
add+relu 1.16-1.24x slow against an independent timer (its first call after the other side's block pays
for memory the other side left); 40 ms blocks agree within 0.93-1.08 (``bench/fidelity.py``)."""
MIN_ROUNDS, MAX_ROUNDS = 8, 400
FEWEST_TIGHT_ROUNDS = 4
"""Rounds enough for calls that fill a block alone, once the budget is spent and the ratios agree within
``TIGHT_SPREAD``: a call of seconds (a model's training step) ends its timing there instead of at ``MIN_ROUNDS``;
shorter calls keep their ``MIN_ROUNDS``, which cost a fraction of a second."""
TIGHT_SPREAD = 0.1


@dataclass(frozen=True)
class Comparison:
    """Two calls timed interleaved: each side's times, and the ratio first/second of each round."""

    first: Timing
    second: Timing
    ratios: tuple[float, ...]

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios)

    @property
    def ratio_range(self) -> tuple[float, float]:
        """The interquartile range of the rounds' ratios."""
        if len(self.ratios) < 2:
            return (self.ratio, self.ratio)
        low, _, high = statistics.quantiles(self.ratios, n=4)
        return (low, high)


def compare_calls(
    first: Callable[[], object],
    second: Callable[[], object],
    device: str,
    budget_s: float = 0.4,
    min_rounds: int = MIN_ROUNDS,
) -> Comparison:
    """Time ``first`` and ``second`` interleaved; on CUDA, the device's time of single calls after an L2 flush.
    At least ``min_rounds`` rounds, more while ``budget_s`` lasts (a sweep short of time asks for fewer)."""
    return compare_many((first, second), device, budget_s, min_rounds).against(1)


def compare_wall(
    first: Callable[[], object],
    second: Callable[[], object],
    device: str,
    budget_s: float = 0.4,
    min_rounds: int = MIN_ROUNDS,
) -> Comparison:
    """Back-to-back calls, interleaved in blocks: the host's cost per call included (on CUDA too, where
    ``torch.utils.benchmark`` synchronizes at the edges of each block)."""
    return compare_many_wall((first, second), device, budget_s, min_rounds).against(1)


@dataclass(frozen=True)
class Comparisons:
    """Several calls timed interleaved in the same rounds: each one's times, and per round the ratio of the
    first call's time to each call's (the first's own ratios are all 1)."""

    timings: tuple[Timing, ...]
    ratios: tuple[tuple[float, ...], ...]

    def against(self, side: int) -> Comparison:
        """The first call against call ``side``, as a two-way comparison."""
        return Comparison(self.timings[0], self.timings[side], self.ratios[side])


def compare_many(
    calls: Sequence[Callable[[], object]], device: str, budget_s: float = 0.4, min_rounds: int = MIN_ROUNDS
) -> Comparisons:
    """Time ``calls`` interleaved (eager, compiled and each compile variant), so that every ratio to the first
    comes from the same rounds; on CUDA, the device's time of single calls after an L2 flush."""
    if device == "cuda":
        return _cuda_event_comparison(calls, budget_s, min_rounds)
    return compare_many_wall(calls, device, budget_s, min_rounds)


def compare_many_wall(
    calls: Sequence[Callable[[], object]], device: str, budget_s: float = 0.4, min_rounds: int = MIN_ROUNDS
) -> Comparisons:
    """``compare_wall`` for any number of calls: each round runs them all, in reverse order every other round,
    so that no call always follows the same one."""
    timers = [_timer(call) for call in calls]
    numbers = [_calls_per_block(timer, call, device) for timer, call in zip(timers, calls)]
    samples: list[list[float]] = [[] for _ in calls]
    spent = 0.0
    rounds = 0
    # The budget is per pair of calls, as it was when only two were compared: more columns take longer.
    total_budget_s = budget_s * max(len(calls) - 1, 1)
    one_call_blocks = all(number == 1 for number in numbers)
    while rounds < MAX_ROUNDS and (rounds < min_rounds or spent < total_budget_s):
        if one_call_blocks and spent >= total_budget_s and rounds >= FEWEST_TIGHT_ROUNDS and _tight(samples):
            break
        for side in _round_order(len(calls), rounds):
            seconds = _block_s(timers[side], calls[side], numbers[side], device)
            samples[side].append(seconds)
            spent += seconds * numbers[side]
        rounds += 1
    return _comparisons(samples, numbers)


def _timer(call: Callable[[], object]) -> Timer:
    """A ``torch.utils.benchmark`` timer of ``call()``, imported only by a run that times: the import pulls in
    ``cpp_extension`` and setuptools (about 0.05 CPU-s, in every engine before), and ``cpp_extension`` looks for a
    CUDA runtime as it loads, which marks every process later forked from the importer as unable to use CUDA: the
    fork server imports this module for its engines (``engine.serve.preloaded_code``)."""
    from torch.utils.benchmark import Timer

    return Timer(stmt="call()", globals={"call": call}, num_threads=torch.get_num_threads())


def _block_s(timer: Timer, call: Callable[[], object], number: int, device: str) -> float:
    """Seconds per call of one block. ``Timer.timeit`` first makes two warm-up calls, cheap before a block
    of many calls (they also pay for the cache the other side left), but a block of one call is one call
    of 40 ms or more, where they would triple the rounds: a model's training step took minutes of them."""
    if number > 1:
        return float(timer.timeit(number).median)
    synchronize(device)
    started = time.perf_counter()
    call()
    synchronize(device)
    return time.perf_counter() - started


def _tight(samples: list[list[float]]) -> bool:
    """Whether every side's ratio to the first is known within ``TIGHT_SPREAD`` (its interquartile range
    against its median): more rounds past the budget would not move it."""
    comparisons = _comparisons(samples, [1] * len(samples))
    for side in range(1, len(samples)):
        against = comparisons.against(side)
        if len(against.ratios) < 2:
            return False
        low, high = against.ratio_range
        if high - low > TIGHT_SPREAD * against.ratio:
            return False
    return True


def _round_order(count: int, round_index: int) -> list[int]:
    order = list(range(count))
    return order if round_index % 2 == 0 else order[::-1]


def _calls_per_block(timer: Timer, call: Callable[[], object], device: str) -> int:
    """How many back-to-back calls fill a round's block, grown as ``autorange`` does (the first calls
    are the slowest, so one call's time would size the block too small)."""
    if _block_s(timer, call, 1, device) >= ROUND_S:
        return 1  # a call that fills a block alone: timed again it would only cost another three
    number = 1
    while number < 1_000_000:
        if timer.timeit(number).median * number >= ROUND_S / 4:
            break
        number *= 4
    return max(1, int(number * ROUND_S / max(timer.timeit(number).median * number, 1e-9)))


def _comparisons(samples: list[list[float]], numbers: list[int]) -> Comparisons:
    timings = []
    for side, side_samples in enumerate(samples):
        times_us = [t * 1e6 for t in side_samples]
        quartiles = statistics.quantiles(times_us, n=4) if len(times_us) > 1 else [times_us[0]] * 3
        timings.append(
            Timing(
                statistics.median(times_us),
                quartiles[2] - quartiles[0],
                len(times_us),
                sum(side_samples) * numbers[side],
            )
        )
    ratios = tuple(tuple(a / b for a, b in zip(samples[0], side_samples) if b > 0) for side_samples in samples)
    return Comparisons(tuple(timings), ratios)


def _cuda_event_comparison(calls: Sequence[Callable[[], object]], budget_s: float, min_rounds: int) -> Comparisons:
    flush = l2_flush("cuda")
    estimate = sum(_cuda_event_timing(call, 0.01).median_us for call in calls)
    total_budget_s = budget_s * max(len(calls) - 1, 1)
    rounds = int(min(MAX_ROUNDS, max(min_rounds * 4, total_budget_s * 1e6 / max(estimate, 1.0))))
    events = []
    for index in range(rounds):
        pair = {}
        for side in _round_order(len(calls), index):
            begin, finish = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            flush()
            begin.record()
            calls[side]()
            finish.record()
            pair[side] = (begin, finish)
        events.append(pair)
    torch.cuda.synchronize()
    samples = [[pair[side][0].elapsed_time(pair[side][1]) / 1e3 for pair in events] for side in range(len(calls))]
    return _comparisons(samples, [1] * len(calls))
