"""``gpu-check``'s measurement of the course: each lesson in an engine of its own, as ``kernel-tui run`` measures
it, with that engine's stderr kept whole in the lesson's log (``logs``).

The check used to run ``kernel-tui run`` as a child, which starts each lesson's engine while the lesson before
runs and passes every engine's stderr on to one stream: which engine a line came from was lost, and a spare that
crashed while it started would have written among the previous lesson's lines. Here each lesson's engine is an
engine client of its own whose stderr goes to its lesson's log, started the way the CLI starts them (the first
cold, each next one started while the lesson before runs and warmed up, unless ``KERNEL_TUI_WARM_UP=0``, as the
CLI's spares are: the path a user's run takes, crashes included), and ended once its lesson is measured. The run
settings are the CLI's for ``--no-sweep --trace DIR``. No torch is imported.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from kernel_tui.transport.boot import warm_up_wanted
from kernel_tui.transport.client import EngineClient
from kernel_tui.transport.engine_died import EngineDied
from kernel_tui.transport.run_record import RunRecord, died_report, engine_facts, fold
from kernel_tui.transport.spare_engine import SpareEngine

if TYPE_CHECKING:
    from kernel_tui.model.report.report import ScenarioReport
    from kernel_tui.transport.protocol import Hello
    from tools.gpu_check.logs import LessonLogs

START_TIMEOUT_S = 120.0
"""How long an engine may take to say hello, as for any client (``EngineClient.start``'s default)."""


def measure_course(
    scenarios: list[Path],
    device: str,
    trace_dir: Path,
    deadline: float,
    env: dict[str, str],
    logs: LessonLogs,
    command: list[str] | None = None,
) -> Iterator[tuple[Path, ScenarioReport]]:
    """Each scenario with its report as it is measured on ``device``, until ``deadline`` (``time.monotonic``): the
    lesson running then is stopped and reported so, and the ones after it are not run. A generator, so that a
    check stopped midway keeps every report that came before. ``command``: the engine's (the tests' stand-in)."""
    warm_up = warm_up_wanted(env)
    spare: SpareEngine[EngineClient] | None = None
    try:
        for number, path in enumerate(scenarios):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                logs.note(path, "not run: the course's time budget was spent before this lesson")
                continue
            taken, spare = spare, None
            engine = taken.client if taken is not None else _client(path, device, env, logs, False, command)
            hello: Hello | None = None
            record = RunRecord(engine.next_run_id(), path, sweep=False)
            try:
                if taken is not None and not taken.ready():
                    logs.note(path, "its engine, started while the lesson before ran, did not start: starting one now")
                hello = engine.start(timeout=min(remaining, START_TIMEOUT_S))
                logs.note(
                    path, f"engine pid {hello.pid}: {hello.device_name or hello.device}, torch {hello.torch_version}"
                )
                if number + 1 < len(scenarios):
                    # Started as the run is sent, as the CLI starts its spare: it imports torch meanwhile.
                    spare = SpareEngine(_client(scenarios[number + 1], device, env, logs, warm_up, command))
                for message in engine.run(
                    str(path),
                    sweep=False,
                    timeout=max(deadline - time.monotonic(), 1.0),
                    trace_dir=str(trace_dir),
                    run_id=record.run_id,
                    then_another=False,
                ):
                    record = fold(record, message)
                assert record.done and record.report is not None, "the client's runs end with Done"
                report = record.report
                logs.note(path, _ending(report))
            except EngineDied as death:
                report = died_report(record, death.error(path), engine_facts(hello, device), size=None)
                logs.note(path, f"ended: {death.describe()}")
            finally:
                stopped_by = sys.exc_info()[1]  # SIGTERM, Ctrl-C or a fault of the check's own, on its way out
                if stopped_by is not None:
                    logs.note(path, f"ended: the check stopped while its engine ran ({stopped_by!r})")
                if taken is not None:
                    taken.drop()  # ends it even while it still starts: no engine outlives the check
                else:
                    engine.close()
            print(f"gpu-check: {number + 1}/{len(scenarios)} measured", file=sys.stderr, flush=True)
            yield path, report
    finally:
        if spare is not None:
            spare.drop()


def _client(
    path: Path, device: str, env: dict[str, str], logs: LessonLogs, warm_up: bool, command: list[str] | None
) -> EngineClient:
    """An engine for ``path`` alone: this module starts the next itself, to give each its own log."""
    started = "warmed up" if warm_up else "cold"
    sink = logs.section(path, f"the GPU's engine (--device {device}, {started}): its stderr")
    return EngineClient(device, stderr_sink=sink, command=command, env=env, warm_up=warm_up)


def _ending(report: ScenarioReport) -> str:
    if report.error is None:
        return "ended: measured"
    return f"ended: measured with an error at {report.error.stage}: {report.error.short_line()}"
