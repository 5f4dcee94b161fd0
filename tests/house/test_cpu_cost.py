"""The per-test CPU ranking (``tests/support/cpu_cost.py``) reads every worker's rows and ranks tests and files
by CPU."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.cpu_cost import (
    SESSION,
    CpuCost,
    cpu_seconds,
    live_descendants_cpu,
    ranking,
    read_rows,
    session_torch,
    torches,
)


def test_each_workers_rows_are_read_and_ranked_by_cpu_not_wall(tmp_path: Path) -> None:
    prefix = str(tmp_path / "cost")
    (tmp_path / "cost.torch-2.14.1.gw0.tsv").write_text(
        f"0.500\t9.000\ta.py::slow_wall\n2.000\t3.000\tb.py::t\n4.0\t0\t{SESSION}\n"
    )
    (tmp_path / "cost.torch-2.14.1.gw1.tsv").write_text(f"1.500\t2.000\tb.py::u\n3.0\t0\t{SESSION}\n")
    (tmp_path / "other.torch-2.14.1.gw0.tsv").write_text("99.0\t0\tc.py::not_this_run\n")
    rows = read_rows(prefix, "torch-2.14.1")
    assert len(rows) == 5
    text = ranking(rows).splitlines()
    assert text[0] == "3 tests, 4.0 CPU-s in tests, 7.0 in workers"
    tests = text[text.index("CPU-s   wall-s  test") + 1 :][:3]
    assert [line.split()[-1] for line in tests] == ["b.py::t", "b.py::u", "a.py::slow_wall"]
    files = text[text.index("CPU-s   file") + 1 :]
    assert [line.split() for line in files] == [["3.50", "b.py"], ["0.50", "a.py"]]


def test_sessions_on_two_torches_under_one_prefix_keep_their_own_rows(tmp_path: Path) -> None:
    """``make test`` runs the suite on torch 2.14.1 and the lessons on 2.13.0, both under one prefix."""
    prefix = str(tmp_path / "cost")
    (tmp_path / "cost.torch-2.14.1.gw0.tsv").write_text("2.0\t3.0\ta.py::t\n")
    (tmp_path / "cost.torch-2.13.0+cpu.gw0.tsv").write_text("5.0\t6.0\ta.py::t\n")
    assert torches(prefix) == ["torch-2.13.0+cpu", "torch-2.14.1"]
    assert read_rows(prefix, "torch-2.13.0+cpu") == [(5.0, 6.0, "a.py::t")]
    assert read_rows(prefix, "torch-2.14.1") == [(2.0, 3.0, "a.py::t")]


def test_a_session_writes_one_row_a_test_and_its_own_total(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw7")
    cost = CpuCost(str(tmp_path / "run"))
    before = cpu_seconds()
    protocol = cost.pytest_runtest_protocol(request.node)
    next(protocol)
    sum(range(2_000_000))  # some CPU for the row to show
    with pytest.raises(StopIteration):
        next(protocol)
    cost.pytest_sessionfinish()
    assert torches(str(tmp_path / "run")) == [session_torch()]
    (measured, session) = read_rows(str(tmp_path / "run"))
    assert measured[2] == request.node.nodeid and 0 < measured[0] <= cpu_seconds() - before
    assert session[2] == SESSION and session[0] >= measured[0]


def test_a_prefix_in_no_folder_or_a_damaged_row_is_named_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(pytest.UsageError, match="no folder .*/missing to write to"):
        CpuCost(str(tmp_path / "missing" / "cost"))
    (tmp_path / "cost.torch-2.14.1.gw0.tsv").write_text("0.5\t1.0\ta.py::t\nnot a row\n")
    with pytest.raises(ValueError, match=r"cost.torch-2.14.1.gw0.tsv:2: not CPU, wall and a test id"):
        read_rows(str(tmp_path / "cost"))


def test_a_live_grandchild_counts_while_it_runs_and_once_after_it_is_reaped() -> None:
    """An engine forked by the worker's fork server is a grandchild the worker never reaps: its CPU counts while
    it lives (read from ``/proc``), and after its parent reaps it, in that parent's reaped time, not twice.
    Measured below a process of the test's own (``holder``): the worker's fork server spends CPU of its own."""
    spin = "import time\nend = time.process_time() + 0.5\nwhile time.process_time() < end: pass\ntime.sleep(60)"
    reaper = (
        "import subprocess, sys\n"
        f"child = subprocess.Popen([sys.executable, '-c', {spin!r}])\n"
        "sys.stdin.readline(); child.kill(); child.wait(); print('reaped', flush=True); sys.stdin.readline()"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", f"import subprocess, sys; subprocess.run([sys.executable, '-c', {reaper!r}])"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdin is not None and holder.stdout is not None
    try:
        started = time.monotonic()
        alive = 0.0
        while time.monotonic() - started < 60:  # the spin, with the interpreter's start, then it sleeps
            time.sleep(0.5)
            if (now := live_descendants_cpu(holder.pid)) == alive and alive >= 0.5:
                break
            alive = now
        assert alive >= 0.5, "the grandchild's spin counts while it runs"
        holder.stdin.write("kill\n")
        holder.stdin.flush()
        assert holder.stdout.readline() == "reaped\n"
        assert live_descendants_cpu(holder.pid) == pytest.approx(alive, abs=0.05), "in the reaper's time, once"
    finally:
        holder.stdin.close()  # the reaper reads the end of its input, ends its child and itself, then the holder
        holder.wait(timeout=60)
