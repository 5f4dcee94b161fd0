"""Lines read from an engine's pipe, in time and memory linear in what arrives, whatever arrives.

A scenario may print 100 MB without a newline on stderr. Joining each chunk to the line so far, and
splitting the result again, copied the whole line for every 64 KB read: quadratic (333 s for 100 MB).
Here a line is a list of pieces joined once when its newline comes, and a line that may be bounded
(stderr: a tail for the error details, and the user's terminal) keeps its head and its tail only.
"""

from __future__ import annotations

import codecs
import collections
import os
import select
import subprocess
import time
from collections.abc import Callable
from typing import Protocol

READ_CHUNK = 65536
POLL_S = 0.2
DRAIN_AFTER_EXIT_S = 2.0
"""How long the readers go on after the engine has ended: a process the scenario started may hold the
pipes open for ever, and must not keep the front end waiting."""
LONG_LINE_KEPT = 16384
"""Characters kept at each end of a bounded line that is longer than twice this."""


class Polled(Protocol):
    def poll(self) -> int | None: ...


class LineBuffer:
    """The line being read: whole, or with ``keep`` set, its first and last ``keep`` characters."""

    def __init__(self, keep: int | None = None) -> None:
        self.keep = keep
        self.head: list[str] = []
        self.head_size = 0
        self.tail: collections.deque[str] = collections.deque()
        self.tail_size = 0
        self.left_out = 0

    def add(self, piece: str) -> None:
        if self.keep is None or self.head_size < self.keep:
            taken = piece if self.keep is None else piece[: self.keep - self.head_size]
            self.head.append(taken)
            self.head_size += len(taken)
            piece = piece[len(taken) :]
        if not piece:
            return
        assert self.keep is not None
        self.tail.append(piece)
        self.tail_size += len(piece)
        while self.tail_size > self.keep:
            excess = self.tail_size - self.keep
            first = self.tail[0]
            if len(first) <= excess:
                self.tail.popleft()
                dropped = len(first)
            else:
                self.tail[0] = first[excess:]
                dropped = excess
            self.tail_size -= dropped
            self.left_out += dropped

    def take(self) -> str:
        """The line so far, and start a new one."""
        middle = f" … [{self.left_out:,} characters left out] … " if self.left_out else ""
        line = "".join(self.head) + middle + "".join(self.tail)
        self.head, self.head_size, self.left_out = [], 0, 0
        self.tail, self.tail_size = collections.deque(), 0
        return line

    def __bool__(self) -> bool:
        return bool(self.head_size or self.tail_size)


def read_lines(
    fd: int,
    process: Polled | subprocess.Popen[str],
    on_line: Callable[[str], None],
    keep: int | None = None,
    receive: Callable[[], bytes | None] | None = None,
) -> None:
    """Call ``on_line`` with each line read from ``fd`` until its end, then close it. ``keep``: a longer
    line is passed on as its first and last ``keep`` characters, with how many were left out between.
    ``receive``: reads the next chunk of ``fd`` in place of a plain read (None: nothing to pass on).

    Never dies: bytes that are not UTF-8 are replaced, and a failing ``on_line`` loses only its line. Ends
    at most DRAIN_AFTER_EXIT_S after ``process`` has, even if some process it started still holds the pipe.
    """
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    line = LineBuffer(keep)
    ended_at: float | None = None

    def deliver(text: str) -> None:
        start = 0
        while (end := text.find("\n", start)) != -1:
            line.add(text[start : end + 1])
            start = end + 1
            try:
                on_line(line.take())
            except Exception:  # noqa: BLE001 - a reader that dies would block the engine's writes
                pass
        if start < len(text):
            line.add(text[start:])

    try:
        while True:
            # Whether it had ended is read before the pipe is: everything it wrote before it ended is then
            # readable, so an empty pipe means all of it was read. Read after an empty wait, an engine that
            # wrote its last messages and ended in between (a run that fails at once, right after a quiet
            # warm-up) lost them, and the front end saw a death where a report had come.
            had_ended = process.poll() is not None
            try:
                ready, _, _ = select.select([fd], [], [], 0 if had_ended else POLL_S)
            except InterruptedError:
                continue
            if ready:
                chunk = os.read(fd, READ_CHUNK) if receive is None else receive()
                if chunk == b"":
                    break
                if chunk is not None:
                    deliver(decoder.decode(chunk))
            if had_ended:
                ended_at = ended_at or time.monotonic()
                if not ready or time.monotonic() - ended_at > DRAIN_AFTER_EXIT_S:
                    break
    except (OSError, ValueError):
        pass
    finally:
        deliver(decoder.decode(b"", final=True))
        if line:
            try:
                on_line(line.take())
            except Exception:  # noqa: BLE001
                pass
        try:
            os.close(fd)
        except OSError:
            pass
