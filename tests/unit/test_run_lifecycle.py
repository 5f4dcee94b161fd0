"""The run lifecycle on its own: phases, turns at the engine, cancel and close, without Textual or torch.

Threads stand in for the link's reading threads; every wait is on an event that the code under test sets,
bounded by ``within`` so that a lost wake-up fails the test instead of hanging it.
"""

from __future__ import annotations

import threading
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest
from conftest import within

from kernel_tui.transport.engine_died import EngineDied
from kernel_tui.ui.link.run_lifecycle import (
    CANCELLED_REASON,
    CLOSING_REASON,
    EngineRun,
    LifecycleError,
    NeverRan,
    RunLifecycle,
    RunMessages,
    RunPhase,
    take_turn,
)

SCENARIO = Path("add_relu.py")


def waiting_for_turn(lifecycle: RunLifecycle, run: EngineRun) -> tuple[threading.Thread, list[object]]:
    """A reader thread waiting for ``run``'s turn: what it got (None: the turn, else the exception)."""
    outcome: list[object] = []

    def wait() -> None:
        try:
            lifecycle.wait_for_turn(run, timeout=within(10))
            outcome.append(None)
        except NeverRan as never:
            outcome.append(never)

    thread = threading.Thread(target=wait, daemon=True)
    thread.start()
    return thread, outcome


def test_a_run_goes_from_queued_through_starting_and_running_to_finished() -> None:
    lifecycle = RunLifecycle()
    run = lifecycle.ask(SCENARIO)
    assert run.phase is RunPhase.QUEUED and lifecycle.holder is None
    lifecycle.wait_for_turn(run)
    # The phase the assert above read has moved on in wait_for_turn: mypy keeps the narrowed one.
    assert run.phase is RunPhase.STARTING and lifecycle.holder is run  # type: ignore[comparison-overlap]
    lifecycle.started(run)
    assert run.phase is RunPhase.RUNNING
    assert lifecycle.ended(run, report=True) is RunPhase.FINISHED
    assert lifecycle.holder is None and lifecycle.open_runs() == []


def test_a_run_without_a_report_failed_and_a_start_alone_finishes_from_starting() -> None:
    lifecycle = RunLifecycle()
    run = lifecycle.ask(SCENARIO)
    lifecycle.wait_for_turn(run)
    lifecycle.started(run)
    assert lifecycle.ended(run, report=False) is RunPhase.FAILED
    start = lifecycle.ask(None)
    lifecycle.wait_for_turn(start)
    assert lifecycle.ended(start, report=True) is RunPhase.FINISHED


def test_runs_are_numbered_in_the_order_they_are_asked_for_and_a_start_alone_takes_no_number() -> None:
    lifecycle = RunLifecycle()
    asked = [lifecycle.ask(SCENARIO), lifecycle.ask(None), lifecycle.ask(SCENARIO), lifecycle.ask(SCENARIO)]
    assert [run.run_id for run in asked] == [1, 0, 2, 3]


def test_a_run_waits_for_the_engine_until_the_run_holding_it_lets_go() -> None:
    lifecycle = RunLifecycle()
    first, second = lifecycle.ask(SCENARIO), lifecycle.ask(SCENARIO)
    lifecycle.wait_for_turn(first)
    thread, outcome = waiting_for_turn(lifecycle, second)
    thread.join(timeout=0.2)
    assert thread.is_alive() and second.phase is RunPhase.QUEUED, "one run holds the engine at a time"
    lifecycle.ended(first, report=True)
    thread.join(timeout=within(5))
    # The other thread moved the phase on since the assert above: mypy keeps the narrowed one.
    assert outcome == [None] and second.phase is RunPhase.STARTING and lifecycle.holder is second  # type: ignore[comparison-overlap]


def test_a_run_never_read_holds_nothing() -> None:
    lifecycle = RunLifecycle()
    lifecycle.ask(SCENARIO)  # asked for, its messages never read
    later = lifecycle.ask(SCENARIO)
    lifecycle.wait_for_turn(later, timeout=within(1))
    assert lifecycle.holder is later


def test_cancel_ends_a_queued_run_at_once_and_marks_the_holder_cancelling() -> None:
    lifecycle = RunLifecycle()
    holding, queued = lifecycle.ask(SCENARIO), lifecycle.ask(SCENARIO)
    lifecycle.wait_for_turn(holding)
    lifecycle.started(holding)
    thread, outcome = waiting_for_turn(lifecycle, queued)
    assert lifecycle.cancel() is holding, "the caller ends the engine the holder is using"
    thread.join(timeout=within(5))
    assert not thread.is_alive(), "a queued run hears of its cancel without waiting for the holder"
    (never,) = outcome
    assert isinstance(never, NeverRan) and never.reason == CANCELLED_REASON
    assert queued.phase is RunPhase.CANCELLED and queued.stopping
    assert holding.phase is RunPhase.CANCELLING and holding.stopping and holding.stop_reason == CANCELLED_REASON
    assert lifecycle.ended(holding, report=True) is RunPhase.CANCELLED, "a cancelled run's late report is no news"


