"""Steady-state time of one call: ``torch.utils.benchmark`` on CPU, CUDA events around single calls on a GPU."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.utils.benchmark as benchmark

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
    timer = benchmark.Timer(stmt="call()", globals={"call": call}, num_threads=torch.get_num_threads())
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
