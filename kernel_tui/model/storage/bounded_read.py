"""Reading a file someone named, whatever it turns out to be: a regular file of bounded size, or a refusal.

``/dev/zero`` read whole is a ``MemoryError``; ``/dev/tty`` or a FIFO blocks for ever before anything is shown.
Each file kernel-tui reads on a user's word (a scenario, a results file) is opened here: without blocking
(a FIFO with no writer would hang ``open`` itself), checked to be a regular file, and read to a limit.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

SCENARIO_LIMIT = 4 * 2**20
"""A scenario is a few hundred lines of Python: 4 MiB is far past any, and costs nothing to read."""
RESULTS_LIMIT = 32 * 2**20
"""A results file carries each kernel's generated code: a whole course's is a few MiB. Each report is checked
against the schema as it is read, about 6 ms each: 16 MiB (2,207 reports) took 14 s on two busy cores, and the
180-212 MB files a user tried froze ``view`` for minutes in 1-4 GB (512 MiB was the limit then)."""


class UnreadableFile(OSError):
    """A path that is not a regular file, or one larger than the reader's limit; the message says which."""


def read_bounded(path: str | Path, limit: int) -> bytes:
    """The bytes of the regular file at ``path``; ``UnreadableFile`` for a device, a FIFO, a folder or a socket,
    or for a file over ``limit`` bytes (other ``OSError``s as ``open`` raises them)."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise UnreadableFile(f"not a regular file ({_kind(status.st_mode)})")
        if status.st_size > limit:
            raise UnreadableFile(f"too large: {status.st_size:,} bytes (the limit is {limit:,})")
        os.set_blocking(descriptor, True)
        chunks = []
        left = limit + 1  # a file that grew since fstat is refused too
        while left > 0:
            chunk = os.read(descriptor, min(left, 2**20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        if left <= 0:
            raise UnreadableFile(f"too large: over {limit:,} bytes")
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a file"
