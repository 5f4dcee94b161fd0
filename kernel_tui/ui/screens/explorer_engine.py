"""The explorer's side of the engine: start it, stream a run through a thread worker, take in what it says.

``EngineSide`` is a part the explorer holds, not a half of it: the screen hands it the one envelope its worker
posts (``EngineSaid``, ``kernel_tui.ui.link.messages``: the protocol's message as it is, or the link's word where the
engine said nothing) and the keys that stop a run. A message of a run that was cancelled or replaced is dropped
(``RunBook.live``), and a live run's are folded into its record (``transport.run_record.fold``). What it
changes is the explorer's ``ExplorerState``, through its transitions (a run's start, messages, end and cancel in
the run book; the engine's ``EngineState``); the explorer's funnel shows it afterwards
(``ExplorerScreen.on_idle``). The worker's module and the protocol are imported with the first run, after the
first frame.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from textual.worker import Worker, WorkerState

if TYPE_CHECKING:
    from textual.screen import Screen

    from kernel_tui.transport.protocol import RunMessage
    from kernel_tui.ui.link.engine_link import EngineLink
    from kernel_tui.ui.link.messages import EngineSaid, RunEnded
    from kernel_tui.ui.screens.asked import Reply
    from kernel_tui.ui.screens.snippets import SnippetWorkbench
    from kernel_tui.ui.screens.why import WhyPart
    from kernel_tui.ui.state.explorer_state import EngineState, ExplorerState
    from kernel_tui.ui.state.run_state import RunBook, ScenarioRun


class HoldsState(Protocol):
    """The screen whose ``ExplorerState`` holds the engine's state."""

    state: ExplorerState


class EngineSide:
    """What the engine's worker says, taken in; the engine started, a run streamed or cancelled."""

    def __init__(
        self,
        screen: Screen[Any],
        link: EngineLink,
        clock: Callable[[], float],
        runs: RunBook,
        parts: tuple[SnippetWorkbench, WhyPart],
        reply: Callable[[list[Reply]], None],
    ) -> None:
        self._screen = screen
        """Where the workers run and post to."""
        self.link = link
        self.clock = clock
        self.runs = runs
        self.snippets, self.why = parts
        self.reply = reply
        """Shows what the prediction part hands back when a run measured its guess."""
        self._holder = cast("HoldsState", screen)

    @property
    def state(self) -> EngineState:
        """The engine's hello, why it could not start, and when its first compile began: the explorer's state's."""
        return self._holder.state.engine

    @state.setter
    def state(self, engine: EngineState) -> None:
        self._holder.state = self._holder.state.engine_changed(engine)

    def start(self) -> None:
        """Start an engine in a worker, while the learner reads."""
        from kernel_tui.ui.link.engine_worker import start_engine

        self._screen.run_worker(
            partial(start_engine, self.link, self._screen.post_message),
            thread=True,
            exclusive=True,
            exit_on_error=False,
            group="engine-start",
        )

    def stream(self, run_id: int, path: Path, messages: Iterator[RunMessage]) -> None:
        """Read a run's messages in a worker, which posts each to the screen in its envelope."""
        from kernel_tui.ui.link.engine_worker import stream_run

        self._screen.run_worker(
            partial(stream_run, run_id, path, messages, self._screen.post_message),
            thread=True,
            exclusive=True,
            exit_on_error=False,
            group="engine",
        )

    def cancel_active(self) -> ScenarioRun | None:
        """Cancel the run the engine works on, if any; returns it."""
        cancelled = self.runs.active
        if cancelled is not None:
            holder = self._holder
            holder.state = holder.state.run_cancelled(self.clock(), output_to=self.link.output_mark())
            self._screen.workers.cancel_group(self._screen, "engine")
            self.link.cancel()
        return cancelled

    def cancel(self) -> None:
        """Esc: stop the engine; the app stays usable and the next run starts a fresh engine."""
        cancelled = self.cancel_active()
        if cancelled is None:
            return
        # Cancel ended the engine: start the next one now, as after a crash, so "engine ready" stays true.
        self.state = replace(self.state, hello=None)
        self.start()
        self.snippets.run_ended(cancelled)

    def warming_ended(self) -> None:
        """Forget the first compile's start once the engine says it ended (the status line stops counting)."""
        if self.state.warmup_since is None or self.state.hello is None or self.state.hello.warmup is None:
            return
        if self.link.warmup_result() is not None:
            self.state = replace(self.state, warmup_since=None)

    def take(self, said: EngineSaid) -> None:
        """The one door for what the engine side says: the protocol's message as it came, or the link's."""
        from kernel_tui.transport.protocol import Done, Hello, Partial
        from kernel_tui.ui.link.messages import RunEnded, StartFailed

        news = said.news
        holder = self._holder
        if isinstance(news, Hello):
            holder.state = holder.state.engine_said_hello(news, self.clock())  # lessons ask its device's claims
        elif isinstance(news, StartFailed):
            self.state = replace(self.state, error=news.error)
        elif isinstance(news, RunEnded):
            self._run_ended(news)
        elif (run := self.runs.live(news.run_id)) is not None:
            # The run's own messages are folded into its record, the CLI's way (``transport.run_record``).
            output_to = self.link.output_mark() if isinstance(news, Done) else None
            holder.state = holder.state.run_said(run, news, self.clock(), output_to=output_to)
            if isinstance(news, Done):
                self.snippets.run_ended(run)
            if isinstance(news, (Partial, Done)):
                self.reply(self.why.reveal_if_measured(run))

    def _run_ended(self, ended: RunEnded) -> None:
        run = self.runs.live(ended.run_id)
        if run is None:
            return
        holder = self._holder
        holder.state = holder.state.run_ended_early(
            run, ended.error, self.clock(), cancelled=ended.cancelled, output_to=self.link.output_mark()
        )
        if ended.error.stage == "engine":
            # The engine is gone (crash, hang, cancel): start the next one now, while the learner reads
            # what happened, so the next run does not wait for torch to import.
            self.state = replace(self.state, hello=None)
            self.start()
        self.snippets.run_ended(run)

    def worker_changed(self, event: Worker.StateChanged) -> None:
        """A worker that raised (a bug, not an engine death) ends its run with the traceback as details."""
        worker = event.worker
        if event.state is not WorkerState.ERROR or worker.group not in ("engine", "engine-start"):
            return
        from kernel_tui.ui.link.engine_worker import worker_failure
        from kernel_tui.ui.link.messages import EngineSaid, RunEnded, StartFailed

        failure = worker_failure(worker)
        if worker.group == "engine-start":
            self.take(EngineSaid(StartFailed(failure)))
        elif (active := self.runs.active) is not None:
            self.take(EngineSaid(RunEnded(active.record.run_id, failure), active.record.path))
