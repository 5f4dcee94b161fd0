"""Engines forked from the fork server (torch imported once) behave as exec'd ones: same environment,
folder, exit status and results; and an environment torch would import differently gets an exec'd engine.
A server that many front ends share forks for those of its own environment only, and each front end's engines
end with it."""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import WriteScenario, measure
from support.cli_support import run_json
from support.locations import REPO
from support.processes import is_running, listening_fork_server, wait_for

from kernel_tui.engine.serve import preloaded_code
from kernel_tui.engine.serve.preloaded_code import Preloaded
from kernel_tui.transport import boot, forked_engines
from kernel_tui.transport.boot import python_command
from kernel_tui.transport.client import EngineClient
from kernel_tui.transport.engine_died import EngineDied

# The private servers a user's front end starts; the shared one (``serve_shared``) has tests of its own below.
pytestmark = [pytest.mark.engine, pytest.mark.usefixtures("own_fork_servers")]

ADD_RELU = REPO / "tests" / "data" / "add_relu.py"
PROBE = """
import os, sys
import torch

# The engine's parent is its keeper; the keeper's, the fork server that forked both.
with open(f"/proc/{os.getppid()}/stat") as keeper:
    server = int(keeper.read().rsplit(")", 1)[1].split()[1])
print("probe env", os.environ.get("KERNEL_TUI_PROBE"), "cwd", os.getcwd(), "server", server, file=sys.stderr)


def fn(a):
    return a + 1


def inputs(size, device):
    return (torch.ones(size, device=device),)
"""


def test_import_environment_is_what_torch_and_python_read_at_import() -> None:
    env = {
        "TORCHINDUCTOR_CACHE_DIR": "/c",
        "OMP_NUM_THREADS": "1",
        "HOME": "/h",
        "KERNEL_TUI_X": "1",
        "PYTHONPATH": "p",
    }
    assert boot.import_environment(env) == (
        ("OMP_NUM_THREADS", "1"),
        ("PYTHONPATH", "p"),
        ("TORCHINDUCTOR_CACHE_DIR", "/c"),
    )


PRELUDE_PROBE = """
import json, os, sys, threading
import torch

asked = []
for owner, name in ((torch._C, "_cuda_getDeviceCount"), (torch.cuda, "is_available"), (torch.cuda, "device_count"),
                    (torch.cuda, "_lazy_init"), (torch.cuda, "init")):
    real = getattr(owner, name, None)  # a CPU build has no _cuda_getDeviceCount
    if real is not None:
        setattr(owner, name, lambda *a, _real=real, _name=name, **k: (asked.append(_name), _real(*a, **k))[1])
tasks_before = len(os.listdir("/proc/self/task"))
from kernel_tui.engine import fork_server
from kernel_tui.engine.serve import preloaded_code
fork_server.prelude()
facts = {
    "asked": asked,
    "cuda_initialized": torch.cuda.is_initialized(),
    "threads": threading.active_count(),
    "tasks_added": len(os.listdir("/proc/self/task")) - tasks_before,
    "missing": [
        name for name in (*fork_server.PRELOADED, fork_server.INDUCTOR, *preloaded_code.ENGINE_CODE)
        if name not in sys.modules
    ],
}
told, tell = os.pipe()
if os.fork() == 0:  # what torch says of CUDA in an engine forked now
    os.write(tell, json.dumps(torch.cuda._is_in_bad_fork()).encode())
    os._exit(0)
os.close(tell)
print(json.dumps({**facts, "bad_fork": json.loads(os.read(told, 100))}))
"""


def test_the_prelude_every_engine_inherits_asks_no_device_and_starts_no_thread() -> None:
    """A forked CUDA context is unusable and a forked thread is gone: what the server does before it forks (torch,
    Inductor, the hashes of the installed sources, the engine's own code) may neither ask CUDA anything nor start a
    thread, nor leave its engines marked as unable to use CUDA (``torch.utils.benchmark``'s import did: each engine
    then exec'd itself, a whole torch import each)."""
    ran = subprocess.run(
        [sys.executable, "-c", PRELUDE_PROBE], cwd=REPO, capture_output=True, text=True, timeout=300, check=False
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    facts = json.loads(ran.stdout.strip().splitlines()[-1])
    assert facts["missing"] == []
    assert facts["asked"] == [], "the prelude asked CUDA about the device"
    assert facts["cuda_initialized"] is False
    assert facts["bad_fork"] is False, "an engine forked after the prelude could not use CUDA"
    assert facts["threads"] == 1 and facts["tasks_added"] == 0, facts


def test_a_server_whose_inductor_cannot_be_imported_forks_engines_that_measure_eager() -> None:
    """Inductor is imported before the fork if it can be; where it cannot (here blocked from the import system,
    as a Triton that does not match torch would), the server still serves, and the run keeps eager's kernels
    with the compile stage's error, as an exec'd engine's would."""
    blocked = "import sys; sys.modules['torch._inductor.compile_fx'] = None\n"
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "sitecustomize.py").write_text(blocked)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [folder, os.environ.get("PYTHONPATH")]))}
        ran = run_json("--no-sweep", "--no-time", "--device", "cpu", str(ADD_RELU), env=env)
    (report,) = ran.reports
    assert report["eager"]["kernel_count"] == 2, ran.stderr
    assert report["error"]["stage"] == "compile", report["error"]


