"""The engine client against real child processes: protocol hand-shake, engine death, time-outs, clean-up."""

from __future__ import annotations

import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import within
from support.processes import is_running

from kernel_tui.transport.client import EngineClient
from kernel_tui.transport.engine_died import EngineDied
from kernel_tui.transport.protocol import Done


def stand_in(tmp_path: Path, body: str) -> list[str]:
    """A fake engine: says hello like the real one, then does ``body`` on the first request."""
    script = tmp_path / "fake_engine.py"
    script.write_text(
        textwrap.dedent(
            """
            import json, os, sys, time
            from kernel_tui.transport import protocol
            from kernel_tui.model.report.report import ScenarioReport
            def send(message):
                sys.stdout.write(protocol.encode(message))
                sys.stdout.flush()
            def done(request):
                report = ScenarioReport(request.path, "t", "cpu", "stand-in", "0", 1)
                return protocol.Done(request.run_id, report)
            send(protocol.Hello(pid=os.getpid(), device="cpu", device_name="stand-in", torch_version="0", threads=1))
            for line in sys.stdin:
                request = protocol.decode(line)
            """
        )
        + textwrap.indent(textwrap.dedent(body), "    ")
    )
    return [sys.executable, str(script)]


def test_an_engine_of_another_protocol_version_is_refused_at_once(tmp_path: Path) -> None:
    script = tmp_path / "old_engine.py"
    script.write_text(
        "import json, os, time\n"
        "print(json.dumps({'type': 'hello', 'protocol': 1, 'pid': os.getpid(), 'device': 'cpu'}), flush=True)\n"
        "time.sleep(600)\n"
    )
    with EngineClient(command=[sys.executable, str(script)]) as client, pytest.raises(EngineDied) as death:
        started = time.monotonic()
        client.start(timeout=60)
    assert time.monotonic() - started < within(10), "refused when it said hello, not when the start timed out"
    assert "another protocol" in death.value.describe() and "protocol version 1" in death.value.describe()


def test_a_stray_line_before_the_hello_does_not_stop_the_start(tmp_path: Path) -> None:
    script = tmp_path / "chatty_engine.py"
    script.write_text(
        "import os, sys, time\n"
        "from kernel_tui.transport import protocol\n"
        "print('a library says hi on stdout', flush=True)\n"
        "hello = protocol.Hello(pid=os.getpid(), device='cpu', device_name='x', torch_version='0', threads=1)\n"
        "sys.stdout.write(protocol.encode(hello))\n"
        "sys.stdout.flush()\n"
        "time.sleep(600)\n"
    )
    with EngineClient(command=[sys.executable, str(script)]) as client:
        assert client.start(timeout=60).device_name == "x"
    assert "not JSON" in client.stderr_tail()


def test_an_engine_that_never_says_hello_is_given_up_on_at_the_start_timeout(tmp_path: Path) -> None:
    script = tmp_path / "mute_engine.py"
    script.write_text("import time\ntime.sleep(600)\n")
    with EngineClient(command=[sys.executable, str(script)]) as client, pytest.raises(EngineDied) as death:
        client.start(timeout=1)
    assert "did not start within 1 s" in death.value.describe()
    assert not client.running


def test_a_dying_engine_reports_its_exit_code_and_stderr_tail(tmp_path: Path) -> None:
    command = stand_in(tmp_path, "print('about to die', file=sys.stderr, flush=True)\nos._exit(7)\n")
    with EngineClient(command=command) as client, pytest.raises(EngineDied) as death:
        list(client.run("x.py"))
    assert death.value.returncode == 7
    assert "exited with code 7" in death.value.describe()
    assert "about to die" in death.value.stderr_tail


def test_a_crash_is_reported_with_its_signal(tmp_path: Path) -> None:
    command = stand_in(tmp_path, "os.kill(os.getpid(), 11)\n")
    with EngineClient(command=command) as client, pytest.raises(EngineDied) as death:
        list(client.run("x.py"))
    assert "SIGSEGV" in death.value.describe()


def test_a_hung_engine_is_stopped_at_the_timeout_with_its_whole_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "worker.pid"
    body = f"""
    import subprocess
    worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    open({str(pid_file)!r}, "w").write(str(worker.pid))
    time.sleep(600)
    """
    with EngineClient(command=stand_in(tmp_path, body)) as client:
        started = time.monotonic()
        with pytest.raises(EngineDied) as death:
            list(client.run("x.py", timeout=2))
        assert time.monotonic() - started < within(10)
    assert "no result within 2 s" in death.value.describe()
    worker = int(pid_file.read_text())
    time.sleep(0.2)
    assert not is_running(worker)


