"""Where each run asked of one engine is, from the moment it is asked for until it lets go of the engine.

An engine serves one run (or one start) at a time. A run is numbered and registered on the caller's thread
the moment it is asked for, so that a cancel pressed at once reaches it even if it has not begun; it then
waits, blocked on one condition, for the engine to be free, holds it while it starts and runs, and lets go
of it when it ends. ``RunLifecycle`` is that bookkeeping under one lock; the links (``engine_link``,
``view_link``, the tests' replaying link) drive it from their reading thread, the explorer's worker reads
whether its run was cancelled, and the UI thread cancels and closes. Nothing here touches Textual or an
engine, so every transition is a unit test.

Each run goes::

    QUEUED -> STARTING -> RUNNING -> FINISHED | FAILED
       \\           \\          \\
        `-----------`----------`--> CANCELLING -> CANCELLED   (a cancel, or the app closing)

A run cancelled before its turn goes from QUEUED straight to CANCELLED, and one whose wait for the engine
runs out to FAILED: neither ever holds the engine. A run asked for and never read holds nothing either.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # The protocol is imported with the first run, after the explorer's first frame.
    from kernel_tui.transport.protocol import RunMessage

CANCELLED_REASON = "cancelled"
CLOSING_REASON = "the app is closing"


class RunPhase(Enum):
    """Where a run is with the engine (``ui.run_state.RunStatus`` is what the explorer shows of it)."""

    QUEUED = "queued"
    """Asked for; another run or a start holds the engine."""
    STARTING = "starting"
    """Holds the engine, which is starting (a fresh one waits for its hello: torch imports)."""
    RUNNING = "running"
    """Holds the engine, which works on it."""
    CANCELLING = "cancelling"
    """Holds the engine, which is being ended because the run was cancelled (or the app is closing)."""
    FINISHED = "finished"
    """Ended with its report."""
    FAILED = "failed"
    """Ended without a report: the engine died, overran its time or refused to start."""
    CANCELLED = "cancelled"
    """Ended by a cancel (or the app closing); no report."""

    @property
    def ended(self) -> bool:
        return self in ENDED

    @property
    def holds_engine(self) -> bool:
        return self in HOLDING


ENDED = frozenset({RunPhase.FINISHED, RunPhase.FAILED, RunPhase.CANCELLED})
HOLDING = frozenset({RunPhase.STARTING, RunPhase.RUNNING, RunPhase.CANCELLING})
ALLOWED: dict[RunPhase, frozenset[RunPhase]] = {
    RunPhase.QUEUED: frozenset({RunPhase.STARTING, RunPhase.CANCELLED, RunPhase.FAILED}),
    RunPhase.STARTING: frozenset({RunPhase.RUNNING, RunPhase.CANCELLING, RunPhase.FINISHED, RunPhase.FAILED}),
    RunPhase.RUNNING: frozenset({RunPhase.CANCELLING, RunPhase.FINISHED, RunPhase.FAILED}),
    RunPhase.CANCELLING: frozenset({RunPhase.CANCELLED}),
    RunPhase.FINISHED: frozenset(),
    RunPhase.FAILED: frozenset(),
    RunPhase.CANCELLED: frozenset(),
}
"""Each phase's possible next ones. A start alone (no path) ends FINISHED straight from STARTING."""


class LifecycleError(RuntimeError):
    """A transition the lifecycle does not have: a bug in the link that drives it."""


