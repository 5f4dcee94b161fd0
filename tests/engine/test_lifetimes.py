"""Nothing outlives kernel-tui: however the front end ends, its engine and everything the engine started end
too, and no process a scenario leaves behind can keep the front end waiting."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import measure, within
from support.locations import REPO
from support.processes import is_running, wait_for
from support.terminal_support import open_terminal, start_in_terminal

from kernel_tui.transport import proctree
from kernel_tui.transport.client import EngineClient
from kernel_tui.transport.protocol import Done

pytestmark = [pytest.mark.engine, pytest.mark.usefixtures("own_fork_servers")]  # lifetimes as a user's run has them

ADD_RELU = REPO / "tests" / "data" / "add_relu.py"


def busy_scenario(folder: Path, pids: Path) -> Path:
    """A scenario whose fn starts two sleepers, one in a session of its own, then sleeps itself."""
    path = folder / "busy.py"
    path.write_text(
        textwrap.dedent(f"""
        import os, subprocess, sys, time
        import torch
        SIZE = 16
        def fn(a):
            sleep = [sys.executable, "-c", "import time; time.sleep(600)"]
            same = subprocess.Popen(sleep)
            own = subprocess.Popen(sleep, start_new_session=True)
            with open({str(pids)!r}, "w") as out:
                out.write(f"{{os.getpid()}} {{same.pid}} {{own.pid}}")
            time.sleep(600)
        def inputs(size, device):
            return (torch.ones(size),)
    """)
    )
    return path


STARTED: list[subprocess.Popen[Any]] = []


@pytest.fixture(autouse=True)
def _no_front_end_outlives_its_test() -> Iterator[None]:
    """A failing test must not leave its front end, engine and sleepers behind for the rest of the suite."""
    yield
    while STARTED:
        front_end = STARTED.pop()
        if front_end.poll() is None:
            proctree.end_tree(front_end.pid)
            front_end.wait(5)


def _default_sigint() -> None:
    # Started in the background (``make test &``, some CI runners) a shell ignores SIGINT, and a Python started
    # with SIGINT ignored keeps ignoring it, as a background job should: the front end here is a foreground one.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_front_end(args: list[str], **options: Any) -> subprocess.Popen[str]:
    front_end = subprocess.Popen(
        [sys.executable, "-m", "kernel_tui", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_default_sigint,
        **options,
    )
    STARTED.append(front_end)
    return front_end


def busy_pids(pids: Path, front_end: subprocess.Popen[str]) -> list[int]:
    assert wait_for(
        lambda: pids.exists() and len(pids.read_text().split()) == 3 or front_end.poll() is not None, 180
    ), "the scenario never got busy"
    assert front_end.stderr is not None
    assert front_end.poll() is None, front_end.stderr.read()
    return [int(pid) for pid in pids.read_text().split()]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=lambda sig: sig.name)
def test_a_signal_to_run_ends_its_engine_and_everything_the_scenario_started(
    tmp_path: Path, sig: signal.Signals
) -> None:
    pids = tmp_path / "pids"
    front_end = start_front_end(["run", "--device", "cpu", "--no-sweep", str(busy_scenario(tmp_path, pids))])
    engine_and_children = busy_pids(pids, front_end)
    started = time.monotonic()
    front_end.send_signal(sig)
    _, stderr = front_end.communicate(timeout=within(10))
    assert front_end.returncode == 128 + sig
    assert time.monotonic() - started < within(5)
    assert "Traceback" not in stderr
    assert stderr.strip().splitlines()[-1] == (
        "kernel-tui: interrupted" if sig == signal.SIGINT else f"kernel-tui: stopped by {sig.name}"
    )
    assert wait_for(lambda: not any(is_running(pid) for pid in engine_and_children), 2), "all gone"


ENGINES = pytest.mark.parametrize("fork_server", ["1", "0"], ids=["forked", "execd"])
"""Engines forked from the fork server, and engines exec'd below a keeper of their own (``transport.keeper``)."""


@ENGINES
def test_a_killed_front_end_takes_its_busy_engine_along(tmp_path: Path, fork_server: str) -> None:
    pids = tmp_path / "pids"
    front_end = start_front_end(
        ["run", "--device", "cpu", "--no-sweep", str(busy_scenario(tmp_path, pids))],
        env={**os.environ, "KERNEL_TUI_FORK_SERVER": fork_server},
    )
    engine_and_children = busy_pids(pids, front_end)
    started = time.monotonic()
    front_end.kill()
    front_end.wait(10)
    assert wait_for(lambda: not any(is_running(pid) for pid in engine_and_children), 3), "orphans left"
    print(f"engine and its children gone {time.monotonic() - started:.2f} s after SIGKILL of the front end")


def test_a_front_end_killed_while_its_fork_server_imports_torch_leaves_no_server(tmp_path: Path) -> None:
    """The server reads nothing from its front end while it imports torch (15-20 s on a busy machine): killed
    then, ``run`` left it importing on, and ending only after."""
    front_end = start_front_end(["run", "--device", "cpu", "--no-sweep", str(ADD_RELU)])

    def servers() -> list[int]:
        return [
            pid
            for pid in proctree.children(front_end.pid)
            if "kernel_tui.engine.fork_server" in proctree.command_line(pid)
        ]

    assert wait_for(lambda: bool(servers()), 30), "no fork server started"
    (server,) = servers()
    assert "torch" not in Path(f"/proc/{server}/maps").read_text(), "the server had imported torch already"
    front_end.kill()
    front_end.wait(10)
    killed = time.monotonic()
    assert wait_for(lambda: not is_running(server), 2), "the fork server outlived its front end"
    print(f"fork server gone {time.monotonic() - killed:.2f} s after SIGKILL of the front end")


