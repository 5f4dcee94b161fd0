"""Every engine that crashes leaves its stack on stderr: ``faulthandler`` for every thread, and torch's native one.

A segfault in a scenario, in torch or in a compile used to end the engine with nothing said but the signal.
``faulthandler`` writes each thread's Python frames, the crashing thread's innermost first; torch's fatal-signal
handler (off by default: torch 2.14 installs no handler for SIGSEGV at import, checked with ``sigaction``) writes
each thread's native frames, the crashing one's down to the faulting call. They chain: faulthandler, installed
last, writes first, with async-signal-safe writes only, then restores the handler it found (torch's) and raises
the signal again; torch's writes (it symbolises, which can hang in a crash inside malloc, so the front end gives a
dying engine ``transport.stderr_kept.DYING_S``) and calls the default action, so the engine still ends by the
signal that killed it. The front end reads the dump (``model.death.crash_dump``).

Torch is never imported here: the engine imports it after setting what torch reads at import
(``engine.serve.server``), so torch's handler is installed once torch has loaded (``after_torch_loads``). An engine
forked from the fork server inherits both handlers, and enables faulthandler again on its own stderr.
"""

from __future__ import annotations

import faulthandler
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType


def enable() -> None:
    """Python's frames of every thread on a crash, on this process's stderr: the first thing a process does."""
    faulthandler.enable(file=sys.stderr, all_threads=True)


def with_torch() -> None:
    """Torch's native frames too, written after faulthandler's: for a process that has imported torch."""
    torch = sys.modules.get("torch")
    native = getattr(getattr(torch, "_C", None), "_set_print_stack_traces_on_fatal_signal", None)
    if native is None:
        enable()  # a torch without it (not Linux): Python's frames alone
        return
    # Installed first, so that faulthandler, installed after it, writes first and then hands the signal to it.
    # faulthandler's disable puts back what it found: the default action, or torch's handler where it is set.
    faulthandler.disable()
    native(True)
    enable()


def after_torch_loads() -> None:
    """``with_torch`` as soon as torch has been imported (at once if it is), whoever imports it."""
    if "torch" in sys.modules:
        with_torch()
    elif not any(isinstance(finder, _AfterTorch) for finder in sys.meta_path):
        sys.meta_path.insert(0, _AfterTorch())


class _AfterTorch(importlib.abc.MetaPathFinder):
    """Finds torch as the other finders do, and runs ``with_torch`` once its module has been executed."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "torch":
            return None
        sys.meta_path.remove(self)
        spec: importlib.machinery.ModuleSpec | None = None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(fullname, path, target) if find is not None else None
            if spec is not None:
                break
        if spec is None:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        execute = loader.exec_module

        def execute_then_keep_stacks(module: ModuleType) -> None:
            execute(module)
            with_torch()

        setattr(loader, "exec_module", execute_then_keep_stacks)  # noqa: B010 - mypy refuses assigning a method
        return spec
