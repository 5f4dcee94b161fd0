"""kernel-tui's own engine code, imported once in the fork server, and whether the checkout still holds it.

Every engine imports its request loop and its measuring stages before its first run: about 0.2 CPU-seconds,
which each engine forked from the fork server paid again, a quarter of a small untimed run
(``bench/engine_start.py``). Imported in the server, every engine inherits them, as it inherits torch.

An engine must still run the checkout as it is when the engine starts (an edited checkout gives the next run the new
code, as an exec'd engine would). So the server keeps each imported file's size and time of change as they were
before it imported them (``Preloaded``), and before each fork asks whether they are still so: one changed, the server
refuses that fork, and its front end starts that engine, and the next, from a new server (``transport.forked_engines``).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Iterable

ENGINE_CODE = ("kernel_tui.engine.serve.server", "kernel_tui.engine.stages.measure")
"""What every CPU or GPU engine imports before its first run (``engine.serve.server.request_runner``); a preview's
engine imports its own stages itself. Nothing here may ask CUDA anything or start a thread at import (a forked CUDA
context is unusable, a forked thread gone): ``tests/engine/test_fork_server.py`` checks it with the rest of the
prelude."""
PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
"""The ``kernel_tui`` folder these modules come from."""

Stamp = tuple[int, int] | None
"""A file's time of change (ns) and size; None where it could not be read (never equal to a file's stamp)."""


def stamp(path: str) -> Stamp:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return (status.st_mtime_ns, status.st_size)


def _sources(folder: str) -> dict[str, Stamp]:
    found = {}
    for root, _folders, files in os.walk(folder):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(root, name)
                found[path] = stamp(path)
    return found


class Preloaded:
    """The files of kernel-tui's modules in this process, stamped as they were on disk before they were imported."""

    def __init__(self, files: dict[str, Stamp]) -> None:
        self.files = files

    @classmethod
    def imported(cls, names: Iterable[str] = ENGINE_CODE) -> Preloaded:
        """Import ``names`` (each that can be: one that cannot is the engine's to report, as without this server),
        then stamp every kernel-tui module now loaded. A file that changed while it was imported gets no stamp, so
        that this server is out of date from the start."""
        before = _sources(PACKAGE)
        for name in names:
            with contextlib.suppress(Exception):
                importlib.import_module(name)
        files: dict[str, Stamp] = {}
        for module in list(sys.modules.values()):
            path = getattr(module, "__file__", None)
            if isinstance(path, str) and path.startswith(PACKAGE + os.sep):
                was = before.get(path)
                files[path] = was if was is not None and was == stamp(path) else None
        return cls(files)

    def current(self) -> bool:
        """Whether every file is as it was when imported: an engine forked now runs the checkout as it is."""
        return all(was is not None and stamp(path) == was for path, was in self.files.items())
