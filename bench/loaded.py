"""Honest on a busy machine (issue 24): lessons 01, 02 and 16 with their sweeps, and the engine tests, while busy
loops keep every core occupied; records in bench/RESULTS.md what a learner must never see however busy the box.

- claims failed: a claim measured and not met (a claim the sweep's budget cut short reads "not measured", ``ok``
  null, and is counted apart);
- unmarked contradictions: a mode whose kernel times add up to more than its call's time, with no ``noisy`` note;
- speedups outside their range: a speedup (compiled or a variant) not inside its own range;
- how busy the machine was (the report's ``machine_load``), and which speedups read "too noisy to tell".

Run: ``.venv/bin/python bench/loaded.py`` (``--loops-per-core 2``, ``--tests "tests/engine/test_engine.py"``).
``--held-out`` runs the verdicts' held-out scenarios (``tests/data/verdicts/``: a tiny call, a graph break, a
recompiling shape, a biased matmul, a memory-bound chain, a large fused elementwise) instead of the lessons, with no
engine tests, and records them under a heading of their own (issue 57: no unmarked contradiction in a hold-out set).
A contradiction counts as marked when the mode says it is noisy or the report lists it among its ``contradictions``
(the "cannot both be true" lines); this file's own check of the kernels against the call, not the product's, finds it.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import common
from common import REPO

LESSONS = ("01_one_add.py", "02_add_relu.py", "16_static_shapes.py")
RESULTS = REPO / "bench" / "RESULTS.md"
HEADING = "## Under load: lessons 01, 02, 16 and the engine tests beside busy loops (`bench/loaded.py`)"
HELD_OUT = tuple(sorted((REPO / "tests" / "data" / "verdicts").glob("*.py")))
HELD_OUT_HEADING = "## Under load: the verdicts' held-out scenarios beside busy loops (`bench/loaded.py --held-out`)"
BUSY_LOOP = "import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end:\n    pass\n"


@contextlib.contextmanager
def busy_loops(count: int, seconds: float) -> Iterator[int]:
    """``count`` processes that each keep a core busy, for at most ``seconds`` (they end on their own), ended when
    the block does; it starts once they have taken the cores. Yields ``count``."""
    code = BUSY_LOOP.format(seconds=seconds)
    loops = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(count)]
    try:
        time.sleep(3)  # let the loops take the cores before anything is measured
        yield count
    finally:
        for loop in loops:
            loop.kill()
        for loop in loops:
            loop.wait()


def scenario_reports(paths: list[str]) -> tuple[list[dict[str, Any]], float, int]:
    started = time.monotonic()
    done = common.cli_support.run_json("--device", "cpu", *paths, cwd=REPO, timeout=None)
    return done.reports, time.monotonic() - started, done.returncode


def contradictions(report: dict[str, Any]) -> list[str]:
    """Kernel times above their call's time with no ``noisy`` note on the mode."""
    found = []
    for mode in ("eager", "compiled"):
        data = report.get(mode)
        if not data or data.get("time_us") is None:
            continue
        kernels_us = sum(kernel.get("time_us") or 0.0 for kernel in data["kernels"])
        marked = any(note.startswith("noisy") for note in data.get("notes", ())) or any(
            line.startswith(f"{mode}:") for line in report.get("contradictions") or ()
        )
        if kernels_us > data["time_us"] and not marked:
            found.append(f"{mode}: kernels {kernels_us:.0f} µs in a {data['time_us']:.0f} µs call")
    return found


def speedups_outside(report: dict[str, Any]) -> list[str]:
    checks = [("compiled", report.get("speedup"), report.get("speedup_range"))]
    checks += [(name, v.get("speedup"), v.get("speedup_range")) for name, v in (report.get("variants") or {}).items()]
    return [
        f"{name}: {speedup:.3g} outside [{spread[0]:.3g}, {spread[1]:.3g}]"
        for name, speedup, spread in checks
        if speedup is not None and spread is not None and not spread[0] <= speedup <= spread[1]
    ]