@ENGINES
def test_an_engine_outlives_the_thread_that_started_it(
    tmp_path: Path, fork_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Linux sends the parent-death signal when the starting *thread* ends: that must not end the engine (nor its
    keeper, which an exec'd engine's starting thread started). The scenario prints the pid of the engine it runs in,
    which must be the one that thread started."""
    monkeypatch.setenv("KERNEL_TUI_FORK_SERVER", fork_server)
    says_its_engine = tmp_path / "says_its_engine.py"
    says_its_engine.write_text(
        "import os\nimport torch\nprint('engine pid', os.getpid())\n"
        "def fn(a):\n    return a + 1\ndef inputs(size, device):\n    return (torch.ones(size),)\n"
    )
    said: list[str] = []
    client = EngineClient("cpu", stderr_sink=said.append)
    try:
        starter = threading.Thread(target=client.start)
        starter.start()
        starter.join(180)
        assert client.hello is not None
        pid = client.hello.pid
        time.sleep(1.0)
        assert is_running(pid)
        assert measure(client, says_its_engine, then_another=False).error is None
        assert f"engine pid {pid}" in [line.strip() for line in said], said
    finally:
        client.close()


def test_a_stranger_holding_the_engines_pipes_cannot_keep_run_waiting(tmp_path: Path) -> None:
    pid_file = tmp_path / "stranger.pid"
    stranger = tmp_path / "starts_a_stranger.py"
    stranger.write_text(
        textwrap.dedent(f"""
        import subprocess, sys
        import torch
        SIZE = 16
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
        open({str(pid_file)!r}, "w").write(str(child.pid))
        def fn(a):
            return a + 1
        def inputs(size, device):
            return (torch.ones(size),)
    """)
    )
    started = time.monotonic()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "kernel_tui",
            "run",
            "--device",
            "cpu",
            "--no-sweep",
            "--json",
            str(stranger),
            str(ADD_RELU),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert len(result.stdout.splitlines()) == 2
    assert time.monotonic() - started < within(120)
    assert wait_for(lambda: not is_running(int(pid_file.read_text())), 3), "the stranger outlived kernel-tui"


def test_closing_an_engine_is_bounded_whatever_a_stranger_holds(tmp_path: Path) -> None:
    stranger = tmp_path / "stranger.py"
    stranger.write_text(
        "import subprocess, sys\nimport torch\nSIZE = 16\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'], start_new_session=True)\n"
        "def fn(a):\n    return a + 1\ndef inputs(size, device):\n    return (torch.ones(size),)\n"
    )
    from kernel_tui.ui.link.engine_link import ClientEngineLink

    link = ClientEngineLink("cpu")
    messages = list(link.run(stranger, sweep=False))
    assert isinstance(messages[-1], Done)
    started = time.monotonic()
    link.close()
    assert time.monotonic() - started < within(2)


def test_ctrl_c_delivered_to_a_reader_thread_still_ends_run(tmp_path: Path) -> None:
    """A signal sent to the process may land on any thread; the main thread must notice it all the same."""
    import ctypes
    import os

    pids = tmp_path / "pids"
    front_end = start_front_end(["run", "--device", "cpu", "--no-sweep", str(busy_scenario(tmp_path, pids))])
    engine_and_children = busy_pids(pids, front_end)
    threads = [int(tid) for tid in os.listdir(f"/proc/{front_end.pid}/task") if int(tid) != front_end.pid]
    assert threads, "the front end reads the engine's pipes on threads of its own"
    tgkill = {"x86_64": 234, "aarch64": 131}[os.uname().machine]  # the syscall that signals one thread
    assert ctypes.CDLL(None, use_errno=True).syscall(tgkill, front_end.pid, threads[0], signal.SIGINT) == 0
    _, stderr = front_end.communicate(timeout=within(10))
    assert front_end.returncode == 128 + signal.SIGINT, stderr
    assert wait_for(lambda: not any(is_running(pid) for pid in engine_and_children), 2), "all gone"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=lambda sig: sig.name)
def test_a_signal_to_the_app_quits_it_as_ctrl_q_does(sig: signal.Signals) -> None:
    """The explorer on a terminal: a signal gives the terminal back (leaves the alternate screen) and ends the
    engine, as quitting does, instead of killing the app mid-frame with the terminal still in its hands."""
    controller, terminal, written = open_terminal()
    app = start_in_terminal([sys.executable, "-m", "kernel_tui", "--device", "cpu", str(ADD_RELU)], terminal, (80, 24))
    STARTED.append(app)
    try:
        assert wait_for(lambda: bool(proctree.descendants(app.pid)) or app.poll() is not None, 120), "no engine"
        engine = proctree.descendants(app.pid)
        assert engine and b"kernel-tui" in written, "the app painted and started its engine"
        shown = len(written)
        app.send_signal(sig)
        assert app.wait(10) == 128 + sig
        assert wait_for(lambda: not any(is_running(pid) for pid in engine), 5), "the engine outlived the app"
        time.sleep(0.2)  # the last bytes on their way through the terminal
        after = bytes(written[shown:])
        assert b"\x1b[?1049l" in after, "the app left the alternate screen"
        assert f"kernel-tui: stopped by {sig.name}".encode() in after and b"Traceback" not in after
    finally:
        os.close(terminal)
        os.close(controller)
