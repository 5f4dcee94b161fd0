"""What the explorer's engine threads do: start the engine, and stream one run's messages, typed.

Each runs in a Textual thread worker, never on the UI's thread, and reports only by posting the protocol's
messages as they are, each in one envelope (``kernel_tui.ui.link.messages.EngineSaid``), to the screen that
started it; that screen's ``RunBook`` decides which of them still matter.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message
from textual.worker import Worker, get_current_worker

from kernel_tui.model.death.engine_death import engine_error
from kernel_tui.ui.link.messages import EngineSaid, RunEnded, StartFailed
from kernel_tui.ui.link.run_lifecycle import RunMessages

if TYPE_CHECKING:
    from kernel_tui.model.report.report import ScenarioError
    from kernel_tui.transport.protocol import RunMessage
    from kernel_tui.ui.link.engine_link import EngineLink

Post = Callable[[Message], object]
NO_REPORT = "the engine ended the run without a report"


def start_engine(link: EngineLink, post: Post) -> None:
    """Start the engine while the learner reads, so the first run does not wait for torch to import."""
    # The client and the protocol are imported here, in the worker, after the explorer's first frame.
    from kernel_tui.transport.engine_died import EngineDied

    try:
        hello = link.start()
    except EngineDied as death:
        post(EngineSaid(StartFailed(death.error())))
    else:
        post(EngineSaid(hello))


def stream_run(run_id: int, path: Path, messages: Iterator[RunMessage], post: Post) -> None:
    """Post one run's messages (``EngineLink.run``'s ``RunMessages``) until its report (or the engine's
    death, or a cancel)."""
    from kernel_tui.transport.engine_died import EngineDied
    from kernel_tui.transport.protocol import Done
    from kernel_tui.transport.run_record import RunRecord, fold

    worker = get_current_worker()
    # The run as far as it went, here too: an engine that dies is reported with the stage it was in.
    record = RunRecord(run_id, path, sweep=False)
    run = messages.run if isinstance(messages, RunMessages) else None

    def cancelled() -> bool:
        # The explorer cancels the worker and the run together; the app closing stops the run alone.
        return worker.is_cancelled or (run is not None and run.stopping)

    try:
        for message in messages:
            if cancelled():
                return
            post(EngineSaid(message, path))
            record = fold(record, message)
            if isinstance(message, Done):
                return
        post(EngineSaid(RunEnded(run_id, engine_error(NO_REPORT, file=path)), path))
    except EngineDied as death:
        post(EngineSaid(RunEnded(run_id, death.error(path, record), cancelled=cancelled()), path))
    finally:
        if isinstance(messages, RunMessages):
            messages.close()


def worker_failure(worker: Worker[object]) -> ScenarioError:
    """A worker that raised (a bug, not an engine death), as an engine error with the traceback as details."""
    error = worker.error
    details = "".join(traceback.format_exception(error)) if error is not None else ""
    return engine_error(f"the app failed talking to the engine: {error!r}", details=details)
