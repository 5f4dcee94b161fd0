"""A compile's time by stage, read from torch's own compile timers, and the compile caches' hits and misses.

Every ``dynamo_timed`` block of torch appends its duration to ``torch._dynamo.utils.compilation_time_metrics``
under its key, from the thread that ran it, as it ends. The blocks nest (``_compile.compile_inner`` holds
``OutputGraph.call_user_compiler``, which holds ``compile_fx_inner`` …), and Inductor times its C++ compiles in
worker threads too, where they overlap the calling thread's wait for them. So the clock keeps, for the keys of
``STAGE_OF``, a list that also notes when each block ended and on which thread: the calling thread's blocks are
intervals, and each instant of them goes to the innermost one's stage, so the stages never count a moment twice
(a worker's compile is inside the caller's ``async_compile.wait``). What no timer covers is ``other``.

Read on torch 2.11 to 2.14 (``torch/_dynamo/utils.py``): the keys and counters below exist on each. A key a
torch no longer times leaves its stage at zero and its time in its parent's stage or in ``other``.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from torch._dynamo import utils as dynamo_utils

from kernel_tui.model.report.mode_result import CACHE_LEVELS, COMPILE_STAGES, CompileStages

STAGE_OF = {
    "_compile.compile_inner": "dynamo",
    "OutputGraph.call_user_compiler": "aot_autograd",
    "inductor_codecache_torch_key": "cache_keys",
    "CacheBase.get_system.triton_key": "cache_keys",
    "compile_fx_inner": "lowering",
    "Scheduler.__init__": "lowering",
    "GraphLowering.codegen": "codegen",
    "Scheduler.codegen": "codegen",
    "compile_file": "compile",
    "async_compile.wait": "compile",
    "PyCodeCache.load_by_key_path": "load",
    "AOTAutogradCache.inductor_load": "load",
}
"""torch's timer keys (``dynamo_timed``) and the stage each one's own time (its children's left out) belongs to.
``GraphLowering.compile_to_module`` is left out on purpose: it is code generation and load together, which its
children ``GraphLowering.codegen`` and ``PyCodeCache.load_by_key_path`` tell apart."""

CACHE_COUNTERS = {
    "fx_graph": ("inductor", "fxgraph_cache_hit", "fxgraph_cache_miss"),
    "aot_autograd": ("aot_autograd", "autograd_cache_hit", "autograd_cache_miss"),
}
"""Per cache level of ``CACHE_LEVELS``: torch's counter group and its hit and miss counters."""


class _Timed(list[float]):
    """A timer key's list of durations that also notes, per entry, when it was appended and whether on the
    calling thread: ``dynamo_timed`` appends as its block ends, so the end time is the append's."""

    def __init__(self, kept: list[float], intervals: list[tuple[str, float, float]], key: str) -> None:
        super().__init__(kept)
        self._intervals = intervals
        self._key = key
        self._caller = threading.main_thread()

    def append(self, seconds: float) -> None:
        super().append(seconds)
        if threading.current_thread() is self._caller:
            ended = time.time_ns() / 1e9
            self._intervals.append((self._key, ended - seconds, ended))


@dataclass
class CompileClock:
    """Times the compile between ``start()`` and ``read(compile_s)`` by stage, and counts the caches' answers."""

    intervals: list[tuple[str, float, float]] = field(default_factory=list)
    counters_before: dict[str, tuple[int, int]] = field(default_factory=dict)
    counters_after: dict[str, tuple[int, int]] | None = None

    def start(self) -> CompileClock:
        """Watch the timers from now (after ``torch._dynamo.reset()``, which clears them)."""
        self.intervals.clear()
        metrics = dynamo_utils.compilation_time_metrics
        for key in STAGE_OF:
            metrics[key] = _Timed(metrics.get(key, []), self.intervals, key)
        self.counters_before = _cache_counts()
        return self

    def stop(self) -> None:
        """Stop at the end of the first call: a later compile (the CUDA-graph twin, the watch of why kernels stayed
        apart) is not this one. Torch's timers go on in plain lists."""
        metrics = dynamo_utils.compilation_time_metrics
        for key in STAGE_OF:
            if isinstance(metrics.get(key), _Timed):
                metrics[key] = list(metrics[key])
        self.counters_after = _cache_counts()

    def read(self, compile_s: float) -> CompileStages:
        """``compile_s`` by stage: each stage's own time from the intervals until ``stop()``, ``other`` the rest."""
        seconds = dict.fromkeys(COMPILE_STAGES, 0.0)
        for key, own in _own_times(self.intervals):
            seconds[STAGE_OF[key]] += own
        timed_s = sum(seconds.values())
        seconds["other"] = max(compile_s - timed_s, 0.0)
        now = self.counters_after or _cache_counts()
        hits = {level: now[level][0] - self.counters_before[level][0] for level in CACHE_LEVELS}
        misses = {level: now[level][1] - self.counters_before[level][1] for level in CACHE_LEVELS}
        return CompileStages(seconds=seconds, cache_hits=hits, cache_misses=misses, timed_s=timed_s)


def _own_times(intervals: list[tuple[str, float, float]]) -> list[tuple[str, float]]:
    """Each interval's time less that of the intervals directly inside it (the calling thread's blocks nest)."""
    ordered = sorted(intervals, key=lambda item: (item[1], -item[2]))
    own: list[tuple[str, float]] = []
    open_blocks: list[list[Any]] = []  # [key, start, end, time of its direct children]

    def close(block: list[Any]) -> None:
        own.append((block[0], max(block[2] - block[1] - block[3], 0.0)))
        if open_blocks:
            open_blocks[-1][3] += block[2] - block[1]

    for key, start, end in ordered:
        while open_blocks and open_blocks[-1][2] <= start:
            close(open_blocks.pop())
        open_blocks.append([key, start, min(end, open_blocks[-1][2]) if open_blocks else end, 0.0])
    while open_blocks:
        close(open_blocks.pop())
    return own


def _cache_counts() -> dict[str, tuple[int, int]]:
    counters = dynamo_utils.counters
    return {
        level: (int(counters[group][hit]), int(counters[group][miss]))
        for level, (group, hit, miss) in CACHE_COUNTERS.items()
    }
