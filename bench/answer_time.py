"""Answer time: ``kernel-tui run`` on add+relu (no sweep, warm compile cache) against the seed reader's script.

Both are run as fresh processes, alternately, after one warm-up run each fills the Inductor cache; the
figure is the ratio of median wall times. Target: at most 1.5.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

from common import REPO

HERE = Path(__file__).resolve().parent
TARGET = 1.5
REPEATS = 5


def _wall_time(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO)
    return time.perf_counter() - started


def measure(repeats: int = REPEATS) -> dict[str, object]:
    ours = [sys.executable, "-m", "kernel_tui", "run", str(REPO / "tests" / "data" / "add_relu.py"), "--no-sweep"]
    baseline = [sys.executable, str(HERE / "seed_reader.py")]
    for command in (ours, baseline):
        _wall_time(command)  # fills the compile cache
    ours_s, baseline_s = [], []
    for _ in range(repeats):
        ours_s.append(_wall_time(ours))
        baseline_s.append(_wall_time(baseline))
    ratio = statistics.median(ours_s) / statistics.median(baseline_s)
    return {
        "name": "answer time: kernel-tui run add+relu --no-sweep vs the seed reader's profile script",
        "value": f"{statistics.median(ours_s):.2f} s vs {statistics.median(baseline_s):.2f} s",
        "ratio": ratio,
        "target": f"<= {TARGET}",
        "met": ratio <= TARGET,
    }


if __name__ == "__main__":
    result = measure()
    print(
        f"{result['name']}: {result['value']}, ratio {result['ratio']:.2f} (target {result['target']}): "
        f"{'met' if result['met'] else 'MISSED'}"
    )
