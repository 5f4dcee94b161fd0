"""Engine starts forked from the fork server (torch imported once) against exec'd ones, in one run: the CPU
time each costs the machine, and the time from asking to the engine's hello.

Every run takes a fresh engine (issue 32), so a session of N runs pays N starts; on a shared two-core box their
CPU is what the other users and the run itself lose. The forked side's CPU includes the server's own start
(its one import of torch, and of Inductor with the hashes its cache keys need), shared by its N engines. Exec'd
first, then forked, one engine at a time. The third row runs a small scenario (add+relu, untimed, the Inductor
cache warm) in each engine: what a first compile still paid in every engine shows there, not in a start.

    .venv/bin/python bench/engine_start.py [--starts N]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import time
from collections.abc import Callable
from typing import Any

import common  # the shared Inductor cache, as the other benchmarks use

from kernel_tui.transport import forked_engines
from kernel_tui.transport.client import EngineClient

STARTS = 6
SCENARIO = common.REPO / "scenarios" / "02_add_relu.py"
TARGET_RATIO = 0.6
"""Forked engines cost well under what exec'd ones do: torch's import is most of a start, and imports were most
of a small run's CPU (here each half of the runs pays a server start of its own: torch, Inductor and the hashes,
about as much as an exec'd run)."""


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def engines_cpu(count: int, forked: bool, use: Callable[[EngineClient], object]) -> float:
    """CPU seconds of ``count`` engines, each made, used and ended before the next, forked or exec'd; the forked
    side's server is started here and closed (reaped) at the end, so that its CPU and its engines' count."""
    os.environ["KERNEL_TUI_FORK_SERVER"] = "1" if forked else "0"
    before = _children_cpu()
    for _ in range(count):
        with EngineClient("cpu") as client:
            use(client)
    forked_engines._close_servers()
    return _children_cpu() - before


def starts(count: int, forked: bool) -> tuple[float, list[float]]:
    """CPU seconds of ``count`` engine starts, and each one's time to hello."""
    hellos: list[float] = []

    def start(client: EngineClient) -> None:
        asked = time.perf_counter()
        client.start()
        hellos.append(time.perf_counter() - asked)

    return engines_cpu(count, forked, start), hellos


def runs(count: int, forked: bool) -> float:
    """CPU seconds of ``count`` untimed runs of ``SCENARIO``, each in an engine of its own."""
    return engines_cpu(count, forked, lambda client: common.final_report(client, SCENARIO, timed=False, sweep=False))


def rows(count: int = STARTS) -> list[dict[str, Any]]:
    execd_cpu, execd_hellos = starts(count, forked=False)
    forked_cpu, forked_hellos = starts(count, forked=True)
    runs(1, forked=False)  # the scenario's kernels compiled into the cache before either side counts
    execd_runs_cpu = forked_runs_cpu = 0.0
    for half in (count // 2, count - count // 2):  # interleaved in halves; each forked half starts its server
        execd_runs_cpu += runs(half, forked=False)
        forked_runs_cpu += runs(half, forked=True)
    runs_ratio = forked_runs_cpu / execd_runs_cpu
    cpu_ratio = forked_cpu / execd_cpu
    hello_ratio = statistics.median(forked_hellos) / statistics.median(execd_hellos)
    return [
        {
            "name": f"CPU of {count} engine starts: forked (server included) against exec'd",
            "value": f"{forked_cpu:.1f} s against {execd_cpu:.1f} s",
            "ratio": cpu_ratio,
            "target": f"ratio ≤ {TARGET_RATIO}",
            "met": cpu_ratio <= TARGET_RATIO,
            "cause": "each exec'd engine imports torch, dynamo and Inductor again",
        },
        {
            "name": "median time to an engine's hello: forked against exec'd",
            "value": f"{statistics.median(forked_hellos):.2f} s against {statistics.median(execd_hellos):.2f} s "
            "(the first forked start waits for the server's import)",
            "ratio": hello_ratio,
            "target": f"ratio ≤ {TARGET_RATIO}",
            "met": hello_ratio <= TARGET_RATIO,
            "cause": "a fork is milliseconds; the hello then waits for the engine's own start-up only",
        },
        {
            "name": f"CPU of {count} runs of add+relu, an engine each: forked (server included) against exec'd",
            "value": f"{forked_runs_cpu:.1f} s against {execd_runs_cpu:.1f} s",
            "ratio": runs_ratio,
            "target": f"ratio ≤ {TARGET_RATIO}",
            "met": runs_ratio <= TARGET_RATIO,
            "cause": "an engine's first compile imports Inductor and hashes torch's and Triton's sources, "
            "which forked engines inherit from the server",
        },
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--starts", type=int, default=STARTS)
    options = parser.parse_args()
    for row in rows(options.starts):
        print(common.row_line(row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
