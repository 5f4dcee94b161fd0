"""A stand-in engine that replays recorded message sequences: for tests, the startup bench and screenshots.

A recording is what the real engine sent for one scenario (``tests/data/*_messages.json``, made by
``tests/data/record_messages.py``): its hello and the protocol messages of one run, sweep included, each as
the wire object the protocol's decoder reads. Replaying it through the same ``EngineLink`` interface lets the
app be driven exactly as the engine drives it, without torch, at whatever pace a test chooses (``gate``).
"""

from __future__ import annotations

import collections
import json
import threading
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.scenario.expect import NEEDS_SWEEP
from kernel_tui.transport import protocol
from kernel_tui.transport.engine_died import EngineDied
from kernel_tui.transport.protocol import (
    Done,
    Hello,
    Partial,
    RunMessage,
    StageStartedMessage,
    SweepPointMessage,
    Warmup,
)
from kernel_tui.ui.link.run_lifecycle import EngineRun, RunLifecycle, RunMessages, take_turn

if TYPE_CHECKING:
    from kernel_tui.ui.link.engine_link import CompileVariants


@dataclass(frozen=True)
class Recording:
    """One run of one scenario as the engine sent it."""

    hello: Hello
    scenario: str
    """The scenario's file name; a run of any file with this name replays this recording."""
    messages: tuple[RunMessage, ...]

    @classmethod
    def load(cls, path: str | Path) -> Recording:
        """Raises ProtocolError for a recording of another protocol version: record it again."""
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        hello = protocol.decode_object(data["hello"])
        if not isinstance(hello, Hello):
            raise protocol.ProtocolError(f"{path}: a recording starts with a hello, not {hello}")
        messages: list[RunMessage] = []
        for item in data["messages"]:
            message = protocol.decode_object(item)
            if not isinstance(message, RunMessage):
                raise protocol.ProtocolError(f"{path}: a recording holds one run's messages, not {message}")
            messages.append(message)
        return cls(hello=hello, scenario=data["scenario"], messages=tuple(messages))

    def to_json_object(self) -> dict[str, Any]:
        """What ``load`` reads back: each message as its protocol line says it."""
        return {
            "hello": json.loads(protocol.encode(self.hello)),
            "scenario": self.scenario,
            "messages": [json.loads(protocol.encode(message)) for message in self.messages],
        }

    def recorded_path(self) -> str | None:
        for message in self.messages:
            if isinstance(message, (Partial, Done)):
                return message.report.scenario
        return None


Condition = Callable[[RunMessage], bool]


def killed() -> EngineDied:
    """How a replayed run ends when it is cancelled or the app closes: as the real engine's, killed."""
    return EngineDied(-9, "")


