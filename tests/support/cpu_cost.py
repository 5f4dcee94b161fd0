"""Per-test CPU cost, on request: what each test's process spent, with the children it reaped, to rank by.

On a shared machine a test's wall time says as much about the neighbours as about the test, so the fast tier
is ranked by CPU (``docs/testing.md``). ``KERNEL_TUI_TEST_CPU=PREFIX`` makes ``conftest`` register
``CpuCost``; each xdist worker writes ``PREFIX.torch-<version>.<worker>.tsv`` (CPU seconds, wall seconds, test
id) at the end of its session, and ``python tests/support/cpu_cost.py PREFIX`` ranks what the workers wrote, one ranking
per torch: ``make test`` runs two sessions under one prefix (torch 2.14.1 and 2.13.0, side by side), and the
second used to overwrite the first's rows.
"""

from __future__ import annotations

import os
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Generator
from importlib import metadata
from pathlib import Path

import pytest

from kernel_tui.transport.proctree import descendants, stat_fields

SESSION = "(whole session)"
"""The row each worker adds for its own process over the session: imports and collection included."""


def cpu_seconds() -> float:
    """User and system time of this process, of the children it has reaped and of its live descendants (with
    what they reaped): a test's engines are forked by the worker's fork server and the session's engine lives on,
    so their CPU would otherwise show only when the session ends, against no test."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime + live_descendants_cpu(os.getpid())


def live_descendants_cpu(root: int) -> float:
    """CPU seconds of every live process below ``root`` and of the children each has reaped: a process counts
    here while it lives and in its parent's reaped time after, never in both."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in descendants(root):
        fields = stat_fields(pid)  # after the state: utime, stime, cutime, cstime are the 12th to the 15th
        if fields is not None:
            total += sum(int(value) for value in fields[11:15])
    return total / ticks


class CpuCost:
    """Measures each test's whole protocol (set-up, call, tear-down) and writes the rows when the session ends."""

    def __init__(self, prefix: str) -> None:
        if not Path(prefix).parent.is_dir():
            raise pytest.UsageError(f"KERNEL_TUI_TEST_CPU={prefix}: no folder {Path(prefix).parent} to write to")
        self.prefix = prefix
        self.rows: list[tuple[float, float, str]] = []

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None]:
        cpu, wall = cpu_seconds(), time.monotonic()
        yield
        self.rows.append((cpu_seconds() - cpu, time.monotonic() - wall, item.nodeid))

    def pytest_sessionfinish(self) -> None:
        own = resource.getrusage(resource.RUSAGE_SELF)
        rows = [*self.rows, (own.ru_utime + own.ru_stime, 0.0, SESSION)]
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        lines = (f"{cpu:.3f}\t{wall:.3f}\t{test}\n" for cpu, wall, test in rows)
        Path(f"{self.prefix}.{session_torch()}.{worker}.tsv").write_text("".join(lines), encoding="utf-8")


def session_torch() -> str:
    """The torch this session's engines run, read from its metadata (importing torch would cost seconds)."""
    try:
        return f"torch-{metadata.version('torch')}"
    except metadata.PackageNotFoundError:
        return "no-torch"


def torches(prefix: str) -> list[str]:
    """The torches whose sessions wrote rows under ``prefix``, in the order of their names."""
    names = Path(prefix).parent.glob(f"{Path(prefix).name}.torch-*.tsv")
    return sorted({path.name.removeprefix(f"{Path(prefix).name}.").rsplit(".", 2)[0] for path in names})


def read_rows(prefix: str, torch: str = "torch-*") -> list[tuple[float, float, str]]:
    """Every worker's rows for ``prefix``, of the sessions on ``torch`` (one of ``torches``)."""
    rows = []
    for path in sorted(Path(prefix).parent.glob(f"{Path(prefix).name}.{torch}.*.tsv")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            try:
                cpu, wall, test = line.split("\t", 2)
                rows.append((float(cpu), float(wall), test))
            except ValueError:
                raise ValueError(f"{path}:{number}: not CPU, wall and a test id, tab-separated") from None
    return rows


def ranking(rows: list[tuple[float, float, str]], top: int = 30) -> str:
    """The costliest tests and files by CPU, and the totals."""
    tests = sorted((row for row in rows if row[2] != SESSION), reverse=True)
    by_file: dict[str, float] = defaultdict(float)
    for cpu, _, test in tests:
        by_file[test.split("::")[0]] += cpu
    sessions = sum(cpu for cpu, _, test in rows if test == SESSION)
    lines = [f"{len(tests)} tests, {sum(row[0] for row in tests):.1f} CPU-s in tests, {sessions:.1f} in workers"]
    lines += ["", "CPU-s   wall-s  test"] + [f"{cpu:6.2f}  {wall:6.2f}  {test}" for cpu, wall, test in tests[:top]]
    costliest = sorted(by_file.items(), key=lambda item: -item[1])[:top]
    lines += ["", "CPU-s   file"] + [f"{cpu:6.2f}  {name}" for name, cpu in costliest]
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python tests/support/cpu_cost.py PREFIX  (as given in KERNEL_TUI_TEST_CPU)")
    try:
        found = torches(sys.argv[1])
        if not found:
            sys.exit(f"cpu_cost: no rows under {sys.argv[1]} (KERNEL_TUI_TEST_CPU={sys.argv[1]} writes them)")
        print("\n\n".join(f"{torch}\n\n{ranking(read_rows(sys.argv[1], torch))}" for torch in found))
    except ValueError as error:
        sys.exit(f"cpu_cost: {error}")
