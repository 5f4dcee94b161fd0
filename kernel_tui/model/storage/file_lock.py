"""One process at a time on this machine, for work whose result the others should wait for and reuse rather than
repeat: an advisory lock on a file beside the result, which the kernel lets go when its holder ends, however it
ends."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

POLL_S = 0.05


@contextlib.contextmanager
def held_alone(path: Path, wait_s: float) -> Iterator[bool]:
    """Hold ``path``'s lock for the block, waiting up to ``wait_s`` for another holder; yields whether it is held. A
    holder that outlasts the wait (stopped, not ended) is not waited for, and where no lock can be taken (no
    ``fcntl``, an unwritable folder) the block runs unlocked: the lock saves repeated work, it is not a guard."""
    try:
        import fcntl
    except ImportError:  # not on a POSIX system
        yield False
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Never through a link: one planted at the lock's name would have it created or opened elsewhere.
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
        handle = os.fdopen(os.open(path, flags, 0o600), "a")
    except OSError:
        yield False
        return
    with handle:
        deadline = time.monotonic() + wait_s
        held = False
        while not held:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                held = True
            except BlockingIOError:  # another holder
                if time.monotonic() >= deadline:
                    break
                time.sleep(POLL_S)
            except OSError:  # no locks on this file system (some NFS and FUSE mounts): waiting would not help
                break
        try:
            yield held
        finally:
            if held:
                fcntl.flock(handle, fcntl.LOCK_UN)