class ReplayGate:
    """Holds a replay's messages back until a test lets them through, by what they are rather than by how
    many there are: recording a fixture again (a stage more, a point less) then breaks no test."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._released: collections.deque[Condition | None] = collections.deque()
        """Each a release still to be used up: messages pass until one matches its condition, which passes
        too and ends it; None lets every message pass from then on."""

    def release_until(self, *, kind: type[RunMessage] | None = None, stage: str | None = None) -> None:
        """Let messages through up to and including the next one of ``kind`` (``StageStartedMessage``, ``Partial``,
        ``SweepPointMessage``, ``Done``) and, given ``stage``, the next progress message of that stage."""
        if kind is None and stage is None:
            raise ValueError("release_until needs a kind or a stage to stop at")

        def matches(message: RunMessage) -> bool:
            if kind is not None and not isinstance(message, kind):
                return False
            return stage is None or (isinstance(message, StageStartedMessage) and message.stage == stage)

        self._release(matches)

    def release_all(self) -> None:
        """Let every message through, of this run and of any later one."""
        self._release(None)

    def wake(self) -> None:
        """A reader waiting in ``admit`` asks its ``given_up`` again (its run was cancelled)."""
        with self._changed:
            self._changed.notify_all()

    def _release(self, condition: Condition | None) -> None:
        with self._changed:
            self._released.append(condition)
            self._changed.notify_all()

    def admit(self, message: RunMessage, timeout: float | None, given_up: Callable[[], bool] | None = None) -> bool:
        """Whether ``message`` may pass now, waiting up to ``timeout`` for a release that lets it, or until
        ``given_up`` (asked whenever ``wake`` is called) says the reader no longer wants it."""
        with self._changed:
            if not self._changed.wait_for(lambda: self._released or (given_up is not None and given_up()), timeout):
                return False
            if not self._released:
                return False
            condition = self._released[0]
            if condition is not None and condition(message):
                self._released.popleft()
            return True


Link = TypeVar("Link", bound="ReplayEngineLink")
"""``ReplayEngineLink`` or a subclass: ``from_files`` makes one of the class it is called on."""


@dataclass
class ReplayEngineLink:
    """An ``EngineLink`` that plays recordings back instead of measuring."""

    recordings: dict[str, Recording]
    gate: ReplayGate | None = None
    """When set, each message waits until the gate lets it through: a test decides when it arrives."""
    start_error: EngineDied | None = None
    """When set, ``start`` fails with it, as an engine that cannot import torch would."""
    runs: list[tuple[Path, bool]] = field(default_factory=list)
    """Each run asked for, as (path, sweep): what a test asserts about."""
    sizes: list[int | None] = field(default_factory=list)
    """The size each run asked for (None: the scenario's own); replaying ignores it."""
    variants: list[CompileVariants | None] = field(default_factory=list)
    """The compile variants each run asked for (None: the file's own); replaying ignores them."""
    log_path: Path | None = None
    """No engine runs, so nothing is logged."""

    def __post_init__(self) -> None:
        # The same rules as the real link: runs are numbered when asked for, one runs at a time, and a
        # cancel stops every run asked for before it.
        self.lifecycle = RunLifecycle()

    @classmethod
    def from_files(cls: type[Link], *paths: str | Path, **options: Any) -> Link:
        recordings = [Recording.load(path) for path in paths]
        return cls({recording.scenario: recording for recording in recordings}, **options)

    def start(self) -> Hello:
        if self.start_error is not None:
            raise self.start_error
        if not self.recordings:
            raise EngineDied(None, "", "no recordings to replay")
        return next(iter(self.recordings.values())).hello

    def warmup_result(self) -> Warmup | None:
        """The recorded engines announce no warm-up (``Hello.warmup``), so there is none to end."""
        return None

    def run(
        self, path: Path, *, sweep: bool, size: int | None = None, variants: CompileVariants | None = None
    ) -> RunMessages:
        self.runs.append((Path(path), sweep))
        self.sizes.append(size)
        self.variants.append(variants)
        run = self.lifecycle.ask(Path(path))
        return RunMessages(run, self._messages(run, Path(path), sweep))

    def _messages(self, run: EngineRun, path: Path, sweep: bool) -> Generator[RunMessage, None, None]:
        try:
            take_turn(self.lifecycle, run)
        except EngineDied:
            raise killed() from None
        reported = False
        try:
            self.start()
            recording = self.recordings.get(path.name)
            if recording is None:
                raise EngineDied(1, "", f"no recording for {path.name}")
            for replayed in _replayed(recording, path, sweep):
                # The engine answers with the number the link gave the run, as the real one does.
                message = replace(replayed, run_id=run.run_id)
                self._wait_for_turn(run, message)
                reported = isinstance(message, Done)
                yield message
        finally:
            self.lifecycle.ended(run, report=reported)

    def _wait_for_turn(self, run: EngineRun, message: RunMessage) -> None:
        if self.gate is not None:
            self.gate.admit(message, timeout=None, given_up=lambda: run.stopping)
        if run.stopping:
            raise killed()

    def cancel(self) -> None:
        self.lifecycle.cancel()
        if self.gate is not None:
            self.gate.wake()

    def close(self) -> None:
        self.lifecycle.close()
        if self.gate is not None:
            self.gate.wake()

    def output(self, since: int = 0, until: int | None = None) -> str:
        return ""

    def output_mark(self) -> int:
        return 0


def _replayed(recording: Recording, path: Path, sweep: bool) -> Iterator[RunMessage]:
    """The recording as a run of ``path`` would send it: paths rewritten, the sweep left out if not asked."""
    recorded = recording.recorded_path()
    for message in recording.messages:
        if not sweep and (
            isinstance(message, SweepPointMessage)
            or (isinstance(message, StageStartedMessage) and message.stage == "sweep")
        ):
            continue
        if isinstance(message, StageStartedMessage):
            yield replace(message, detail=_rewrite_paths(message.detail, recorded, str(path)))
        elif isinstance(message, (Partial, Done)):
            yield replace(message, report=_replayed_report(message.report, recorded, str(path), sweep))
        else:
            yield message


def _replayed_report(report: ScenarioReport, recorded: str | None, path: str, sweep: bool) -> ScenarioReport:
    report = ScenarioReport.from_dict(_rewrite_paths(report.to_dict(), recorded, path))
    if sweep:
        return report
    expect = {claim: check for claim, check in report.expect.items() if claim not in NEEDS_SWEEP}
    return replace(report, sweep=(), sweep_strategy=None, sweep_compiles=None, expect=expect)


def _rewrite_paths(value: Any, old: str | None, new: str) -> Any:
    if old is None:
        return value
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, dict):
        return {key: _rewrite_paths(item, old, new) for key, item in value.items()}
    if isinstance(value, list):
        return [_rewrite_paths(item, old, new) for item in value]
    return value
