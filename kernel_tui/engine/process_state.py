"""The interpreter's and the process's settings a scenario can leave changed: taken once, put back after each.

A lowered ``RLIMIT_NOFILE`` ("Too many open files"), a pending ``signal.alarm`` (the next scenario's engine
dies of SIGALRM), a blocked signal mask, a profile or trace hook, a disabled collector, a long switch
interval, a pinned CPU set: each would spoil every later scenario in the same engine. ``ProcessState``
records them when the engine is ready and puts them back; what an unprivileged process cannot undo (a
raised ``nice``, a lowered hard limit) is returned as a note, and the engine then ends after that
scenario's report, so that the next one runs in a fresh engine, started with the front end's settings.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

try:
    import resource
except ImportError:  # not on Windows
    resource = None  # type: ignore[assignment]  # absent on Windows: _limits() checks for None

UNCATCHABLE = {signal.SIGKILL, signal.SIGSTOP}
ITIMERS = {
    "ITIMER_REAL": signal.ITIMER_REAL,
    "ITIMER_VIRTUAL": signal.ITIMER_VIRTUAL,
    "ITIMER_PROF": signal.ITIMER_PROF,
}


def _limits() -> dict[str, int]:
    if resource is None:
        return {}
    return {name: getattr(resource, name) for name in dir(resource) if name.startswith("RLIMIT_")}


def _hooks() -> list[tuple[str, Callable[[], Any], Callable[[Any], None]]]:
    """Interpreter-wide settings with a getter and a setter: name, read, write."""
    found: list[tuple[str, Callable[[], Any], Callable[[Any], None]]] = [
        ("sys.setprofile", sys.getprofile, sys.setprofile),
        ("sys.settrace", sys.gettrace, sys.settrace),
        ("sys.setswitchinterval", sys.getswitchinterval, sys.setswitchinterval),
        ("sys.excepthook", lambda: sys.excepthook, lambda hook: setattr(sys, "excepthook", hook)),
        ("sys.unraisablehook", lambda: sys.unraisablehook, lambda hook: setattr(sys, "unraisablehook", hook)),
        ("sys.displayhook", lambda: sys.displayhook, lambda hook: setattr(sys, "displayhook", hook)),
        ("sys.breakpointhook", lambda: sys.breakpointhook, lambda hook: setattr(sys, "breakpointhook", hook)),
        ("threading.excepthook", lambda: threading.excepthook, lambda hook: setattr(threading, "excepthook", hook)),
        ("gc thresholds", gc.get_threshold, lambda saved: gc.set_threshold(*saved)),
        ("gc debug flags", gc.get_debug, gc.set_debug),
        ("gc callbacks", lambda: list(gc.callbacks), lambda saved: gc.callbacks.__setitem__(slice(None), saved)),
        ("gc enabled", gc.isenabled, lambda enabled: gc.enable() if enabled else gc.disable()),
        ("sys.setdlopenflags", sys.getdlopenflags, sys.setdlopenflags),
        ("sys asyncgen hooks", lambda: tuple(sys.get_asyncgen_hooks()), lambda saved: sys.set_asyncgen_hooks(*saved)),
        (
            "coroutine origin tracking",
            sys.get_coroutine_origin_tracking_depth,
            sys.set_coroutine_origin_tracking_depth,
        ),
    ]
    if hasattr(threading, "getprofile"):  # Python 3.10+
        found.append(("threading.setprofile", threading.getprofile, threading.setprofile))
        found.append(("threading.settrace", threading.gettrace, threading.settrace))
    if hasattr(sys, "get_int_max_str_digits"):
        found.append(("sys.set_int_max_str_digits", sys.get_int_max_str_digits, sys.set_int_max_str_digits))
    if hasattr(gc, "get_freeze_count"):
        found.append(("gc.freeze", gc.get_freeze_count, lambda count: gc.unfreeze() if count == 0 else None))
    if hasattr(os, "sched_getaffinity"):
        found.append(("the CPU affinity", lambda: os.sched_getaffinity(0), lambda cpus: os.sched_setaffinity(0, cpus)))
    if hasattr(os, "getpriority"):
        found.append(
            (
                "the nice value",
                lambda: os.getpriority(os.PRIO_PROCESS, 0),
                lambda value: os.setpriority(os.PRIO_PROCESS, 0, value),
            )
        )
    return found


@dataclass
class ProcessState:
    """Signals, timers, resource limits and interpreter hooks, as they were when the engine became ready.

    Signal masks, hooks, the nice value and the CPU affinity are the calling thread's: take and restore
    both run on the thread that runs the scenarios."""

    handlers: dict[int, Any]
    mask: set[int]
    pending: set[int]
    wakeup_fd: int
    limits: dict[str, tuple[int, int]]
    hooks: list[tuple[str, Callable[[], Any], Callable[[Any], None], Any]]

    @classmethod
    def take(cls) -> ProcessState:
        wakeup_fd = signal.set_wakeup_fd(-1)
        signal.set_wakeup_fd(wakeup_fd)
        limits = {}
        for name, which in _limits().items():
            try:
                limits[name] = resource.getrlimit(which)
            except (OSError, ValueError):
                continue
        return cls(
            handlers={sig: signal.getsignal(sig) for sig in signal.valid_signals() if sig not in UNCATCHABLE},
            mask=set(signal.pthread_sigmask(signal.SIG_BLOCK, [])),
            pending=set(signal.sigpending()),
            wakeup_fd=wakeup_fd,
            limits=limits,
            hooks=[(name, read, write, read()) for name, read, write in _hooks()],
        )

    def restore(self) -> list[str]:
        """Put it all back; returns what could not be, one note each. Timers first: an alarm left pending
        must not fire while the rest is restored."""
        notes = []
        for which in ITIMERS.values():
            if signal.getitimer(which) != (0.0, 0.0):
                signal.setitimer(which, 0)
        for sig, handler in self.handlers.items():
            try:
                if handler is not None and signal.getsignal(sig) is not handler:
                    signal.signal(sig, handler)
            except (OSError, ValueError) as error:
                notes.append(f"could not restore the handler of {signal.Signals(sig).name}: {error}")
        # A signal the scenario blocked and that arrived since would be delivered as soon as it is
        # unblocked: taken off the queue first, it never is.
        stray = set(signal.sigpending()) - self.pending
        while stray:
            signal.sigtimedwait(stray, 0)
            stray = set(signal.sigpending()) - self.pending
        signal.pthread_sigmask(signal.SIG_SETMASK, self.mask)
        # A wake-up descriptor the scenario chose would be written a byte for every signal.
        signal.set_wakeup_fd(self.wakeup_fd)
        for name, (soft, hard) in self.limits.items():
            which = getattr(resource, name)
            if resource.getrlimit(which) == (soft, hard):
                continue
            try:
                resource.setrlimit(which, (soft, hard))
            except (OSError, ValueError):
                now = resource.getrlimit(which)
                notes.append(f"it lowered {name} to {_limit(now[0])} (hard {_limit(now[1])}; was {_limit(soft)})")
        for name, read, write, saved in self.hooks:
            try:
                if read() != saved:
                    write(saved)
            except (OSError, ValueError, TypeError) as error:
                notes.append(f"could not restore {name}: {getattr(error, 'strerror', None) or error}")
                continue
            if read() != saved:
                notes.append(f"{name} stays {read()!r} (was {saved!r})")
        return notes


def _limit(value: int) -> str:
    return "unlimited" if resource is not None and value == resource.RLIM_INFINITY else str(value)
