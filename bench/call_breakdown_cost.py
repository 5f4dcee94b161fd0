"""The call breakdown's cost: splitting a profiled step into its parts and timeline, against reading the same
events' launches (``events.cuda_launches``, which every profile already pays), on each recorded GPU trace.

Both run on the events ``tests/support/cuda_replay.py`` rebuilds from the trace, alternated in one process, median of
``ROUNDS``. The largest trace (vLLM's compiled step on a B200, about 7,000 events) sets the worst ratio.
"""

from __future__ import annotations

import functools
import statistics
import sys
import time
from collections.abc import Callable

from common import REPO

sys.path.insert(0, str(REPO / "tests"))

from support.cuda_replay import replay, trace_paths

from kernel_tui.engine.counting import events as ev
from kernel_tui.engine.counting.call_timeline import call_breakdown

ROUNDS = 5
TARGET = 3.0
"""The breakdown may cost up to three times the launch reading it sits beside: tens of milliseconds at worst,
once per mode, against seconds of compile and timing."""


def _seconds(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def measure() -> dict[str, object]:
    worst, figures = 0.0, []
    for path in trace_paths():
        events = replay(path)
        launches = ev.cuda_launches(events)
        split, read = [], []
        for _ in range(ROUNDS):
            split.append(_seconds(functools.partial(call_breakdown, events, launches, "cuda")))
            read.append(_seconds(functools.partial(ev.cuda_launches, events)))
        ratio = statistics.median(split) / max(statistics.median(read), 1e-9)
        worst = max(worst, ratio)
        figures.append(f"{path.name.split('.')[0]} {statistics.median(split) * 1e3:.1f} ms ({ratio:.1f}×)")
    return {
        "name": "call breakdown against reading the launches (recorded GPU traces)",
        "value": "; ".join(figures),
        "ratio": round(worst, 2),
        "target": f"≤ {TARGET}×",
        "met": worst <= TARGET,
    }


if __name__ == "__main__":
    print(measure())
