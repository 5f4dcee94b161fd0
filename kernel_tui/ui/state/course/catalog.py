"""The scenarios the explorer lists: course order, each read from its syntax tree, never executed.

A file that cannot be read still gets an entry (with the reason and line) so the list matches what was
asked for and the learner sees why that one will not run. Saved results (``kernel-tui view``) list the
scenarios of their reports, read from the source text each report carries, with the same parser.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kernel_tui.model.names.safe_text import safe_line
from kernel_tui.model.scenario.scenario_file import (
    ScenarioFileError,
    ScenarioInfo,
    parse_scenario,
    read_scenario,
    read_source,
)

if TYPE_CHECKING:
    from kernel_tui.model.report.report import ScenarioReport


NO_SAVED_SOURCE = (
    "the saved results carry no source (an older kernel-tui wrote them), and view reads no file a report names"
)


@dataclass(frozen=True)
class ScenarioEntry:
    """One scenario in the list: its path, what it says about itself, and whether it is the learner's own."""

    path: Path
    info: ScenarioInfo | None
    user_file: bool
    """Given on the command line from outside the course folder."""
    read_error: ScenarioFileError | None = None
    source: str | None = None
    """The file's text as a saved report carried it: shown in place of the file, which may not be here."""
    saved: bool = False
    """From a saved report (``kernel-tui view``): its text is ``source`` or nothing, never the file it names."""
    saved_to: Path | None = None
    """A draft's: the file it is saved to, which the learner knows it by (``path`` is the draft's own file)."""

    @property
    def title(self) -> str:
        return self.info.title if self.info is not None else safe_line(self.path.name)

    def claims_for(self, device: str) -> dict[str, float]:
        return self.info.claims_for(device) if self.info is not None else {}

    def read_source(self) -> str:
        """The scenario's text: what a saved report carried, else the file's. Raises what ``read_source`` does."""
        if self.source is not None:
            return self.source
        if self.saved:
            raise self.read_error or ScenarioFileError(NO_SAVED_SOURCE)
        return read_source(self.path)

    def display_path(self) -> str:
        """The path as the learner would type it, relative to the current folder when it is inside it: where a
        draft is saved, else the file's own."""
        path = self.saved_to or self.path
        try:
            return safe_line(str(path.resolve().relative_to(Path.cwd())))
        except ValueError:
            return safe_line(os.fspath(path))


def _inside(path: Path, resolved_folder: Path | None) -> bool:
    if resolved_folder is None:
        return False
    try:
        path.resolve().relative_to(resolved_folder)
    except ValueError:
        return False
    return True


def load_catalog(paths: Sequence[Path], course: Path | None) -> list[ScenarioEntry]:
    """Read each scenario file (already expanded from folders, in course order)."""
    entries = []
    # Resolved once, not once per file: the explorer reads the whole course before its first frame.
    course_folder = course.resolve() if course is not None else None
    for path in paths:
        user_file = not _inside(path, course_folder)
        try:
            entries.append(ScenarioEntry(path, read_scenario(path), user_file))
        except ScenarioFileError as error:
            entries.append(ScenarioEntry(path, None, user_file, error))
    return entries


def load_saved_catalog(reports: Sequence[ScenarioReport], course: Path | None) -> list[ScenarioEntry]:
    """One entry per scenario of saved reports, in their order (a scenario saved twice: the later report's
    text), each read from the source its report carries."""
    latest = {Path(report.scenario): report.source for report in reports}
    course_folder = course.resolve() if course is not None else None
    return [_saved_entry(path, source, course, course_folder) for path, source in latest.items()]


def _saved_entry(path: Path, source: str | None, course: Path | None, course_folder: Path | None) -> ScenarioEntry:
    if source is None:
        # Saved before reports carried their text. The path is a stranger's word: /dev/zero, /dev/tty or a FIFO
        # would hang the view before its first frame, and a file of this machine is not what was measured.
        return ScenarioEntry(
            path, None, not _inside(path, course_folder), ScenarioFileError(NO_SAVED_SOURCE), saved=True
        )
    user_file = not (_inside(path, course_folder) or _course_has(path.name, source, course))
    try:
        return ScenarioEntry(path, parse_scenario(source, path), user_file, source=source, saved=True)
    except ScenarioFileError as error:
        return ScenarioEntry(path, None, user_file, error, source=source, saved=True)


def _course_has(name: str, source: str, course: Path | None) -> bool:
    """Whether ``source`` is a lesson of this machine's course (saved elsewhere, so under another folder): it
    is then quizzed and scored as the course's own."""
    if course is None:
        return False
    try:
        return read_source(course / name) == source
    except ScenarioFileError:
        return False


class Catalog:
    """The scenario list the explorer shows, and which of its entries is on screen.

    The one owner of both: the screen, the snippet session and the why part read them from here, and only
    ``put``, ``drop`` and ``select`` change them (each says whether anything did, so the caller knows what
    to show again).
    """

    def __init__(self, entries: list[ScenarioEntry]) -> None:
        self.entries = entries
        self.index = 0

    def __bool__(self) -> bool:
        return bool(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def current(self) -> ScenarioEntry:
        return self.entries[self.index]

    @property
    def current_path(self) -> Path | None:
        return self.current.path if self.entries else None

    def paths(self) -> list[Path]:
        return [entry.path for entry in self.entries]

    def find(self, path: Path) -> ScenarioEntry | None:
        return next((entry for entry in self.entries if entry.path == path), None)

    def title_of(self, path: Path) -> str:
        entry = self.find(path)
        return entry.title if entry is not None else safe_line(path.name)

    def select(self, index: int) -> bool:
        """Show the entry at ``index`` (clamped to the list); True when that moved the selection."""
        index = max(0, min(len(self.entries) - 1, index))
        if index == self.index:
            return False
        self.index = index
        return True

    def put(self, entry: ScenarioEntry, *, replaces: Path | None = None) -> tuple[int, bool]:
        """Add ``entry``, or replace the one with its path (else the one at ``replaces``, a file the entry now
        stands for); returns (where it is, whether the list changed)."""
        paths = self.paths()
        if entry.path in paths:
            index = paths.index(entry.path)
            changed = self.entries[index] != entry
        elif replaces is not None and replaces in paths:
            index, changed = paths.index(replaces), True
        else:
            self.entries.append(entry)
            return len(self.entries) - 1, True
        self.entries[index] = entry
        return index, changed

    def drop(self, path: Path) -> bool:
        """Remove the entry at ``path`` (never the last one left); True when it was removed."""
        paths = self.paths()
        if path not in paths or len(self.entries) == 1:
            return False
        index = paths.index(path)
        del self.entries[index]
        if self.index >= index and self.index > 0:
            self.index -= 1
        return True
