"""A run the engine did not finish, as a result: the one function the server, the CLI and the app share."""

from __future__ import annotations

from pathlib import Path

from support.replay import Recording
from support.ui_support import ADD_RELU, DATA

from kernel_tui.model.death.engine_death import EngineFacts, died_report, engine_error
from kernel_tui.model.report.report import ScenarioReport, SweepPoint
from kernel_tui.transport.engine_died import EngineDied
from kernel_tui.transport.protocol import Partial

ENGINE = EngineFacts("cpu", "a test CPU", "2.14.1", 2)
KILLED = engine_error("the engine was killed by SIGKILL", file=ADD_RELU, details="a scenario's last words\n")


def recorded_partials() -> list[ScenarioReport]:
    recording = Recording.load(DATA / "ui_add_relu_messages.json")
    return [message.report for message in recording.messages if isinstance(message, Partial)]


def test_an_engine_error_names_the_engine_stage_the_file_and_keeps_the_details() -> None:
    error = engine_error("no result within 5 s: the engine was stopped", file=Path("a.py"), details="tail\n")
    assert (error.stage, error.message, error.line, error.file, error.details) == (
        "engine",
        "no result within 5 s: the engine was stopped",
        None,
        "a.py",
        "tail\n",
    )
    assert engine_error("cancelled").file is None


def test_an_engine_death_reads_as_the_same_error() -> None:
    death = EngineDied(-11, "Segmentation fault\n")
    assert death.error(ADD_RELU) == engine_error(
        "the engine was killed by SIGSEGV", file=ADD_RELU, details=death.stderr_tail
    )
    assert death.error().file is None


def test_nothing_measured_still_names_the_scenario_the_engine_and_the_size() -> None:
    report = died_report(KILLED, str(ADD_RELU), ENGINE)
    assert (report.scenario, report.title, report.size) == (str(ADD_RELU), "Add, then ReLU", 1 << 20)
    assert (report.device, report.device_name, report.torch_version, report.threads) == (
        "cpu",
        "a test CPU",
        "2.14.1",
        2,
    )
    assert report.error == KILLED and report.eager is None and report.expect == {}
    assert died_report(KILLED, str(ADD_RELU), ENGINE, size=4096).size == 4096, "the size asked for wins"


def test_a_file_that_cannot_be_read_is_titled_by_its_name(tmp_path: Path) -> None:
    missing = str(tmp_path / "gone_now.py")
    assert died_report(KILLED, missing, ENGINE).title == "gone_now"
    assert died_report(KILLED, missing, ENGINE).size == 0


def test_what_was_measured_is_kept_with_the_points_streamed_since() -> None:
    partial = recorded_partials()[-1]
    assert partial.eager is not None and partial.compiled is not None and partial.sweep == ()
    points = [SweepPoint(1024, 3.0, 2.0), SweepPoint(4096, 5.0, 3.0)]
    report = died_report(KILLED, str(ADD_RELU), ENGINE, measured=partial, points=points)
    assert report.eager == partial.eager and report.compiled == partial.compiled
    assert report.sweep == tuple(points) and report.error == KILLED
    assert report.device == partial.device and report.scenario == partial.scenario, "the partial's own, not ENGINE"
    assert died_report(KILLED, str(ADD_RELU), ENGINE, measured=partial).sweep == partial.sweep


def test_the_claims_are_checked_against_what_was_measured_only_when_asked() -> None:
    eager_only = recorded_partials()[0]
    assert eager_only.compiled is None
    report = died_report(KILLED, str(ADD_RELU), ENGINE, measured=eager_only, swept=False)
    assert report.expect["eager"].ok is True and report.expect["eager"].measured == 2
    assert report.expect["compiled"].ok is False and report.expect["compiled"].measured is None
    assert died_report(KILLED, str(ADD_RELU), ENGINE, measured=eager_only).expect == {}


def test_the_engine_s_own_failures_become_reports_through_the_same_function() -> None:
    """The engine's server: a bug is the run's engine error with its traceback; an exit mid-run keeps what its
    outbox's record holds (the partial report and the sweep's points since), as a front end's dead-engine report."""
    from kernel_tui.engine.serve.server import _run
    from kernel_tui.engine.stages.outbox import RunOutbox
    from kernel_tui.transport.protocol import RunRequest, StageStartedMessage, SweepPointMessage

    sent: list[object] = []
    request = RunRequest(7, str(ADD_RELU), sweep=False)

    def engine_bug(request: RunRequest, outbox: RunOutbox) -> ScenarioReport:
        raise ValueError("a bug in the engine")

    report = _run(request, "cpu", RunOutbox.for_request(request, sent.append), engine_bug)
    assert report.error is not None and (report.error.stage, report.error.message) == (
        "engine",
        "ValueError: a bug in the engine",
    )
    assert report.error.file == str(ADD_RELU) and "Traceback" in report.error.details
    assert (report.title, report.size, report.device) == ("Add, then ReLU", 1 << 20, "cpu")
    assert report.device_name and report.torch_version and report.threads

    partial = recorded_partials()[-1]
    assert partial.compiled is not None and partial.sweep == ()
    point = SweepPoint(1024, 3.0, 2.0)
    sweeping = RunRequest(8, str(ADD_RELU), sweep=True)
    outbox = RunOutbox.for_request(sweeping, sent.append)

    def exits_in_the_sweep(request: RunRequest, outbox: RunOutbox) -> ScenarioReport:
        outbox.send(Partial, partial)
        outbox.send(StageStartedMessage, "profile", "")
        outbox.send(SweepPointMessage, point)
        raise SystemExit(3)

    report = _run(sweeping, "cpu", outbox, exits_in_the_sweep)
    assert report.error is not None and (report.error.stage, report.error.message) == (
        "compile",
        "SystemExit: sys.exit(3)",
    )
    assert report.eager == partial.eager and report.scenario == partial.scenario, "what was measured is kept"
    assert report.sweep == (point,), "the point streamed after the partial report is kept too"
    assert report.expect["compiled"].ok is True, "the claims are checked against it, as a front end's report does"
    assert [getattr(message, "run_id", None) for message in sent[-3:]] == [8, 8, 8], "numbered by the outbox"
