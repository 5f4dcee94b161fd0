"""What guarding against a scenario's escapes costs a run of several files (issue 58), against a baseline revision,
in one run: each engine forked below a keeper of its own (a child subreaper that ends what the engine left), the
request stream a socket pair, the spare continued when it is taken.

Both sides run the same ``kernel-tui run`` of ``FILES`` (untimed, no sweep, the Inductor cache warm), alternated,
``--rounds`` times; the baseline is the tree of ``--baseline`` (default: the commit before the guard), unpacked
into a temporary folder and put first on ``PYTHONPATH``. Wall time of the whole run, the front end's start
included: what the user waits.

    .venv/bin/python bench/escape_guard_cost.py [--baseline REV] [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tarfile
import tempfile
import time
from pathlib import Path

import common  # the shared Inductor cache, as the other benchmarks use

FILES = ["scenarios/02_add_relu.py", "scenarios/03_elementwise_chain.py", "scenarios/02_add_relu.py"]
BASELINE = "a3969ad"


def unpacked(revision: str, into: Path) -> Path:
    archive = subprocess.run(["git", "archive", revision], cwd=common.REPO, capture_output=True, check=True).stdout
    with tempfile.TemporaryFile() as held:
        held.write(archive)
        held.seek(0)
        with tarfile.open(fileobj=held) as tar:
            tar.extractall(into, filter="data")
    return into


def one_run(tree: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    env.pop("KERNEL_TUI_FORK_SERVER_AT", None)
    files = [str(common.REPO / name) for name in FILES]
    started = time.monotonic()
    done = common.cli_support.run_json(*files, "--no-time", "--no-sweep", env=env, cwd=tree, timeout=None)
    took = time.monotonic() - started
    if done.returncode != 0:
        raise RuntimeError(f"{tree}: kernel-tui run ended {done.returncode}: {done.stderr[-2000:]}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=BASELINE)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kernel-tui-baseline-") as folder:
        baseline = unpacked(options.baseline, Path(folder))
        times: dict[str, list[float]] = {"baseline": [], "guarded": []}
        one_run(common.REPO)  # the Inductor cache warm for both
        for _ in range(options.rounds):
            times["baseline"].append(one_run(baseline))
            times["guarded"].append(one_run(common.REPO))
    for side, taken in times.items():
        each = ", ".join(f"{t:.2f}" for t in taken)
        print(f"{side:9} {len(FILES)} files: median {statistics.median(taken):6.2f} s  ({each})")
    ratio = statistics.median(times["guarded"]) / statistics.median(times["baseline"])
    print(f"guarded / baseline: {ratio:.2f}")


if __name__ == "__main__":
    main()
