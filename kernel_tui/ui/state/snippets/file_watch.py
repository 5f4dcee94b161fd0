"""Noticing that a file changed on disk: its modification time and size, compared at each poll.

Polling (the editor checks once a second) needs nothing from the platform and cannot miss a change made
by an editor that replaces the file rather than writing into it. Nothing here touches Textual.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class FileStamp:
    """What a file looked like when last read or written: enough to tell that it changed since."""

    mtime_ns: int
    size: int

    @classmethod
    def of(cls, path: Path) -> FileStamp | None:
        """The file's stamp now, or None when it does not exist (or cannot be read)."""
        try:
            stat = path.stat()
        except OSError:
            return None
        return cls(stat.st_mtime_ns, stat.st_size)


class FileWatch:
    """One file and the stamp it had when last seen; ``poll`` says whether it changed since."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.stamp = FileStamp.of(path)

    def seen(self) -> None:
        """The file as it is now is known (just read or written by us): no change to report."""
        self.stamp = FileStamp.of(self.path)

    def poll(self) -> bool:
        """True once per change: the file's stamp differs from the one last seen (it is then seen)."""
        now = FileStamp.of(self.path)
        if now == self.stamp:
            return False
        self.stamp = now
        return now is not None