def engine_tests(selection: str) -> tuple[str, float, int]:
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *selection.split()],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    last = (result.stdout.strip().splitlines() or ["(no output)"])[-1]
    return last, time.monotonic() - started, result.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loops-per-core", type=int, default=2)
    parser.add_argument("--tests", default="tests/engine/test_engine.py", help="pytest selection run under load")
    parser.add_argument("--no-record", action="store_true", help="print only; leave bench/RESULTS.md alone")
    parser.add_argument("--held-out", action="store_true", help="the verdicts' held-out scenarios, no engine tests")
    options = parser.parse_args()
    if options.held_out:
        names = tuple(path.name for path in HELD_OUT)
        paths = [str(path) for path in HELD_OUT]
    else:
        names = LESSONS
        paths = [str(REPO / "scenarios" / name) for name in LESSONS]
    cores = len(os.sched_getaffinity(0))
    load_before = os.getloadavg()[0]
    with busy_loops(options.loops_per_core * cores, seconds=1800) as loop_count:
        reports, lessons_s, lessons_code = scenario_reports(paths)
        summary, tests_s, tests_code = ("not run", 0.0, 0) if options.held_out else engine_tests(options.tests)
        load_during = os.getloadavg()[0]
    failed = [
        f"{Path(r['scenario']).name} {key}" for r in reports for key, c in r["expect"].items() if c["ok"] is False
    ]
    unmeasured = [
        f"{Path(r['scenario']).name} {key}: {c['reason']}"
        for r in reports
        for key, c in r["expect"].items()
        if c["ok"] is None
    ]
    unmarked = [f"{Path(r['scenario']).name} {item}" for r in reports for item in contradictions(r)]
    outside = [f"{Path(r['scenario']).name} {item}" for r in reports for item in speedups_outside(r)]
    too_noisy = [Path(r["scenario"]).name for r in reports if r.get("speedup_too_noisy")]
    errors = [f"{Path(r['scenario']).name}: {r['error']['message']}" for r in reports if r.get("error")]
    loads = [r.get("machine_load") or {} for r in reports]
    rows = [
        ("scenarios", ", ".join(names) + f" with their sweeps: {lessons_s:.0f} s, `run` exit {lessons_code}"),
        ("claims failed", f"{len(failed)} {failed or ''}".strip()),
        ("claims not measured (budget)", f"{len(unmeasured)} {unmeasured or ''}".strip()),
        ("unmarked contradictions", f"{len(unmarked)} {unmarked or ''}".strip()),
        ("speedups outside their range", f"{len(outside)} {outside or ''}".strip()),
        ("speedups 'too noisy to tell'", f"{len(too_noisy)} {too_noisy or ''}".strip()),
        ("errors", f"{len(errors)} {errors or ''}".strip()),
        (
            "machine_load per scenario",
            "; ".join(
                f"load {m.get('load_avg', 0):.1f} on {m.get('cores')} cores, steal {m.get('steal_pct') or 0:.0f}%, "
                f"disagreement {m.get('disagreement') or 0:.3g}×"
                for m in loads
            ),
        ),
        (
            "busy loops",
            f"{loop_count} ({options.loops_per_core} per core, {cores} cores); load average {load_before:.1f} "
            f"before, {load_during:.1f} at the end",
        ),
    ]
    if not options.held_out:
        rows.insert(-1, (f"engine tests (`{options.tests}`)", f"{summary} in {tests_s:.0f} s, exit {tests_code}"))
    for name, value in rows:
        print(f"{name}: {value}")
    if not options.no_record:
        record(rows, HELD_OUT_HEADING if options.held_out else HEADING, "--held-out" if options.held_out else "")
    ok = not failed and not unmarked and not outside and not errors and lessons_code == 0 and tests_code == 0
    return 0 if ok else 1


def record(rows: list[tuple[str, str]], heading: str, flags: str) -> None:
    today = datetime.date.today().isoformat()
    command = f".venv/bin/python bench/loaded.py {flags}".strip()
    table = [
        f"Measured {today}, command `{command}`.",
        "",
        "| figure | measured |",
        "| --- | --- |",
    ]
    table += [f"| {name} | {value.replace('|', '/')} |" for name, value in rows]
    section = heading + "\n\n" + "\n".join(table) + "\n"
    text = RESULTS.read_text()
    if heading in text:
        start = text.index(heading)
        following = text.find("\n## ", start + len(heading))
        text = text[:start] + section + (text[following:] if following != -1 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    RESULTS.write_text(text)


if __name__ == "__main__":
    sys.exit(main())
