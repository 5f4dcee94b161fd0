"""The scenarios the explorer lists: course order, each read from its syntax tree, never executed.

A file that cannot be read still gets an entry (with the reason and line) so the list matches what was
asked for and the learner sees why that one will not run.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kernel_tui.scenario_file import ScenarioFileError, ScenarioInfo, read_scenario


@dataclass(frozen=True)
class ScenarioEntry:
    """One scenario in the list: its path, what it says about itself, and whether it is the learner's own."""

    path: Path
    info: ScenarioInfo | None
    user_file: bool
    """Given on the command line from outside the course folder."""
    read_error: ScenarioFileError | None = None

    @property
    def title(self) -> str:
        return self.info.title if self.info is not None else self.path.name

    def claims_for(self, device: str) -> dict[str, float]:
        return self.info.claims_for(device) if self.info is not None else {}

    def display_path(self) -> str:
        """The path as the learner would type it: relative to the current folder when it is inside it."""
        resolved = self.path.resolve()
        try:
            return str(resolved.relative_to(Path.cwd()))
        except ValueError:
            return os.fspath(self.path)


def _inside(path: Path, folder: Path | None) -> bool:
    if folder is None:
        return False
    try:
        path.resolve().relative_to(folder.resolve())
    except ValueError:
        return False
    return True


def load_catalog(paths: Sequence[Path], course: Path | None) -> list[ScenarioEntry]:
    """Read each scenario file (already expanded from folders, in course order)."""
    entries = []
    for path in paths:
        user_file = not _inside(path, course)
        try:
            entries.append(ScenarioEntry(path, read_scenario(path), user_file))
        except ScenarioFileError as error:
            entries.append(ScenarioEntry(path, None, user_file, error))
    return entries
