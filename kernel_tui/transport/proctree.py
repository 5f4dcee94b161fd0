"""Processes below a process, read from /proc: what closing an engine must end besides its process group.

A scenario may start a child in a session of its own (``start_new_session=True``): ending the engine's
process group misses it, and it would outlive kernel-tui. Its parent is still the engine, though, so it
can be found, and ended, before the engine is. On systems without /proc these find nothing.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from pathlib import Path

PROC = Path("/proc")
PARENT_ENV = "KERNEL_TUI_PARENT_PID"
"""The front end's process id, in the environment of the engine it starts (or of the fork server that forks it):
the engine's lifeline ends it once its parent is another."""
KEEPER_ENV = "KERNEL_TUI_KEEPER_PID"
"""In an engine's environment, its keeper's process id (``transport.keeper``): the keeper's other
children are what the scenario started as the engine's siblings (``CLONE_PARENT``)."""


def stat_fields(pid: int) -> list[str] | None:
    """``/proc/PID/stat`` after the command's name (state first, then the parent's id); None if it is gone."""
    try:
        return (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def is_running(pid: int) -> bool:
    """Alive and not a zombie waiting for its parent to reap it."""
    fields = stat_fields(pid)
    return fields is not None and fields[0] != "Z"


def _parents() -> dict[int, int]:
    found: dict[int, int] = {}
    try:
        entries = list(PROC.iterdir())
    except OSError:
        return found
    for entry in entries:
        if entry.name.isdigit() and (fields := stat_fields(int(entry.name))) is not None and fields[0] != "Z":
            found[int(entry.name)] = int(fields[1])
    return found


def children(pid: int) -> list[int]:
    """Live children of ``pid``."""
    return [child for child, parent in _parents().items() if parent == pid]


def descendants(pid: int) -> list[int]:
    """Live children of ``pid``, their children and so on, parents first."""
    parents = _parents()
    below: dict[int, list[int]] = {}
    for child, parent in parents.items():
        below.setdefault(parent, []).append(child)
    found, queue = [], list(below.get(pid, ()))
    while queue:
        child = queue.pop(0)
        found.append(child)
        queue.extend(below.get(child, ()))
    return found


def command_line(pid: int) -> str:
    try:
        return (PROC / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError:
        return ""


def is_torch_worker(pid: int) -> bool:
    """Inductor's compile workers (``torch/_inductor/compile_worker``), whose own helpers are below them: torch
    starts them, not the scenario. A scenario's multiprocessing fork server or resource tracker is its own."""
    return "torch" in command_line(pid)


def kill(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def end_tree(pid: int) -> None:
    """Kill ``pid``'s process group and everything below ``pid``, whatever session it is in.

    The descendants go first: once ``pid`` is dead they belong to init and can no longer be found. ``pid``
    may be the caller itself."""
    kill(descendants(pid))
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def end_tree_later(pid: int, seconds: float, *, still_running: Callable[[], bool]) -> None:
    """``end_tree(pid)`` ``seconds`` from now if ``still_running()`` then (asked then, on a timer thread)."""

    def end() -> None:
        if still_running():
            end_tree(pid)

    timer = threading.Timer(seconds, end)
    timer.daemon = True
    timer.start()