class NeverRan(Exception):
    """A run that never got the engine: cancelled or the app closing before its turn, or its wait ran out;
    ``reason`` says which."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(eq=False)
class EngineRun:
    """One run asked of the engine, or (``path`` None) one start of the engine alone: the warm-up start,
    which a cancel leaves alone, since it serves the runs still to come."""

    run_id: int
    path: Path | None
    phase: RunPhase = RunPhase.QUEUED
    stop_reason: str = ""
    """Why it was stopped (``cancelled``, ``the app is closing``); '' while nobody stopped it."""

    @property
    def stopping(self) -> bool:
        """Cancelled or closed, whether it still holds the engine or has let go of it."""
        return self.phase in (RunPhase.CANCELLING, RunPhase.CANCELLED)


class RunLifecycle:
    """Every run asked of one engine that has not ended yet, and the one holding the engine (at most one)."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        """The one lock: every phase changes under it, and a run waiting for its turn waits on it."""
        self._last_id = 0
        self._open: list[EngineRun] = []
        """Runs asked for that have not ended, in the order they were asked for."""
        self.holder: EngineRun | None = None
        self.closed = False

    # -- the caller's thread ---------------------------------------------------------------------------

    def ask(self, path: Path | None) -> EngineRun:
        """A new run of ``path`` (None: a start alone), queued, numbered now: a cancel from here on stops it.
        Runs are numbered 1, 2, ... as the explorer's ``RunBook`` numbers them; a start alone is 0, no run."""
        with self._changed:
            if path is not None:
                self._last_id += 1
            run = EngineRun(self._last_id if path is not None else 0, path)
            self._open.append(run)
            return run

    def cancel(self) -> EngineRun | None:
        """Stop every run asked for so far (not a start alone); returns the run that holds the engine and
        must have it ended, or None when no cancelled run holds it (a queued one ends here, its reader woken)."""
        with self._changed:
            holder = self._stop(lambda run: run.path is not None, CANCELLED_REASON)
            self._changed.notify_all()
            return holder

    def close(self) -> EngineRun | None:
        """The app is closing: stop everything, starts included, and every run asked for later; returns
        the run or start that holds the engine, if any."""
        with self._changed:
            self.closed = True
            holder = self._stop(lambda run: True, CLOSING_REASON)
            self._changed.notify_all()
            return holder

    def _stop(self, which: Callable[[EngineRun], bool], reason: str) -> EngineRun | None:
        stopped_holder = None
        for run in list(self._open):
            if not which(run) or run.stopping:
                continue
            run.stop_reason = reason
            if run.phase is RunPhase.QUEUED:
                self._end(run, RunPhase.CANCELLED)
            else:
                self._move(run, RunPhase.CANCELLING)
                stopped_holder = run
        return stopped_holder

    # -- the reading thread ----------------------------------------------------------------------------

    def wait_for_turn(self, run: EngineRun, timeout: float | None = None) -> None:
        """Block until ``run`` holds the engine (STARTING). Raises NeverRan if it is cancelled first, if the
        app is closing, or if ``timeout`` passes while another still holds the engine (then it FAILED)."""
        with self._changed:
            if run.phase is not RunPhase.QUEUED and run.phase is not RunPhase.CANCELLED:
                raise LifecycleError(f"run {run.run_id} is {run.phase.value}: only a queued run waits for its turn")
            if self.closed and not run.stopping:
                run.stop_reason = CLOSING_REASON
                self._end(run, RunPhase.CANCELLED)
            if not self._changed.wait_for(lambda: run.phase.ended or self.holder is None, timeout):
                busy = self.holder
                self._end(run, RunPhase.FAILED)
                what = "starting" if busy is None or busy.path is None else f"with run {busy.run_id}"
                raise NeverRan(f"the engine was still busy {what} after {timeout:g} s")
            if run.phase.ended:
                raise NeverRan(run.stop_reason or CANCELLED_REASON)
            self._move(run, RunPhase.STARTING)
            self.holder = run

    def started(self, run: EngineRun) -> None:
        """The engine said hello and has the run's request: STARTING -> RUNNING (a run being cancelled stays
        CANCELLING)."""
        with self._changed:
            if run.phase is RunPhase.STARTING:
                self._move(run, RunPhase.RUNNING)

    def ended(self, run: EngineRun, *, report: bool) -> RunPhase:
        """``run`` lets go of the engine: FINISHED with its report, FAILED without one, CANCELLED if it was
        being stopped whatever it got. Returns the phase it ended in; the next run waiting gets its turn."""
        with self._changed:
            if run.phase.ended:
                return run.phase
            if run.phase is RunPhase.CANCELLING:
                self._end(run, RunPhase.CANCELLED)
            else:
                self._end(run, RunPhase.FINISHED if report else RunPhase.FAILED)
            return run.phase

    # -- under the lock --------------------------------------------------------------------------------

    def _move(self, run: EngineRun, phase: RunPhase) -> None:
        if phase not in ALLOWED[run.phase]:
            raise LifecycleError(f"run {run.run_id} cannot go from {run.phase.value} to {phase.value}")
        run.phase = phase

    def _end(self, run: EngineRun, phase: RunPhase) -> None:
        self._move(run, phase)
        if run in self._open:
            self._open.remove(run)
        if self.holder is run:
            self.holder = None
        self._changed.notify_all()

    def open_runs(self) -> list[EngineRun]:
        """The runs asked for that have not ended, oldest first (a copy)."""
        with self._changed:
            return list(self._open)


class RunMessages(Iterator["RunMessage"]):
    """One run's protocol messages as a link streams them, read in a worker thread, with the run they are of:
    the worker asks it whether the run was cancelled. ``close`` lets go of the engine if reading stops early."""

    def __init__(self, run: EngineRun, messages: Generator[RunMessage, None, None]) -> None:
        self.run = run
        self._messages = messages

    def __next__(self) -> RunMessage:
        return next(self._messages)

    def close(self) -> None:
        self._messages.close()


def take_turn(lifecycle: RunLifecycle, run: EngineRun, timeout: float | None = None) -> None:
    """``lifecycle.wait_for_turn`` as a link's reader sees it: a run that never got the engine raises
    ``EngineDied`` with the reason, as one the engine ended does (``EngineLink.run``)."""
    # Imported here: the client is loaded with the first run, after the explorer's first frame.
    from kernel_tui.transport.engine_died import EngineDied

    try:
        lifecycle.wait_for_turn(run, timeout)
    except NeverRan as never:
        raise EngineDied(None, "", never.reason) from None
