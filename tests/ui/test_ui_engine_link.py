"""The real engine link with a stand-in engine process (no torch): cancel and close end it promptly.

The stand-in speaks the protocol: a hello after an optional delay, then for each run a progress
message and either a ``done`` or, for a path containing ``hang``, nothing ever again.
"""

from __future__ import annotations

import sys
import textwrap
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
from conftest import within

from kernel_tui.transport import client
from kernel_tui.transport.engine_died import EngineDied
from kernel_tui.transport.protocol import Done, StageStartedMessage
from kernel_tui.ui.link.engine_link import OUTPUT_LINES, ClientEngineLink
from kernel_tui.ui.link.run_lifecycle import RunPhase

STAND_IN = textwrap.dedent(
    """
    import os, sys, time
    from kernel_tui.transport import protocol
    from kernel_tui.model.report.report import ScenarioReport
    time.sleep(float(os.environ.get("STAND_IN_HELLO_DELAY", "0")))
    def send(message):
        sys.stdout.write(protocol.encode(message))
        sys.stdout.flush()
    send(protocol.Hello(pid=os.getpid(), device="cpu", device_name="stand-in", torch_version="0", threads=1))
    for line in sys.stdin:
        request = protocol.decode(line)
        if not isinstance(request, protocol.RunRequest):
            continue
        send(protocol.StageStartedMessage(request.run_id, "load", request.path))
        print("printed by the scenario", file=sys.stderr, flush=True)
        if "hang" in request.path:
            time.sleep(3600)
        send(protocol.Done(request.run_id, ScenarioReport(request.path, "t", "cpu", "stand-in", "0", 1)))
    """
)


@pytest.fixture
def link(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ClientEngineLink]:
    script = tmp_path / "stand_in_engine.py"
    script.write_text(STAND_IN)
    monkeypatch.setattr(client, "engine_command", lambda device: [sys.executable, str(script)])
    made = ClientEngineLink("cpu")
    yield made
    made.close()


def read_in_thread(messages: Iterable[object]) -> tuple[threading.Thread, list[object]]:
    seen: list[object] = []

    def read() -> None:
        try:
            for message in messages:
                seen.append(message)
        except EngineDied as death:
            seen.append(death)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread, seen


def test_a_run_streams_messages_and_the_output_is_kept(link: ClientEngineLink) -> None:
    messages = list(link.run(Path("ok.py"), sweep=False))
    assert [type(m) for m in messages] == [StageStartedMessage, Done]
    deadline = time.monotonic() + within(5)
    while "printed by the scenario" not in link.output() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert "printed by the scenario" in link.output()


def test_output_between_two_marks_is_what_was_printed_between_them(link: ClientEngineLink) -> None:
    link._record_output("left by an earlier run\n")
    start = link.output_mark()
    link._record_output("printed by this run\n")
    end = link.output_mark()
    link._record_output("printed by the next run\n")
    assert link.output(start, end) == "printed by this run\n"
    assert link.output(start) == "printed by this run\nprinted by the next run\n"
    for number in range(OUTPUT_LINES):
        link._record_output(f"{number}\n")
    assert link.output(start, end) == "", "lines no longer kept are not made up"


def test_cancel_ends_a_hung_run_at_once_and_the_next_run_restarts_the_engine(link: ClientEngineLink) -> None:
    thread, seen = read_in_thread(link.run(Path("hang.py"), sweep=False))
    deadline = time.monotonic() + within(10)
    while not seen and time.monotonic() < deadline:
        time.sleep(0.01)
    started = time.monotonic()
    link.cancel()
    thread.join(timeout=within(5))
    assert not thread.is_alive() and time.monotonic() - started < within(3)
    assert isinstance(seen[-1], EngineDied)
    assert [type(m) for m in link.run(Path("ok.py"), sweep=False)] == [StageStartedMessage, Done]


def test_cancel_before_the_run_begins_stops_it_without_killing_the_warm_up(
    link: ClientEngineLink, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STAND_IN_HELLO_DELAY", "0.5")
    warm_up = threading.Thread(target=link.start, daemon=True)
    warm_up.start()
    time.sleep(0.1)  # the warm-up holds the engine; the run below has to wait for it
    thread, seen = read_in_thread(link.run(Path("ok.py"), sweep=False))
    link.cancel()
    thread.join(timeout=within(10))
    warm_up.join(timeout=within(10))
    assert seen and isinstance(seen[-1], EngineDied) and seen[-1].describe() == "cancelled"
    assert link._client.running, "the engine warmed up for later runs is kept"


def test_close_while_the_engine_is_starting_does_not_wait_for_its_hello(
    link: ClientEngineLink, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STAND_IN_HELLO_DELAY", "30")
    errors: list[BaseException] = []

    def start() -> None:
        try:
            link.start()
        except EngineDied as death:
            errors.append(death)

    starter = threading.Thread(target=start, daemon=True)
    starter.start()
    time.sleep(0.2)
    began = time.monotonic()
    link.close()
    starter.join(timeout=within(10))
    assert not starter.is_alive() and time.monotonic() - began < within(3)
    assert errors


def test_cancel_while_the_run_s_engine_starts_ends_it_without_waiting_for_its_hello(
    link: ClientEngineLink, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STAND_IN_HELLO_DELAY", "30")
    messages = link.run(Path("ok.py"), sweep=False)
    thread, seen = read_in_thread(messages)
    deadline = time.monotonic() + within(10)
    while messages.run.phase is not RunPhase.STARTING and time.monotonic() < deadline:
        time.sleep(0.01)
    began = time.monotonic()
    link.cancel()
    thread.join(timeout=within(10))
    assert not thread.is_alive() and time.monotonic() - began < within(3)
    assert isinstance(seen[-1], EngineDied) and messages.run.phase is RunPhase.CANCELLED
    assert link.lifecycle.holder is None and not link._client.running
