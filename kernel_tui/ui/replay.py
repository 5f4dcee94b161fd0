"""A stand-in engine that replays recorded message sequences: for tests, the startup bench and screenshots.

A recording is what the real engine sent for one scenario (``tests/data/*_messages.json``, made by
``tests/data/record_messages.py``): its hello and the protocol dicts of one run, sweep included. Replaying
it through the same ``EngineLink`` interface lets the app be driven exactly as the engine drives it,
without torch, at whatever pace a test chooses (``gate``: one message per release).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kernel_tui.client import EngineDied
from kernel_tui.expect import NEEDS_SWEEP


@dataclass(frozen=True)
class Recording:
    """One run of one scenario as the engine sent it."""

    hello: dict[str, Any]
    scenario: str
    """The scenario's file name; a run of any file with this name replays this recording."""
    messages: tuple[dict[str, Any], ...]

    @classmethod
    def load(cls, path: str | Path) -> Recording:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return cls(hello=data["hello"], scenario=data["scenario"], messages=tuple(data["messages"]))

    def recorded_path(self) -> str | None:
        for message in self.messages:
            if "report" in message:
                return message["report"].get("scenario")
        return None


@dataclass
class ReplayEngineLink:
    """An ``EngineLink`` that plays recordings back instead of measuring."""

    recordings: dict[str, Recording]
    gate: threading.Semaphore | None = None
    """When set, each message waits for one ``release()``: a test decides when the next one arrives."""
    start_error: EngineDied | None = None
    """When set, ``start`` fails with it, as an engine that cannot import torch would."""
    runs: list[tuple[Path, bool]] = field(default_factory=list)
    """Each run asked for, as (path, sweep): what a test asserts about."""
    sizes: list[int | None] = field(default_factory=list)
    """The size each run asked for (None: the scenario's own); replaying ignores it."""

    def __post_init__(self) -> None:
        # The same rules as the real link: runs are numbered when asked for, one runs at a time, and a
        # cancel stops every run asked for before it.
        self._busy = threading.Lock()
        self._requested = 0
        self._cancelled_upto = 0
        self._closed = False

    @classmethod
    def from_files(cls, *paths: str | Path, **options: Any) -> ReplayEngineLink:
        recordings = [Recording.load(path) for path in paths]
        return cls({recording.scenario: recording for recording in recordings}, **options)

    def start(self) -> dict[str, Any]:
        if self.start_error is not None:
            raise self.start_error
        return dict(next(iter(self.recordings.values())).hello) if self.recordings else {}

    def run(self, path: Path, *, sweep: bool, size: int | None = None) -> Iterator[dict[str, Any]]:
        self._requested += 1
        self.runs.append((Path(path), sweep))
        self.sizes.append(size)
        return self._messages(self._requested, Path(path), sweep)

    def _messages(self, number: int, path: Path, sweep: bool) -> Iterator[dict[str, Any]]:
        with self._busy:
            self.start()
            recording = self.recordings.get(path.name)
            if recording is None:
                raise EngineDied(1, "", f"no recording for {path.name}")
            for message in _replayed(recording, path, sweep):
                self._wait_for_turn(number)
                yield message

    def _wait_for_turn(self, number: int) -> None:
        while True:
            if number <= self._cancelled_upto or self._closed:
                raise EngineDied(-9, "")
            if self.gate is None or self.gate.acquire(timeout=0.02):
                return

    def cancel(self) -> None:
        self._cancelled_upto = self._requested

    def close(self) -> None:
        self._closed = True

    def output(self) -> str:
        return ""


def _replayed(recording: Recording, path: Path, sweep: bool) -> Iterator[dict[str, Any]]:
    """The recording as a run of ``path`` would send it: paths rewritten, the sweep left out if not asked."""
    recorded = recording.recorded_path()
    for message in recording.messages:
        if not sweep and (message["type"] == "sweep_point" or message.get("stage") == "sweep"):
            continue
        message = _rewrite_paths(message, recorded, str(path))
        if not sweep and "report" in message:
            report = dict(message["report"])
            report.update(sweep=[], sweep_strategy=None, sweep_compiles=None)
            report["expect"] = {k: v for k, v in report.get("expect", {}).items() if k not in NEEDS_SWEEP}
            message = {**message, "report": report}
        yield message


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
