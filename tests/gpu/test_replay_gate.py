"""The replay gate lets recorded messages through by what they are: up to and including the one asked for."""

from __future__ import annotations

import pytest
from support.replay import Recording, ReplayGate
from support.ui_support import RECORDINGS

from kernel_tui.transport.protocol import Done, Partial, RunMessage, StageStartedMessage, SweepPointMessage

MESSAGES = Recording.load(RECORDINGS[0]).messages
NO_WAIT = 0.01


def admitted(gate: ReplayGate, messages: tuple[RunMessage, ...] = MESSAGES) -> list[RunMessage]:
    """The messages the gate lets through now, in order, up to the first it holds back."""
    passed = []
    for message in messages:
        if not gate.admit(message, timeout=NO_WAIT):
            break
        passed.append(message)
    return passed


def describe(message: RunMessage) -> str:
    return message.stage if isinstance(message, StageStartedMessage) else type(message).__name__


def test_nothing_passes_until_released() -> None:
    assert admitted(ReplayGate()) == []


def test_release_until_a_stage_stops_after_that_stages_progress_message() -> None:
    gate = ReplayGate()
    gate.release_until(stage="compile")
    assert [describe(m) for m in admitted(gate)] == ["load", "inputs", "eager", "Partial", "compile"]


def test_release_until_a_kind_stops_after_the_first_message_of_that_kind() -> None:
    gate = ReplayGate()
    gate.release_until(kind=Partial)
    passed = admitted(gate)
    assert isinstance(passed[-1], Partial) and not any(isinstance(m, Partial) for m in passed[:-1])


def test_releases_queue_up_and_are_used_in_order() -> None:
    gate = ReplayGate()
    gate.release_until(stage="sweep")
    gate.release_until(kind=SweepPointMessage)
    gate.release_until(kind=SweepPointMessage)
    passed = admitted(gate)
    assert [describe(m) for m in passed[-3:]] == ["sweep", "SweepPointMessage", "SweepPointMessage"]
    assert len(passed) < len(MESSAGES)


def test_release_all_lets_every_message_through() -> None:
    gate = ReplayGate()
    gate.release_all()
    passed = admitted(gate)
    assert passed == list(MESSAGES) and isinstance(passed[-1], Done)


def test_a_release_needs_something_to_stop_at() -> None:
    with pytest.raises(ValueError, match="a kind or a stage"):
        ReplayGate().release_until()
