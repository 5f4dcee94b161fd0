"""What the warm-up still saves a fresh engine, with Inductor's cache warm (every run after a machine's first):
an engine forked from the fork server has torch and Inductor imported already, and the tiny compile pays the
rest of a first compile (the C++ toolchain and ISA probes, Inductor's lazy imports, the compile workers' start).

Each round starts two engines one after the other, interleaved, and runs lesson 02 untimed in each:
- warmed: the warm-up ended before the run was asked for (the learner read the lesson, or the spare started
  while the run before it measured), so the run's own wait is from its request to its report;
- cold: no warm-up, the run asked for at once, the same span.
The ratio (warmed / cold run) is what a learner's answer takes with the warm-up against without it; the
warm-up's own seconds are what it costs on the side. Target: at most 0.8 (the warm-up must save something
worth its cost, or it goes).

    .venv/bin/python bench/warmup_saving.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

from common import REPO, final_report

from kernel_tui.transport.client import EngineClient

LESSON = REPO / "scenarios" / "02_add_relu.py"


def one_run_s(*, warm_up: bool) -> tuple[float, float | None]:
    """(request to report, the warm-up's own seconds or None)."""
    with EngineClient("cpu", warm_up=warm_up, stderr_sink=lambda line: None) as client:
        client.start(timeout=600)
        while warm_up and client.warmup_result is None:  # set by the client's reader thread
            time.sleep(0.05)
        asked = time.perf_counter()
        final_report(client, LESSON, sweep=False, timed=False, timeout=600)
        warmup = client.warmup_result
        return time.perf_counter() - asked, warmup.seconds if warmup else None


def rows(rounds: int) -> list[dict[str, object]]:
    one_run_s(warm_up=True)  # after this the cache holds lesson 02 and the tiny function
    warmed, cold, warmups = [], [], []
    for _ in range(rounds):
        seconds, warmup_s = one_run_s(warm_up=True)
        warmed.append(seconds)
        warmups.append(warmup_s or 0.0)
        cold.append(one_run_s(warm_up=False)[0])
    ratio = statistics.median(warmed) / statistics.median(cold)
    return [
        {
            "name": "a fresh engine's first run, warm cache: warmed up first vs not (lesson 02, untimed)",
            "value": f"{statistics.median(warmed):.2f} s vs {statistics.median(cold):.2f} s (medians of {rounds}; "
            f"warmed {min(warmed):.2f}-{max(warmed):.2f}, not {min(cold):.2f}-{max(cold):.2f}; the warm-up itself "
            f"{statistics.median(warmups):.2f} s)",
            "ratio": ratio,
            "target": "<= 0.8",
            "met": ratio <= 0.8,
        }
    ]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    for row in rows(options.rounds):
        verdict = "met" if row["met"] else "MISSED"
        print(f"{row['name']}: {row['value']}, ratio {row['ratio']:.2f} (target {row['target']}): {verdict}")
