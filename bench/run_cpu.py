"""CPU of one small run on the users' path, against a fork server's own start, both measured in this run.

Every run takes a fresh engine, warmed up while the run before it ran, forked from the front end's fork server
(the CLI's, the explorer's and the test suite's way). What one such run costs the machine (add+relu, untimed, the
Inductor cache warm): the engine's fork, its start-up, its warm-up compile, the run, its exit and its keeper. The
baseline is the server's start with one engine (torch, Inductor and the engine's code imported once): what every
run paid before engines were forked. Sessions of one run and of ``1 + N`` runs, interleaved twice; a run's CPU is
their difference over ``N``.

    .venv/bin/python bench/run_cpu.py [--runs N]
"""

from __future__ import annotations

import argparse
import resource
from typing import Any

import common  # the shared Inductor cache, as the other benchmarks use

from kernel_tui.transport import forked_engines
from kernel_tui.transport.client import EngineClient

RUNS = 8
SCENARIO = common.REPO / "scenarios" / "02_add_relu.py"
TARGET_RATIO = 0.2
"""A small run costs a fifth of a server's start at most: imports are paid once per server, and an engine pays its
warm-up compile and its run (0.85 CPU-s a run against about 4.2 for the start before the engine's own code moved
into the server, 0.63 after, on the two-core box)."""


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def session(runs: int) -> float:
    """CPU seconds of a front end's fork server and engines, every one reaped at the end: the server started with
    one engine (not warmed up: it was asked for at once), then ``runs`` runs, each in the engine the run before
    started (warmed up)."""
    before = _children_cpu()
    with EngineClient("cpu") as client:
        client.start()
        for number in range(runs):
            common.final_report(client, SCENARIO, timed=False, sweep=False, then_another=number < runs - 1)
    forked_engines._close_servers()
    return _children_cpu() - before


def rows(count: int = RUNS) -> list[dict[str, Any]]:
    session(1)  # the scenario's kernels and the warm-up's compiled into the cache before anything counts
    starts, runs = [], []
    for _ in range(2):
        one = session(1)
        starts.append(session(0))
        runs.append((session(1 + count) - one) / count)
    start, run = min(starts), min(runs)
    ratio = run / start
    return [
        {
            "name": "CPU of a small untimed run in a fresh, warmed engine, against a fork server's start",
            "value": f"{run:.2f} s a run against {start:.1f} s (runs {', '.join(f'{value:.2f}' for value in runs)})",
            "ratio": ratio,
            "target": f"ratio ≤ {TARGET_RATIO}",
            "met": ratio <= TARGET_RATIO,
            "cause": "an engine pays again what the server imported or hashed before it forked",
        }
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=RUNS)
    options = parser.parse_args()
    for row in rows(options.runs):
        print(common.row_line(row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
