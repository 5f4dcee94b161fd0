"""The engine dies with the front end that started it, and takes everything it started along.

A front end that ends normally closes the engine itself. One that is killed (SIGKILL, a closed terminal,
a killed tmux session, ``timeout``) cannot, and a busy engine would then run on with parent 1, forever.
Three watches, any of which ends the engine's whole tree (compile workers and whatever a scenario
started, in any session):

- Linux's parent-death signal (``prctl(PR_SET_PDEATHSIG)``): immediate. The kernel also sends it when the
  front-end *thread* that started the engine ends, so the handler checks that the parent really changed.
- The parent process id, polled by a thread: portable, and still working if a scenario replaced the
  signal handler.
- End of file on the request stream, read by a thread: the front end's end of the pipe is gone.
"""

from __future__ import annotations

import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO

from kernel_tui.transport import proctree
from kernel_tui.transport.keeper import set_parent_death_signal, set_subreaper

POLL_S = 0.25
NOTED_AT_MOST = 10
"""Processes a report names one by one; past these, how many more (a scenario may leave thousands)."""

_parent = os.getppid()
_keeper = 0
"""The keeper this engine runs below (``transport.keeper``), 0 if none: its other children are the
scenario's, started as this engine's siblings."""
_busy = threading.Event()


def end_everything(reason: str = "") -> None:
    """End this engine and everything below it, now."""
    if reason:
        try:
            os.write(2, f"kernel-tui engine: {reason}: ending\n".encode())
        except OSError:
            pass
    proctree.end_tree(os.getpid())
    os._exit(1)


def children() -> frozenset[int]:
    """This engine's child processes now: before a run, what the run's leftovers are told apart from."""
    return frozenset(proctree.children(os.getpid()))


def siblings() -> list[int]:
    """What the scenario started as this engine's siblings (``clone(CLONE_PARENT)``), below the engine's keeper."""
    if not _keeper or os.getppid() != _keeper:
        return []
    return [pid for pid in proctree.children(_keeper) if pid != os.getpid()]


def left_running(before: frozenset[int]) -> list[str]:
    """What the scenario started and left running (not torch's compile workers): ``finish`` ends it, and the
    report says so."""
    own = [pid for pid in proctree.children(os.getpid()) if pid not in before and not proctree.is_torch_worker(pid)]
    left = [below for pid in [*own, *siblings()] for below in (pid, *proctree.descendants(pid))]
    notes = [
        f"it left a process running (pid {pid}: {proctree.command_line(pid)[:80]}), ended with the engine"
        for pid in left[:NOTED_AT_MOST]
    ]
    if len(left) > NOTED_AT_MOST:
        notes.append(f"it left {len(left) - NOTED_AT_MOST} more processes running, ended with the engine")
    return notes


def finish() -> None:
    """The engine's one run is over: end what the scenario started (every orphan is this engine's, its subreaper)
    and exit at once, without tearing torch's modules down, which takes seconds nobody waits for."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()  # what the scenario printed last, without a newline yet
        except (OSError, ValueError):
            pass
    # Siblings first: each is ended before it can notice (the keeper would end them once this engine is gone).
    for sibling in siblings():
        proctree.end_tree(sibling)
    proctree.kill(proctree.descendants(os.getpid()))
    os._exit(0)


def parent_is_gone() -> bool:
    return os.getppid() != _parent


def hold() -> None:
    """Start the watches; called first thing in the engine, before torch is imported (or, in an engine
    forked from the fork server, with torch imported: its parent is the server, which ends with the front end)."""
    global _parent, _keeper
    _parent = os.getppid()
    keeper = os.environ.pop(proctree.KEEPER_ENV, "")
    _keeper = int(keeper) if keeper.isdigit() and int(keeper) == _parent else 0
    expected = os.environ.get(proctree.PARENT_ENV, "")
    if expected.isdigit() and int(expected) != _parent:
        end_everything("the front end was gone before the engine started")
    signal.signal(signal.SIGHUP, on_hangup)
    signal.signal(signal.SIGTERM, on_terminate)
    _set_parent_death_signal(signal.SIGHUP)
    # A scenario's double-forked daemon becomes the engine's child, not init's: ending the engine's tree after
    # the scenario, or when the front end goes, ends it too.
    set_subreaper()
    threading.Thread(target=_watch_parent, name="kernel-tui-lifeline", daemon=True).start()


def on_hangup(signum: int, frame: object) -> None:
    if parent_is_gone():
        end_everything("the front end is gone")


def on_terminate(signum: int, frame: object) -> None:
    end_everything("asked to stop")


def _set_parent_death_signal(sig: int) -> None:
    if set_parent_death_signal(sig) and parent_is_gone():  # it died between our start and the prctl
        end_everything("the front end is gone")


def keep_from_children(*fds: int) -> None:
    """In every process forked from the engine, ``fds`` (the protocol's) point at /dev/null: a scenario's
    forked child, or its daemon, cannot write a message or read a request. Descriptors already close on exec;
    a plain ``os.fork`` (multiprocessing's too) copies them all."""

    def in_child() -> None:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in fds:
            try:
                os.dup2(null, fd, inheritable=False)
            except OSError:
                pass
        os.close(null)

    os.register_at_fork(after_in_child=in_child)


def _watch_parent() -> None:
    while True:
        time.sleep(POLL_S)
        if parent_is_gone():
            end_everything("the front end is gone")


@contextmanager
def busy() -> Iterator[None]:
    """While a request is being served: end of the request stream then means the front end is gone."""
    _busy.set()
    try:
        yield
    finally:
        _busy.clear()


def request_lines(stream: IO[str], on_arrival: Callable[[str], None] | None = None) -> Iterator[str]:
    """The request stream's lines, read by a thread started now, so that its end is noticed during a run (or
    the warm-up) too, and ``on_arrival`` hears of each line as it comes, before the main thread takes it."""
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        try:
            for line in stream:
                if on_arrival is not None:
                    on_arrival(line)
                lines.put(line)
        except (OSError, ValueError):
            pass
        lines.put(None)
        if _busy.is_set():
            end_everything("the front end closed the request stream during a run")

    threading.Thread(target=read, name="kernel-tui-requests", daemon=True).start()
    return iter(lines.get, None)
