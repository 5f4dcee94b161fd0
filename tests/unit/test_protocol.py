"""The protocol's one encoder and one decoder: every message survives the wire, anything else is refused."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from kernel_tui.model.report.kernel import Kernel
from kernel_tui.model.report.mode_result import ModeResult
from kernel_tui.model.report.report import ExpectCheck, ScenarioError, ScenarioReport, SweepPoint
from kernel_tui.transport import protocol
from kernel_tui.transport.protocol import (
    PROTOCOL_VERSION,
    Done,
    Hello,
    Partial,
    ProtocolError,
    Quit,
    RunRequest,
    StageStartedMessage,
    SweepPointMessage,
    Warmup,
    WarmupPlan,
)

POINT = SweepPoint(
    size=1024,
    eager_us=4.1,
    compiled_us=40.3,
    eager_iqr_us=0.9,
    compiled_iqr_us=0.0,
    eager_bytes=20480,
    compiled_bytes=12288,
)
REPORT = ScenarioReport(
    "/s/add_relu.py",
    "Add, then ReLU",
    "cpu",
    "EPYC",
    "2.14.1",
    1024,
    eager=ModeResult(
        kernel_count=2, kernels=(Kernel("aten::add", "aten::add", 1, 3.5),), bytes_total=20480, time_us=7.0
    ),
    sweep=(POINT,),
    expect={"eager": ExpectCheck(2, 2, True)},
    threads=2,
    notes=("a note",),
)
FAILED_REPORT = ScenarioReport(
    "/s/broken.py",
    "Broken",
    "cpu",
    "EPYC",
    "2.14.1",
    0,
    error=ScenarioError("eager", "boom", 7, "/s/broken.py", "Traceback ..."),
)

EVERY_MESSAGE: list[protocol.Message] = [
    Hello(pid=12, device="cpu", device_name="EPYC", torch_version="2.14.1", threads=2),
    Hello(
        pid=12,
        device="cuda",
        device_name="H200",
        torch_version="2.14.1",
        threads=16,
        warmup=WarmupPlan(cold=True, estimate_s=20.0),
    ),
    Warmup(state="done", seconds=3.2, cold=False),
    Warmup(state="failed", seconds=0.4, message="RuntimeError('no compiler')"),
    StageStartedMessage(run_id=1, stage="load", detail="/s/add_relu.py"),
    StageStartedMessage(run_id=1, stage="sweep", detail="6 sizes", total=6),
    Partial(run_id=1, report=REPORT),
    SweepPointMessage(run_id=1, point=POINT),
    Done(run_id=1, report=REPORT),
    Done(run_id=2, report=FAILED_REPORT),
    RunRequest(run_id=3, path="/s/add_relu.py"),
    RunRequest(run_id=4, path="/s/add_relu.py", size=4096, sizes=(1024, 4096), sweep=False, trace_dir="/tmp/t"),
    RunRequest(run_id=5, path="/s/add_relu.py", arch=80, remeasure_ceiling=True, timed=False),
    Quit(),
]


def wire(message: protocol.Message) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(protocol.encode(message))
    return data


@pytest.mark.parametrize("message", EVERY_MESSAGE, ids=lambda message: type(message).__name__)
def test_every_message_reads_back_as_it_was_written(message: protocol.Message) -> None:
    line = protocol.encode(message)
    assert line.endswith("\n") and "\n" not in line[:-1], "one message, one line"
    assert protocol.decode(line) == message


def test_every_message_type_is_covered() -> None:
    assert {type(message) for message in EVERY_MESSAGE} == set(protocol.WIRE_TYPES)


def test_a_report_arrives_as_a_report_object() -> None:
    message = protocol.decode(protocol.encode(Partial(1, REPORT)))
    assert isinstance(message, Partial) and isinstance(message.report, ScenarioReport)
    assert message.report.eager is not None and message.report.eager.kernels[0].name == "aten::add"
    assert message.report.sweep == (POINT,)


def test_a_time_that_is_not_a_number_survives_the_wire() -> None:
    point = SweepPoint(size=4, eager_us=math.nan, compiled_us=1.0)
    message = protocol.decode(protocol.encode(SweepPointMessage(1, point)))
    assert isinstance(message, SweepPointMessage) and message.point.eager_us is not None
    assert math.isnan(message.point.eager_us)


def test_the_sweep_total_travels() -> None:
    message = protocol.decode(protocol.encode(StageStartedMessage(1, "sweep", "whatever the words", total=6)))
    assert isinstance(message, StageStartedMessage) and message.total == 6


@pytest.mark.parametrize(
    "line",
    [
        "not json at all",
        "[1, 2]",
        '"hello"',
        "{}",
        json.dumps({"protocol": PROTOCOL_VERSION, "run_id": 1}),
        json.dumps({"type": "shout", "protocol": PROTOCOL_VERSION}),
        json.dumps({"type": 7, "protocol": PROTOCOL_VERSION}),
    ],
    ids=["not-json", "a-list", "a-string", "no-type", "no-type-with-fields", "unknown-type", "type-not-text"],
)
def test_a_line_that_is_no_message_is_refused(line: str) -> None:
    with pytest.raises(ProtocolError):
        protocol.decode(line)


@pytest.mark.parametrize("version", [None, 1, PROTOCOL_VERSION + 1, str(PROTOCOL_VERSION)])
@pytest.mark.parametrize(
    "message", [EVERY_MESSAGE[0], EVERY_MESSAGE[5], EVERY_MESSAGE[11]], ids=["hello", "progress", "run"]
)
def test_a_message_of_another_protocol_version_is_refused(message: protocol.Message, version: int | str | None) -> None:
    data = wire(message)
    if version is None:
        del data["protocol"]
    else:
        data["protocol"] = version
    with pytest.raises(protocol.VersionMismatch, match="protocol version"):
        protocol.decode(json.dumps(data))


@pytest.mark.parametrize(
    ("message", "field", "value"),
    [
        (EVERY_MESSAGE[0], "pid", None),
        (EVERY_MESSAGE[0], "pid", "12"),
        (EVERY_MESSAGE[0], "threads", True),
        (EVERY_MESSAGE[1], "warmup", {"cold": True}),
        (EVERY_MESSAGE[2], "state", "maybe"),
        (EVERY_MESSAGE[2], "seconds", None),
        (EVERY_MESSAGE[5], "total", "6"),
        (EVERY_MESSAGE[5], "stage", None),
        (EVERY_MESSAGE[6], "report", None),
        (EVERY_MESSAGE[6], "report", {"title": "no scenario"}),
        (EVERY_MESSAGE[6], "report", {**REPORT.to_dict(), "eager": 5}),
        (EVERY_MESSAGE[7], "point", [1024, 4.1]),
        (EVERY_MESSAGE[8], "run_id", 1.5),
        (EVERY_MESSAGE[11], "sizes", [1024, "4096"]),
        (EVERY_MESSAGE[11], "sweep", 1),
        (EVERY_MESSAGE[0], "device", "tpu"),
        (EVERY_MESSAGE[5], "stage", "warming"),
        (EVERY_MESSAGE[12], "arch", 70),
        (EVERY_MESSAGE[12], "arch", "80"),
        (EVERY_MESSAGE[12], "arch", 80.0),
        (EVERY_MESSAGE[12], "remeasure_ceiling", 1),
        (EVERY_MESSAGE[12], "timed", "no"),
    ],
)
def test_a_field_of_the_wrong_type_is_refused(message: protocol.Message, field: str, value: object) -> None:
    data = wire(message)
    data[field] = value
    with pytest.raises(ProtocolError, match=f"malformed '{data['type']}'"):
        protocol.decode(json.dumps(data))


@pytest.mark.parametrize(
    ("message", "field"),
    [
        (EVERY_MESSAGE[0], "device"),
        (EVERY_MESSAGE[4], "detail"),
        (EVERY_MESSAGE[8], "report"),
        (EVERY_MESSAGE[10], "path"),
    ],
)
def test_a_message_without_a_required_field_is_refused(message: protocol.Message, field: str) -> None:
    data = wire(message)
    del data[field]
    with pytest.raises(ProtocolError, match=f"no '{field}'"):
        protocol.decode(json.dumps(data))


def test_an_optional_field_may_be_left_out() -> None:
    data = wire(StageStartedMessage(1, "eager", "warm-up and profile"))
    del data["total"]
    assert protocol.decode(json.dumps(data)) == StageStartedMessage(1, "eager", "warm-up and profile")


def test_a_run_request_without_the_settings_reads_with_the_defaults() -> None:
    """As a front end that predates them writes it: the engine's own arch, the cached ceilings, timed."""
    data = wire(RunRequest(3, "/s/add_relu.py", timed=False))
    del data["arch"], data["remeasure_ceiling"], data["timed"]
    request = protocol.decode(json.dumps(data))
    assert isinstance(request, RunRequest)
    assert (request.arch, request.remeasure_ceiling, request.timed) == (None, False, True)


def test_dispatch_calls_the_handler_of_the_message_type_only() -> None:
    calls: list[str] = []

    def on_hello(m: Hello) -> str:
        calls.append("hello")
        return "h"

    def on_progress(m: StageStartedMessage) -> str:
        calls.append(f"progress {m.stage}")
        return "p"

    def on_done(m: Done) -> str:
        calls.append(f"done {m.run_id}")
        return "d"

    for message in EVERY_MESSAGE:
        result = protocol.dispatch(message, hello=on_hello, stage_started=on_progress, done=on_done)
        expected = {Hello: "h", StageStartedMessage: "p", Done: "d"}.get(type(message))
        assert result == expected
    assert calls == ["hello", "hello", "progress load", "progress sweep", "done 1", "done 2"]


def test_dispatch_refuses_what_is_not_a_message() -> None:
    with pytest.raises(TypeError):
        protocol.dispatch({"type": "done"})  # type: ignore[arg-type]
