"""``gpu-check``'s live preview: the CUDA preview made on the GPU machine's own torch, so that a difference from the
GPU is the preview's and not another torch's naming; each lesson in a fresh engine started while the lesson before
it previews, on a budget of its own.

On the H200 (torch 2.11) the preview never ran, and the table said only "no preview on this torch". It had not
failed: the check ran it as ``kernel-tui run --device cuda-preview``, a fresh engine per lesson (each a fresh
torch and Triton import on the GPU machine, each faking a device and generating code with Inductor's caches off),
in what the course had left of 270 s, about 124 s for 29 engines. Now the preview has a budget of its own, and its
engines are the CLI's: forked from a fork server that has torch and Inductor imported, each lesson's started while
the lesson before it previews (one engine per scenario, as every front end runs them; a lesson's preview takes a
tenth of a second to a second once its engine is up: the course in one engine took 10.6 s on torch 2.14.1 and
20.7 s on torch 2.11 on two busy cores without a GPU, and ``BUDGET_S`` leaves room for the engines' starts beside
it). An engine that dies on a lesson takes only that lesson.

Every lesson without a live report has its reason, in its own row of the table: this torch refused to preview,
the engine died on that lesson (its stderr is in the lesson's log), or the budget ran out and where. No torch is
imported.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from kernel_tui.transport.client import EngineClient
from kernel_tui.transport.engine_died import EngineDied
from kernel_tui.transport.protocol import ARCHES
from kernel_tui.transport.run_record import RunRecord, fold

if TYPE_CHECKING:
    from kernel_tui.model.report.report import ScenarioReport
    from kernel_tui.transport.protocol import Arch
    from tools.gpu_check.logs import LessonLogs

BUDGET_S = 120.0
"""The live preview's own time, after the course's: six times what the course's preview took in one engine on
two busy cores (20.7 s, torch 2.11). The course's 270 s is the GPU's, and gives the preview nothing."""
START_TIMEOUT_S = 60.0
"""How long the preview engine may take to say hello (it imports torch and Triton, and fakes a device)."""


@dataclass(frozen=True)
class LivePreview:
    """What the live preview made of the course: a report per lesson it previewed, why for every other."""

    reports: dict[str, ScenarioReport] = field(default_factory=dict)
    """Per lesson file name, the preview's report (with an error where the preview failed on the lesson)."""
    missing: dict[str, str] = field(default_factory=dict)
    """Per lesson file name with no report, why not."""
    seconds: float = 0.0
    budget_s: float = BUDGET_S
    torch_version: str | None = None
    """The torch the preview engine said hello with; None if none did."""

    def why_not(self, name: str) -> str:
        """Why lesson ``name`` has no live preview."""
        return self.missing.get(name, "the live preview did not run")

    def summary(self, count: int) -> str:
        """One line for the table's header: how many lessons were previewed live, in what time."""
        previewed = f"{len(self.reports)}/{count} lessons previewed live"
        on = f" on torch {self.torch_version}" if self.torch_version else ""
        return f"{previewed}{on} in {self.seconds:.0f} s of the preview's own {self.budget_s:.0f} s"


def live_preview(
    scenarios: list[Path],
    arch: int,
    env: dict[str, str],
    logs: LessonLogs,
    budget_s: float = BUDGET_S,
    command: list[str] | None = None,
) -> LivePreview:
    """Preview ``scenarios`` for ``arch`` in one engine, each lesson within what is left of ``budget_s``;
    ``command``: the engine's (the tests' stand-in)."""
    started = time.monotonic()
    deadline = started + budget_s
    reports: dict[str, ScenarioReport] = {}
    missing: dict[str, str] = {}
    torch_version: str | None = None
    lesson_sink: Callable[[str], None] = _nowhere

    def sink(line: str) -> None:
        # One lesson at a time: a line belongs to the lesson being previewed (the next lesson's engine, starting
        # meanwhile, writes little, and that little lands in this lesson's log).
        lesson_sink(line)

    client = EngineClient("cuda-preview", stderr_sink=sink, command=command, env=env, arch=_arch(arch))
    previewing: Path | None = None
    """The lesson the engine is at: a check stopped meanwhile says so in that lesson's log."""
    try:
        for number, path in enumerate(scenarios):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                after = f"after {number} of {len(scenarios)} lessons" if number else "before its first lesson"
                missing[path.name] = f"the live preview's {budget_s:.0f} s ran out {after}"
                continue
            lesson_sink = logs.section(path, f"the live preview's engine (--device cuda-preview, sm_{arch})")
            starting, previewing = not client.running, path
            try:
                hello = client.start(timeout=min(remaining, START_TIMEOUT_S))
                torch_version = hello.torch_version
                if starting:
                    logs.note(path, f"engine pid {hello.pid} started: torch {hello.torch_version}")
            except EngineDied as death:
                why = _refused(death)
                logs.note(path, f"ended: {why}")
                # An engine that cannot start will not start for the next lesson either.
                missing.update({later.name: why for later in scenarios[number:]})
                break
            record = RunRecord(client.next_run_id(), path, sweep=False)
            try:
                last = number == len(scenarios) - 1
                runs = client.run(
                    str(path), sweep=False, timed=False, timeout=remaining, run_id=record.run_id, then_another=not last
                )
                for message in runs:
                    record = fold(record, message)
            except EngineDied as death:
                logs.note(path, f"ended: {death.describe()}")
                if time.monotonic() >= deadline:
                    missing[path.name] = f"the live preview's {budget_s:.0f} s ran out on this lesson"
                else:
                    missing[path.name] = f"the preview engine died on this lesson: {death.describe()}"
                continue
            assert record.report is not None, "the client's runs end with Done"
            reports[path.name] = record.report
    finally:
        stopped_by = sys.exc_info()[1]  # SIGTERM, Ctrl-C or a fault of the check's own, on its way out
        if stopped_by is not None and previewing is not None:
            logs.note(previewing, f"ended: the check stopped while the preview engine ran ({stopped_by!r})")
        client.close()
    return LivePreview(reports, missing, time.monotonic() - started, budget_s, torch_version)


def _arch(arch: int) -> Arch:
    if arch not in ARCHES:
        raise ValueError(f"no preview for sm_{arch}: the preview knows {', '.join(map(str, ARCHES))}")
    return arch


def _nowhere(line: str) -> None:
    """Where a line goes before the first lesson's log is open (none comes: the engine starts after)."""


def _refused(death: EngineDied) -> str:
    if death.refusal:
        return f"this torch cannot preview: {death.refusal}"
    return f"the preview engine did not start: {death.describe()}"
