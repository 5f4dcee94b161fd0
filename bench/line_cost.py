"""Line attribution's cost: the engine's byte-counting pass with each operator's lines found (forward stacks,
helpers' callers, backward nodes' forward stacks) against the same pass with none, alternated in one process.

That pass is the only part of a run the lines touch (the profiled and timed runs are the same code either way),
so its added time is also set against one whole run's engine time, measured in the same process right after:
lesson 21 (a training step: its backward is where the lines cost most) and lesson 24 (forward only).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from common import REPO

from kernel_tui.engine.counting.flops import eager_bytes_and_flops
from kernel_tui.engine.stages import training
from kernel_tui.engine.stages.loader import load_scenario
from kernel_tui.engine.stages.measure import measure_scenario

LESSONS = ("21_add_relu_backwards.py", "24_which_line.py")
SIZE = 2**16
ROUNDS = 15
TARGET = 0.02
"""The added time, as a share of a whole run's engine time: within a run's noise."""


def _pass_seconds(step: Callable[..., Any], args: tuple[Any, ...], source: str | None) -> float:
    started = time.perf_counter()
    eager_bytes_and_flops(step, args, source)
    return time.perf_counter() - started


def measure() -> dict[str, object]:
    figures = []
    worst_share = 0.0
    for name in LESSONS:
        path = REPO / "scenarios" / name
        scenario = load_scenario(path)
        step = training.measured_fn(scenario)
        args = scenario.make_inputs(SIZE, "cpu")
        step(*args)
        with_lines, without = [], []
        for _ in range(ROUNDS):
            with_lines.append(_pass_seconds(step, args, str(path)))
            without.append(_pass_seconds(step, args, None))
        added = statistics.median(with_lines) - statistics.median(without)
        started = time.perf_counter()
        measure_scenario(path, "cpu", size=SIZE, run_sweep=False)
        run_s = time.perf_counter() - started
        share = max(added, 0.0) / run_s
        worst_share = max(worst_share, share)
        on, off = statistics.median(with_lines), statistics.median(without)
        figures.append(
            f"{name}: pass {on * 1e3:.2f} ms with lines vs {off * 1e3:.2f} ms without (x{on / off:.2f}); "
            f"run {run_s:.1f} s, added {share:.3%}"
        )
    return {
        "name": "line attribution: added engine time per run (byte pass with lines vs without, same process)",
        "value": "; ".join(figures),
        "ratio": worst_share,
        "target": f"<= {TARGET:.0%} of a run",
        "met": worst_share <= TARGET,
    }


if __name__ == "__main__":
    print(measure())
