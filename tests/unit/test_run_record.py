"""The one fold of a run's protocol messages (``transport.run_record``), over real recordings of the engine.

The app, ``kernel-tui run`` and a dead engine's report read the same record, so each assertion here holds for
all three.
"""

from __future__ import annotations

from dataclasses import replace
from functools import reduce

from support.replay import Recording
from support.ui_support import ADD_RELU, BROKEN, RECORDINGS

from kernel_tui.model.death.engine_death import EngineFacts, engine_error
from kernel_tui.transport.protocol import Done, Partial, RunMessage, StageStartedMessage, SweepPointMessage
from kernel_tui.transport.run_record import RunRecord, died_report, ended_without_report, fold

ADD_RELU_RUN = Recording.load(RECORDINGS[0])
BROKEN_RUN = Recording.load(RECORDINGS[1])


def messages_of(recording: Recording, run_id: int) -> list[RunMessage]:
    return [replace(message, run_id=run_id) for message in recording.messages]


def test_a_whole_run_folds_into_its_final_report_and_every_sweep_point() -> None:
    record = reduce(fold, messages_of(ADD_RELU_RUN, 7), RunRecord(7, ADD_RELU, sweep=True))
    done = ADD_RELU_RUN.messages[-1]
    assert isinstance(done, Done)
    assert record.done and record.ended and record.report == done.report and record.error is None
    assert len(record.points) == 6 and record.points == done.report.sweep
    assert record.stage == "sweep" and record.sweep_total == 6


def test_messages_of_another_run_or_after_the_end_change_nothing() -> None:
    start = RunRecord(2, ADD_RELU, sweep=True)
    assert all(fold(start, message) is start for message in messages_of(ADD_RELU_RUN, 1)), "a stale run's"
    ended = ended_without_report(start, engine_error("killed"), cancelled=True)
    assert ended.cancelled and ended.error is None and ended.ended
    assert all(fold(ended, message) is ended for message in messages_of(ADD_RELU_RUN, 2))


def test_a_scenario_error_in_the_final_report_is_the_run_s_error() -> None:
    record = reduce(fold, messages_of(BROKEN_RUN, 1), RunRecord(1, BROKEN, sweep=False))
    assert record.done and record.report is not None and record.report.error is not None
    assert record.error == record.report.error


def test_a_dead_engine_s_report_keeps_the_partial_report_and_the_points_streamed_since() -> None:
    messages = messages_of(ADD_RELU_RUN, 3)
    before_done = [message for message in messages if not isinstance(message, Done)]
    record = reduce(fold, before_done, RunRecord(3, ADD_RELU, sweep=True))
    last_partial = next(m for m in reversed(before_done) if isinstance(m, Partial))
    streamed = tuple(m.point for m in before_done if isinstance(m, SweepPointMessage))
    assert not record.ended and record.report == last_partial.report and record.points == streamed

    error = engine_error("the engine ended (signal 9)", file=ADD_RELU)
    report = died_report(record, error, EngineFacts("cpu"), size=None)
    assert report.error == error and report.sweep == streamed
    assert report.compiled == last_partial.report.compiled and report.eager == last_partial.report.eager


def test_a_dead_engine_before_any_report_still_names_the_device_and_the_file() -> None:
    record = fold(RunRecord(4, ADD_RELU, sweep=False), StageStartedMessage(4, "load", ""))
    report = died_report(record, engine_error("killed", file=ADD_RELU), EngineFacts("cpu", "a cpu"), size=4096)
    assert report.device == "cpu" and report.scenario == str(ADD_RELU.resolve()) and report.eager is None