def test_preloaded_code_is_current_until_a_file_changes_on_disk(tmp_path: Path) -> None:
    first, second = tmp_path / "first.py", tmp_path / "second.py"
    first.write_text("A = 1\n")
    second.write_text("B = 2\n")
    preloaded = Preloaded({str(path): preloaded_code.stamp(str(path)) for path in (first, second)})
    assert preloaded.current()
    second.write_text("B = 3\n")  # the same size: its time of change tells
    assert not preloaded.current()
    assert not Preloaded({str(first): None}).current(), "a file changed while it was imported is never current"


EDITED_CHECKOUT = """
import json, sys
from kernel_tui.transport import forked_engines
from kernel_tui.transport.client import EngineClient
from kernel_tui.transport.protocol import Done

def run(client):
    client.start()
    process = client._process
    forked = isinstance(process, forked_engines.ForkedEngine)
    report = None
    for message in client.run(sys.argv[1], sweep=False, timed=False, timeout=600, then_another=False):
        if isinstance(message, Done):
            report = message.report
    server = id(process._server) if forked else None
    return {"server": server, "notes": list(report.notes), "error": report.error is None}

with EngineClient("cpu") as client:
    before = run(client)
    with open(sys.argv[2], "a") as pipeline:
        pipeline.write(sys.argv[3])
    after = run(client)
print(json.dumps([before, after]))
"""
EDIT = """
from dataclasses import replace as _replace

_run_stages = run_stages


def run_stages(*args, **options):
    report = _run_stages(*args, **options)
    return _replace(report, notes=(*report.notes, "the edited checkout ran"))
"""