def test_garbage_on_the_protocol_stream_is_skipped_not_fatal(tmp_path: Path) -> None:
    body = """
    print("this is not json", flush=True)
    send(done(request))
    """
    with EngineClient(command=stand_in(tmp_path, body)) as client:
        messages = list(client.run("x.py", timeout=10))
    assert [type(m) for m in messages] == [Done]
    assert "not JSON" in client.stderr_tail()


def test_the_next_run_starts_a_fresh_engine(tmp_path: Path) -> None:
    body = """
    if os.path.exists(sys.argv[0] + ".died"):
        send(done(request))
    else:
        open(sys.argv[0] + ".died", "w").close()
        os._exit(1)
    """
    with EngineClient(command=stand_in(tmp_path, body)) as client:
        with pytest.raises(EngineDied):
            list(client.run("x.py", timeout=10))
        assert [type(m) for m in client.run("x.py", timeout=10)] == [Done]


def test_a_newer_engines_extra_fields_do_not_break_reading_a_report() -> None:
    from kernel_tui.model.report.report import ScenarioReport

    data = {
        "scenario": "s.py",
        "title": "t",
        "device": "cpu",
        "device_name": "x",
        "torch_version": "2",
        "size": 4,
        "future_field": 1,
        "eager": {
            "kernel_count": 1,
            "kernels": [{"name": "aten::add", "short_name": "aten::add", "calls": 1, "time_us": 1.0, "new": True}],
            "bytes_total": 12,
            "time_us": 1.0,
            "also_new": 2,
        },
        "sweep": [{"size": 4, "eager_us": 1.0, "compiled_us": 1.0, "later": 3}],
        "expect": {"eager": {"claimed": 1, "measured": 1, "ok": True, "why": "x"}},
        "error": {"stage": "sweep", "message": "m", "hint": "h"},
    }
    report = ScenarioReport.from_dict(data)
    assert report.eager is not None
    assert report.eager.kernels[0].name == "aten::add" and report.sweep[0].size == 4
    assert report.error is not None
    assert report.expect["eager"].ok and report.error.stage == "sweep"


def test_kill_signals_without_waiting_and_a_blocked_run_ends(tmp_path: Path) -> None:
    import threading

    with EngineClient(command=stand_in(tmp_path, "time.sleep(600)\n")) as client:
        client.start()
        outcome: list[str] = []

        def run() -> None:
            try:
                list(client.run("x.py"))
            except EngineDied:
                outcome.append("died")

        worker = threading.Thread(target=run)
        worker.start()
        time.sleep(0.3)
        started = time.monotonic()
        client.kill()
        assert time.monotonic() - started < within(0.1)
        worker.join(10)
        assert outcome == ["died"]


def test_an_engine_death_reads_as_its_description() -> None:
    # The fake engines (view, replay) raise it with a reason; what a user sees is that reason, not a tuple.
    assert str(EngineDied(1, "", "no recording for x.py")) == "no recording for x.py"
    assert str(EngineDied(-9, "")) == "the engine was killed by SIGKILL"


def test_a_start_abandoned_before_or_as_its_process_appears_ends_it_without_waiting_for_hello(tmp_path: Path) -> None:
    script = tmp_path / "slow_engine.py"
    script.write_text("import time\ntime.sleep(600)\n")  # would never say hello
    asked: list[bool] = []
    pids: list[int] = []

    def abandoned_once_the_process_exists() -> bool:
        # The first question comes before the process exists, the second once it does: a cancel that read
        # no process to end lands between them.
        if client._process is not None:
            pids.append(client._process.pid)
        asked.append(len(asked) == 1)
        return asked[-1]

    with EngineClient(command=[sys.executable, str(script)]) as client:
        with pytest.raises(EngineDied, match="stopped while it started"):
            client.start(timeout=600, abandoned=lambda: True)
        assert client._process is None, "nothing was started for a start abandoned already"
        started = time.monotonic()
        with pytest.raises(EngineDied, match="stopped while it started"):
            client.start(timeout=within(20), abandoned=abandoned_once_the_process_exists)
        assert time.monotonic() - started < within(5) and asked == [False, True]
        assert len(pids) == 1 and not is_running(pids[0]), "the engine it had started is ended"


def test_an_engine_death_passes_through_a_context_manager_as_itself() -> None:
    """contextlib sets ``__traceback__`` on an exception thrown through a generator's ``with`` block: the
    death must arrive as itself, not as the error of that assignment."""
    from contextlib import contextmanager

    @contextmanager
    def around() -> Iterator[None]:
        yield

    with pytest.raises(EngineDied) as raised:
        with around():
            raise EngineDied(1, "tail")
    assert raised.value.describe() == "the engine exited with code 1"
