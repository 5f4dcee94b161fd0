"""Writing a file so that a crash, or another process reading or writing it at that moment, meets either the old
file or the new one, never half of one: the whole is written under a name of this process's, then renamed."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

NEW_FILE_MODE = 0o644
"""A file written for the first time: what ``open`` gives it under the usual umask (022)."""


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path``, making its folder if need be; an ``OSError`` is the caller's.

    A link at ``path`` is replaced, never written through: the rename replaces the name itself. The part is
    written under a name nobody could have chosen first (``mkstemp``: created, not opened, and never a link
    followed), where a name of this process's id let a link planted there in advance take the write."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    partial = Path(name)
    try:
        # mkstemp's 0600 kept only where the file was so already: a saved snippet stays readable as before.
        try:
            mode = path.stat().st_mode & 0o777
        except OSError:
            mode = NEW_FILE_MODE
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as out:
            out.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(partial, path)
    except OSError:
        # A full disk leaves the part written so far: it would hold the very room the next try needs.
        with contextlib.suppress(OSError):
            partial.unlink()
        raise
