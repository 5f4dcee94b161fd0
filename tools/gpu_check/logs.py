"""``gpu-check``'s evidence of each lesson's engines: their stderr, whole, in a file per lesson beside the table.

On the H200 two engines died by SIGSEGV and nothing said why: the check kept no engine's stderr, and a report
then kept only the last 40 lines of it. Here every line an engine writes on stderr (a warning, a traceback, a
faulthandler dump, torch's native stack) goes to ``stderr/LESSON.log`` in the check's output folder as it
arrives, so whatever happens after, a crash of the check itself included, the file holds what came before. A
lesson's file has a section per engine that worked on it (the GPU's, then the live preview's), each headed by
what ran and closed by how it ended. The logs of an earlier check into the same folder are removed first: a
lesson's log is this run's alone.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

FOLDER = "stderr"
"""The folder of the logs, inside the check's output folder."""
LIMIT_BYTES = 2 * 2**20
"""Kept of one lesson's log: a scenario that prints in a loop must not fill the GPU machine's disk, nor make the
output folder too large to bring back. What comes after is counted, not kept."""


class LessonLogs:
    """The per-lesson stderr files under ``folder``; safe to write from the engines' reader threads."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        for earlier in folder.glob("*.log"):
            earlier.unlink()
        self._lock = threading.Lock()
        self._dropped: dict[Path, int] = {}

    def path(self, scenario: Path) -> Path:
        return self.folder / f"{scenario.stem}.log"

    def relative(self, scenario: Path) -> str:
        """The log's path as the table names it: relative to the output folder."""
        return f"{self.folder.name}/{self.path(scenario).name}"

    def section(self, scenario: Path, title: str) -> Callable[[str], None]:
        """Start a section of ``scenario``'s log headed ``title``; returns the sink its engine's lines go to."""
        target = self.path(scenario)
        self._append(target, f"=== {title} ===")
        return lambda line: self._append(target, line)

    def note(self, scenario: Path, text: str) -> None:
        """A line of the check's own in ``scenario``'s log (what ran, how it ended), told from an engine's by ``#``."""
        self._append(self.path(scenario), f"# {text}", kept=True)

    def close(self) -> None:
        """Say in each log that was cut how much was not kept."""
        with self._lock:
            dropped, self._dropped = self._dropped, {}
        for target, count in dropped.items():
            with target.open("a", encoding="utf-8", errors="replace") as file:
                file.write(f"# {count} lines of the engines were not kept\n")

    def _append(self, target: Path, line: str, *, kept: bool = False) -> None:
        """``kept``: written past the limit too (the check's own few lines, which say how an engine ended)."""
        # Opened per line and closed at once: the file is whole on disk at every moment, whoever dies next.
        with self._lock:
            if not kept and (target in self._dropped or (target.exists() and target.stat().st_size >= LIMIT_BYTES)):
                first = target not in self._dropped
                self._dropped[target] = self._dropped.get(target, 0) + 1
                if not first:
                    return
                line = f"# the engines' lines stop here: a log is kept to {LIMIT_BYTES:,} bytes"
            with target.open("a", encoding="utf-8", errors="replace") as file:
                file.write(line if line.endswith("\n") else line + "\n")