def test_an_engine_started_after_the_checkout_changed_runs_the_new_code(tmp_path: Path) -> None:
    """The server imported the engine's code before it forked; once a file of it changes on disk, the next engine is
    forked from a new server, which imported the change (here a note added to every report), as an exec'd engine
    would have."""
    copy = tmp_path / "checkout"
    shutil.copytree(REPO / "kernel_tui", copy / "kernel_tui", ignore=shutil.ignore_patterns("__pycache__"))
    pipeline = copy / "kernel_tui" / "engine" / "stages" / "pipeline.py"
    env = {key: value for key, value in os.environ.items() if key != forked_engines.SHARED_ENV}
    env["PYTHONPATH"] = str(copy)
    ran = subprocess.run(
        [sys.executable, "-c", EDITED_CHECKOUT, str(ADD_RELU), str(pipeline), EDIT],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    before, after = json.loads(ran.stdout.strip().splitlines()[-1])
    assert before["error"] and after["error"]
    assert "the edited checkout ran" not in before["notes"]
    assert "the edited checkout ran" in after["notes"]
    assert before["server"] is not None and after["server"] not in (None, before["server"]), (before, after)


def test_a_forked_engine_measures_what_an_execd_one_does(monkeypatch: pytest.MonkeyPatch) -> None:
    with EngineClient("cpu") as forked:
        forked.start()
        assert isinstance(forked._process, forked_engines.ForkedEngine)
        from_fork = measure(forked, ADD_RELU)
    monkeypatch.setenv("KERNEL_TUI_FORK_SERVER", "0")
    with EngineClient("cpu") as execd:
        execd.start()
        assert not isinstance(execd._process, forked_engines.ForkedEngine)
        from_exec = measure(execd, ADD_RELU)
    assert from_fork.error is None and from_exec.error is None
    assert from_fork.eager and from_exec.eager and from_fork.compiled and from_exec.compiled
    assert [k.name for k in from_fork.eager.kernels] == [k.name for k in from_exec.eager.kernels]
    assert [k.name for k in from_fork.compiled.kernels] == [k.name for k in from_exec.compiled.kernels]


def test_the_engine_gets_the_clients_environment_and_folder_each_time(
    write_scenario: WriteScenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_scenario(PROBE, "probe.py")
    said: list[str] = []
    with EngineClient("cpu", stderr_sink=said.append) as client:
        for value in ("first", "second"):
            folder = tmp_path / value
            folder.mkdir()
            monkeypatch.chdir(folder)
            monkeypatch.setenv("KERNEL_TUI_PROBE", value)
            client.start()
            assert isinstance(client._process, forked_engines.ForkedEngine)
            measure(client, path)
            probes = [line for line in said if line.startswith("probe env")]
            assert probes and probes[-1].split()[2:5] == [value, "cwd", str(folder)], probes
            client.close()


def test_a_killed_forked_engine_reports_its_signal(write_scenario: WriteScenario) -> None:
    path = write_scenario(
        "import os, signal, torch\n"
        "def fn(a):\n    os.kill(os.getpid(), signal.SIGKILL)\n"
        "def inputs(size, device):\n    return (torch.ones(size),)\n"
    )
    with EngineClient("cpu") as client:
        client.start()
        assert isinstance(client._process, forked_engines.ForkedEngine)
        with pytest.raises(EngineDied) as died:
            measure(client, path, then_another=False)
    assert died.value.returncode == -signal.SIGKILL


def test_another_import_environment_gets_an_execd_engine_or_its_own_server(monkeypatch: pytest.MonkeyPatch) -> None:
    with EngineClient("cpu") as client:
        client.start()
        first = client._process
        assert isinstance(first, forked_engines.ForkedEngine)
        first_server = first._server
    monkeypatch.setenv("TORCH_SHOW_CPP_STACKTRACES", "1")
    with EngineClient("cpu") as client:
        client.start()
        second = client._process
        assert isinstance(second, forked_engines.ForkedEngine)
        assert second._server is not first_server, "torch would have been imported under another environment"
        assert "TORCH_SHOW_CPP_STACKTRACES" in Path(f"/proc/{second.pid}/environ").read_bytes().decode(errors="replace")


def test_a_stopped_start_while_the_server_imports_torch_ends_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TORCH_FORK_SERVER_TEST_ONLY", str(time.monotonic()))  # a server of its own, still starting
    started = time.monotonic()
    client = EngineClient("cpu")
    with pytest.raises(EngineDied, match="stopped while it started"):
        client.start(abandoned=lambda: time.monotonic() - started > 0.5)
    assert time.monotonic() - started < 5, "the start waited for torch's imports in the server"
    client.close()
    assert os.environ["TORCH_FORK_SERVER_TEST_ONLY"]


BUSY = """
import os, time, torch
from pathlib import Path


def fn(a):
    return a + 1


def inputs(size, device):
    with open(f"/proc/{{os.getppid()}}/stat") as keeper:  # the engine's keeper; its parent, the fork server
        server = int(keeper.read().rsplit(")", 1)[1].split()[1])
    Path({pid_file!r}).write_text(f"{{os.getpid()}} {{server}}")
    time.sleep(300)
    return (torch.ones(size),)
"""


@pytest.fixture
def shared_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[subprocess.Popen[bytes]]:
    """A fork server listening on a socket of its own, named to every ``kernel-tui`` this test starts."""
    with listening_fork_server() as (server, path):
        monkeypatch.setenv(forked_engines.SHARED_ENV, path)
        yield server


def _server_of_probe(stderr: str) -> int:
    (line,) = [line for line in stderr.splitlines() if line.startswith("probe env")]
    return int(line.split()[-1])


def test_front_ends_of_its_environment_fork_from_the_shared_server(
    shared_server: subprocess.Popen[bytes], write_scenario: WriteScenario
) -> None:
    probe = write_scenario(PROBE, "probe.py")
    runs = [run_json("--device", "cpu", "--no-time", str(probe)) for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stderr[-2000:]
        assert run.reports[0]["compiled"]["kernel_count"] == 1
        assert _server_of_probe(run.stderr) == shared_server.pid
    assert shared_server.poll() is None, "the server serves the next front end"


def test_another_environment_or_no_server_there_starts_a_server_of_its_own(
    shared_server: subprocess.Popen[bytes], write_scenario: WriteScenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    probe = write_scenario(PROBE, "probe.py")
    other = run_json("--device", "cpu", "--no-time", str(probe), env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert other.returncode == 0, other.stderr[-2000:]
    assert _server_of_probe(other.stderr) != shared_server.pid, "torch there was imported under other threads"
    monkeypatch.setenv(forked_engines.SHARED_ENV, os.path.join(tempfile.gettempdir(), "kernel-tui-no-such-server"))
    gone = run_json("--device", "cpu", "--no-time", str(probe))
    assert gone.returncode == 0, gone.stderr[-2000:]
    assert _server_of_probe(gone.stderr) != shared_server.pid


def test_a_killed_front_end_takes_its_engine_from_the_shared_server_along(
    shared_server: subprocess.Popen[bytes], tmp_path: Path
) -> None:
    pid_file = tmp_path / "engine.pid"
    busy = tmp_path / "busy.py"
    busy.write_text(BUSY.format(pid_file=str(pid_file)))
    front_end = subprocess.Popen(
        python_command("kernel_tui", "run", "--device", "cpu", "--no-sweep", str(busy)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert wait_for(lambda: pid_file.exists() and len(pid_file.read_text().split()) == 2, 180), "never busy"
        engine, server = map(int, pid_file.read_text().split())
        assert server == shared_server.pid
    finally:
        front_end.kill()
        front_end.wait(10)
    assert wait_for(lambda: not is_running(engine), 3), "the engine outlived its front end"
    assert shared_server.poll() is None, "the server outlives one front end"


def test_a_reply_that_came_too_late_and_an_exit_under_a_pid_used_again_touch_no_newer_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The server's replies and exits name the request that forked the engine: pids come round again (32,768 of
    them on Linux), and a fork whose reply came after the client stopped waiting left its reply and its engine's
    exit behind, which the next fork took as its own: an engine that had just started read as exited with 0."""
    monkeypatch.setattr(forked_engines, "REPLY_TIMEOUT_S", 0.3)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    server = forked_engines.ForkServer(ours, None, None)
    theirs.send(json.dumps({"ready": 1}).encode())
    assert server.wait_ready(None)
    out_read, out_write = os.pipe()

    def take_request() -> int:
        data, fds, _flags, _address = socket.recv_fds(theirs, 1 << 20, 3)
        for fd in fds:
            os.close(fd)
        return int(json.loads(data)["tag"])

    assert server.fork(["kernel_tui.engine"], {}, out_write, out_write) is None  # its reply comes too late
    late = take_request()
    theirs.send(json.dumps({"forked": 4242, "tag": late}).encode())
    theirs.send(json.dumps({"exit": 4242, "tag": late, "code": 0}).encode())
    answered = threading.Thread(
        target=lambda: theirs.send(json.dumps({"forked": 4242, "tag": take_request()}).encode())
    )
    answered.start()
    engine = server.fork(["kernel_tui.engine"], {}, out_write, out_write)
    answered.join()
    assert engine is not None and engine.pid == 4242
    assert engine.poll() is None, "a newer engine under the same pid read as exited"
    server.close()
    theirs.close()
    for fd in (out_read, out_write):
        os.close(fd)


NOBODY = 65534


def _as_nobody(work: Callable[[], bool]) -> bool:
    """``work()`` in a child process run as user nobody: what another local user's process would see."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            code = 0 if work() else 2
        finally:
            os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0


@pytest.mark.skipif(os.getuid() != 0, reason="another user's process needs root to start (CI runs as root)")
def test_a_shared_fork_server_and_its_front_ends_serve_only_their_own_user(
    shared_server: subprocess.Popen[bytes],
) -> None:
    """Under a umask of 000 anyone could connect to a shared server's socket and have it fork an engine that runs
    their scenario as the server's user; and a server another user started would be handed a front end's
    descriptors. Both ends now check the other's user (SO_PEERCRED), whatever the socket's mode."""
    shared = os.environ[forked_engines.SHARED_ENV]
    folder = os.path.dirname(shared)
    mode = os.stat(folder).st_mode
    os.chmod(folder, 0o777)
    os.chmod(shared, 0o777)

    def turned_away() -> bool:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        connection.settimeout(60)
        connection.connect(shared)
        return connection.recv(65536) == b""  # closed unanswered, no "ready"

    try:
        assert _as_nobody(turned_away), "another user's connection was served"
    finally:
        os.chmod(folder, mode)

    # Not under tmp_path: its parents are this user's alone, and nobody could not reach the socket at all.
    strangers = tempfile.mkdtemp(prefix="kernel-tui-strangers-")
    os.chmod(strangers, 0o777)
    path = os.path.join(strangers, "server")
    ready_read, ready_write = os.pipe()

    def serve_once() -> bool:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        listener.bind(path)
        listener.listen()
        os.write(ready_write, b"1")
        connection = listener.accept()[0]
        connection.send(json.dumps({"ready": os.getpid()}).encode())
        connection.settimeout(30)
        return connection.recv(65536) == b""

    server = threading.Thread(target=lambda: _as_nobody(serve_once), daemon=True)
    server.start()
    try:
        listening, _, _ = select.select([ready_read], [], [], 60)
        assert listening, "the other user's server did not listen"
        with pytest.raises(PermissionError, match="another user"):
            forked_engines.ForkServer.attach(path, dict(os.environ))
        server.join(30)
    finally:
        shutil.rmtree(strangers, ignore_errors=True)
        for fd in (ready_read, ready_write):
            os.close(fd)