def test_cancel_leaves_a_start_alone_and_runs_asked_for_after_it() -> None:
    lifecycle = RunLifecycle()
    warm_up = lifecycle.ask(None)
    lifecycle.wait_for_turn(warm_up)
    cancelled = lifecycle.ask(SCENARIO)
    assert lifecycle.cancel() is None, "the engine warming up for later runs is not ended"
    assert warm_up.phase is RunPhase.STARTING and cancelled.phase is RunPhase.CANCELLED
    later = lifecycle.ask(SCENARIO)
    lifecycle.ended(warm_up, report=True)
    lifecycle.wait_for_turn(later)
    assert later.phase is RunPhase.STARTING


def test_a_cancel_while_starting_keeps_the_run_cancelling_once_the_engine_answers() -> None:
    lifecycle = RunLifecycle()
    run = lifecycle.ask(SCENARIO)
    lifecycle.wait_for_turn(run)
    lifecycle.cancel()
    lifecycle.started(run)
    assert run.phase is RunPhase.CANCELLING


def test_close_stops_starts_too_and_every_run_asked_for_later() -> None:
    lifecycle = RunLifecycle()
    warm_up = lifecycle.ask(None)
    lifecycle.wait_for_turn(warm_up)
    assert lifecycle.close() is warm_up and warm_up.phase is RunPhase.CANCELLING
    assert warm_up.stop_reason == CLOSING_REASON
    late = lifecycle.ask(SCENARIO)
    lifecycle.ended(warm_up, report=False)
    with pytest.raises(NeverRan, match=CLOSING_REASON):
        lifecycle.wait_for_turn(late)
    assert late.phase is RunPhase.CANCELLED


def test_a_wait_that_runs_out_fails_the_run_with_who_held_the_engine() -> None:
    lifecycle = RunLifecycle()
    stuck, waiting = lifecycle.ask(SCENARIO), lifecycle.ask(SCENARIO)
    lifecycle.wait_for_turn(stuck)
    with pytest.raises(NeverRan, match=r"still busy with run 1 after 0\.05 s"):
        lifecycle.wait_for_turn(waiting, timeout=0.05)
    assert waiting.phase is RunPhase.FAILED and lifecycle.holder is stuck
    lifecycle.ended(stuck, report=True)
    start, late = lifecycle.ask(None), lifecycle.ask(SCENARIO)
    lifecycle.wait_for_turn(start)
    with pytest.raises(NeverRan, match=r"still busy starting after 0\.05 s"):
        lifecycle.wait_for_turn(late, timeout=0.05)


def test_a_queued_run_cannot_end_and_an_ended_run_cannot_start_again() -> None:
    lifecycle = RunLifecycle()
    run = lifecycle.ask(SCENARIO)
    lifecycle.started(run)  # only a starting run moves on to running; a queued one is left as it is
    assert run.phase is RunPhase.QUEUED
    with pytest.raises(LifecycleError, match="cannot go from queued to finished"):
        lifecycle.ended(run, report=True)
    lifecycle.wait_for_turn(run)
    lifecycle.ended(run, report=True)
    with pytest.raises(LifecycleError, match="run 1 is finished: only a queued run waits for its turn"):
        lifecycle.wait_for_turn(run)
    assert lifecycle.ended(run, report=False) is RunPhase.FINISHED, "ending twice changes nothing"


def test_take_turn_reads_as_an_engine_death_with_the_reason() -> None:
    lifecycle = RunLifecycle()
    run = lifecycle.ask(SCENARIO)
    lifecycle.cancel()
    with pytest.raises(EngineDied) as death:
        take_turn(lifecycle, run)
    assert death.value.describe() == CANCELLED_REASON and death.value.returncode is None


def test_run_messages_stream_the_run_and_close_lets_go_of_the_engine() -> None:
    lifecycle = RunLifecycle()
    run = lifecycle.ask(SCENARIO)

    def messages() -> Generator[Any, None, None]:
        lifecycle.wait_for_turn(run)
        reported = False
        try:
            yield "first"
            reported = True
            yield "done"
        finally:
            lifecycle.ended(run, report=reported)

    stream = RunMessages(run, messages())
    # Strings stand in for the protocol's messages: the stream hands on whatever the link yields.
    assert stream.run is run and next(stream) == "first" and lifecycle.holder is run  # type: ignore[comparison-overlap]
    stream.close()
    assert run.phase is RunPhase.FAILED and lifecycle.holder is None
