"""The explorer's side of the engine: start it, stream a run through a thread worker, take in what it says.

The worker (``kernel_tui.ui.engine_worker``) posts typed messages back (``kernel_tui.ui.messages``); a message
of a run that was cancelled or replaced is dropped (``RunBook.live``). Each message changes the screen's plain
state (the run it is about, the engine's hello) and then the explorer shows that state again, once
(``ExplorerScreen.refresh_shown``). The worker's module and the messages are imported with the first run,
after the first frame.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual.screen import Screen
from textual.worker import Worker, WorkerState

from kernel_tui.ui.shown import EngineState

if TYPE_CHECKING:
    from kernel_tui.model.report import ScenarioError
    from kernel_tui.transport.protocol import Hello, RunMessage
    from kernel_tui.ui.engine_link import EngineLink
    from kernel_tui.ui.messages import (
        EngineStarted,
        EngineStartFailed,
        ReportUpdated,
        RunFailed,
        RunFinished,
        StageStarted,
        SweepPointMeasured,
    )
    from kernel_tui.ui.run_state import RunBook, ScenarioRun
    from kernel_tui.ui.screens.asked import Reply
    from kernel_tui.ui.screens.snippets import SnippetWorkbench
    from kernel_tui.ui.screens.why import WhyPart


class EngineEvents(Screen[None]):
    """The engine's half of ``ExplorerScreen``: what its worker's messages change."""

    link: EngineLink
    clock: Callable[[], float]
    runs: RunBook
    snippets: SnippetWorkbench
    why: WhyPart
    engine: EngineState
    """The engine's hello, why it could not start, and when its first compile began."""

    def refresh_shown(self) -> None:
        raise NotImplementedError  # the explorer's

    def reply(self, replies: list[Reply]) -> None:
        raise NotImplementedError  # the explorer's

    # ``hello`` and ``engine_error`` are the engine state's, set here or by tests: either shows it again.
    @property
    def hello(self) -> Hello | None:
        """The engine's hello once it started; None while it (re)starts."""
        return self.engine.hello

    @hello.setter
    def hello(self, hello: Hello | None) -> None:
        self.engine = replace(self.engine, hello=hello)
        self.refresh_shown()

    @property
    def engine_error(self) -> ScenarioError | None:
        """Why the engine could not start, if it could not."""
        return self.engine.error

    @engine_error.setter
    def engine_error(self, error: ScenarioError | None) -> None:
        self.engine = replace(self.engine, error=error)
        self.refresh_shown()

    def _start_engine(self) -> None:
        from kernel_tui.ui.engine_worker import start_engine

        self.run_worker(
            partial(start_engine, self.link, self.post_message),
            thread=True,
            exclusive=True,
            exit_on_error=False,
            group="engine-start",
        )

    def _run_engine(self, run_id: int, path: Path, messages: Iterator[RunMessage]) -> None:
        from kernel_tui.ui.engine_worker import stream_run

        self.run_worker(
            partial(stream_run, run_id, path, messages, self.post_message),
            thread=True,
            exclusive=True,
            exit_on_error=False,
            group="engine",
        )

    def _cancel_active(self) -> ScenarioRun | None:
        cancelled = self.runs.cancel(self.clock())
        if cancelled is not None:
            cancelled.output_to = self.link.output_mark()
            self.workers.cancel_group(self, "engine")
            self.link.cancel()
        return cancelled

    def action_cancel(self) -> None:
        """Stop the engine; the app stays usable and the next run starts a fresh engine."""
        cancelled = self._cancel_active()
        if cancelled is None:
            return
        # Cancel ended the engine: start the next one now, as after a crash, so "engine ready" stays true.
        self.hello = None
        self._start_engine()
        self.snippets.run_ended(cancelled)

    def warming_ended(self) -> None:
        """Forget the first compile's start once the engine says it ended (the status line stops counting)."""
        if self.engine.warmup_since is None or self.engine.hello is None or self.engine.hello.warmup is None:
            return
        if self.link.warmup_result() is not None:
            self.engine = replace(self.engine, warmup_since=None)

    def on_engine_started(self, message: EngineStarted) -> None:
        warmup_since = self.clock() if message.hello.warmup is not None else None
        self.engine = EngineState(message.hello, None, warmup_since)
        book = self.why.predictions
        book.use_device(message.hello.device, book.arch)  # lessons ask this device's claims
        self.refresh_shown()

    def on_engine_start_failed(self, message: EngineStartFailed) -> None:
        self.engine_error = message.error

    def on_stage_started(self, message: StageStarted) -> None:
        if (run := self.runs.live(message.run_id)) is not None:
            run.stage_started(message.stage, message.detail, message.total)
            self.refresh_shown()

    def on_report_updated(self, message: ReportUpdated) -> None:
        if (run := self.runs.live(message.run_id)) is not None:
            run.report = message.report
            self.refresh_shown()
            self.reply(self.why.reveal_if_measured(run))

    def on_sweep_point_measured(self, message: SweepPointMeasured) -> None:
        if (run := self.runs.live(message.run_id)) is not None:
            run.point_measured(message.point)
            self.refresh_shown()

    def on_run_finished(self, message: RunFinished) -> None:
        run = self.runs.live(message.run_id)
        if run is None:
            return
        run.finished(message.report, self.clock())
        run.output_to = self.link.output_mark()
        self.runs.ended(run)
        self.refresh_shown()
        self.snippets.run_ended(run)
        self.reply(self.why.reveal_if_measured(run))

    def on_run_failed(self, message: RunFailed) -> None:
        run = self.runs.live(message.run_id)
        if run is None:
            return
        run.failed(message.error, self.clock(), cancelled=message.cancelled)
        run.output_to = self.link.output_mark()
        self.runs.ended(run)
        if message.error.stage == "engine":
            # The engine is gone (crash, hang, cancel): start the next one now, while the learner reads
            # what happened, so the next run does not wait for torch to import.
            self.hello = None
            self._start_engine()
        self.refresh_shown()
        self.snippets.run_ended(run)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A worker that raised (a bug, not an engine death) ends its run with the traceback as details."""
        worker = event.worker
        if event.state is not WorkerState.ERROR or worker.group not in ("engine", "engine-start"):
            return
        from kernel_tui.ui.engine_worker import worker_failure
        from kernel_tui.ui.messages import EngineStartFailed, RunFailed

        failure = worker_failure(worker)
        if worker.group == "engine-start":
            self.on_engine_start_failed(EngineStartFailed(failure))
        elif self.runs.active is not None:
            self.on_run_failed(RunFailed(self.runs.active.run_id, self.runs.active.path, failure))
