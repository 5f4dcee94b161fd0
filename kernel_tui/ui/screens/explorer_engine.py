"""The explorer's side of the engine: start it, stream a run through a thread worker, take in what it says.

The worker (``kernel_tui.ui.engine_worker``) posts the protocol's messages back as they are, each in the one
envelope ``EngineSaid`` (``kernel_tui.ui.messages``); a message of a run that was cancelled or replaced is
dropped (``RunBook.live``), and a live run's are folded into its record (``transport.run_record.fold``).
Each message changes the screen's plain state (the run it is about, the engine's hello) and then the
explorer's funnel shows that state again, once (``ExplorerScreen.on_idle``). The worker's module and the
messages are imported with the first run, after the first frame.
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
    from kernel_tui.ui.messages import EngineSaid, RunEnded
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

    @property
    def engine_error(self) -> ScenarioError | None:
        """Why the engine could not start, if it could not."""
        return self.engine.error

    @engine_error.setter
    def engine_error(self, error: ScenarioError | None) -> None:
        self.engine = replace(self.engine, error=error)

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

    def on_engine_said(self, said: EngineSaid) -> None:
        """The one door for what the engine side says: the protocol's message as it came, or the link's."""
        from kernel_tui.transport.protocol import Done, Hello, Partial
        from kernel_tui.ui.messages import RunEnded, StartFailed

        news = said.news
        if isinstance(news, Hello):
            warmup_since = self.clock() if news.warmup is not None else None
            self.engine = EngineState(news, None, warmup_since)
        elif isinstance(news, StartFailed):
            self.engine_error = news.error
        elif isinstance(news, RunEnded):
            self._run_ended(news)
        elif (run := self.runs.live(news.run_id)) is not None:
            # The run's own messages are folded into its record, the CLI's way (``transport.run_record``).
            run.take(news, self.clock())
            if isinstance(news, Done):
                run.output_to = self.link.output_mark()
                self.runs.ended(run)
                self.snippets.run_ended(run)
            if isinstance(news, (Partial, Done)):
                self.reply(self.why.reveal_if_measured(run))

    def _run_ended(self, ended: RunEnded) -> None:
        run = self.runs.live(ended.run_id)
        if run is None:
            return
        run.ended_without_report(ended.error, self.clock(), cancelled=ended.cancelled)
        run.output_to = self.link.output_mark()
        self.runs.ended(run)
        if ended.error.stage == "engine":
            # The engine is gone (crash, hang, cancel): start the next one now, while the learner reads
            # what happened, so the next run does not wait for torch to import.
            self.hello = None
            self._start_engine()
        self.snippets.run_ended(run)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A worker that raised (a bug, not an engine death) ends its run with the traceback as details."""
        worker = event.worker
        if event.state is not WorkerState.ERROR or worker.group not in ("engine", "engine-start"):
            return
        from kernel_tui.ui.engine_worker import worker_failure
        from kernel_tui.ui.messages import EngineSaid, RunEnded, StartFailed

        failure = worker_failure(worker)
        if worker.group == "engine-start":
            self.on_engine_said(EngineSaid(StartFailed(failure)))
        elif (active := self.runs.active) is not None:
            self.on_engine_said(EngineSaid(RunEnded(active.run_id, failure), active.path))
