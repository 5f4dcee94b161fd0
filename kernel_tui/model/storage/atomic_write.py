"""Writing a file so that a crash, or another process reading or writing it at that moment, meets either the old
file or the new one, never half of one: the whole is written under a name of this process's, then renamed."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path``, making its folder if need be; an ``OSError`` is the caller's."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        partial.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(partial, path)
    except OSError:
        # A full disk leaves the part written so far: it would hold the very room the next try needs.
        with contextlib.suppress(OSError):
            partial.unlink()
        raise
