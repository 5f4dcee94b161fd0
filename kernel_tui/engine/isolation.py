"""Every scenario starts from the same engine state, whatever the scenario before it changed.

Scenarios run one after another in one engine, and a scenario is arbitrary code: it may set
``torch._dynamo.config.capture_scalar_outputs``, turn off Inductor's kernel profiling, change the thread
count, ``chdir``, close ``sys.stdin``, edit ``sys.path``, reseed the generators, patch ``torch.Tensor``,
leave ``torch.autocast`` entered, set an alarm, block signals, lower a resource limit (``torch_state`` and
``process_state`` keep those). Any of it would change what every later scenario measures. ``Snapshot.take``
records that state once, when the engine is ready and before any scenario runs; ``Snapshot.restore`` puts it
back after each scenario.

What cannot be put back (a thread or a process the scenario left running, a working folder that is gone)
is returned as notes: the engine then ends after that scenario's report and the next one runs in a fresh
engine.
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import os
import random
import sys
import threading
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, TextIO, cast

import torch

from kernel_tui.engine.process_state import ProcessState
from kernel_tui.engine.torch_state import TorchState
from kernel_tui.transport import proctree

CONFIG_MODULES = ("torch._dynamo.config", "torch._inductor.config", "torch._functorch.config")
# Torch keeps its own bookkeeping in the environment during a compile; it is not the scenario's doing.
TORCH_PRIVATE_ENV = "_TORCH"


def _python_roots() -> tuple[str, ...]:
    """Folders of the interpreter and its installed packages: code there is not the scenario's."""
    import sysconfig

    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    for name in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            roots.add(sysconfig.get_path(name))
        except KeyError:
            pass
    roots.add(str(Path(__file__).resolve().parent.parent))  # kernel_tui itself
    return tuple(str(Path(root).resolve()) for root in roots if root)


def _resolved(folder: str) -> str:
    return str(Path(folder or ".").resolve())


def _import_roots(path: list[str], scenario_folders: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Where the engine's own imports come from, whatever folder a scenario sits in: the interpreter's and the
    installed packages' folders (a project's ``.venv`` beside its scenarios), and the engine's ``sys.path``
    entries other than a scenario's own folder (``PYTHONPATH``, a ``.pth`` file's folder)."""
    import site
    import sysconfig

    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, str(Path(__file__).resolve().parent.parent)}
    for name in ("stdlib", "platstdlib", "purelib", "platlib"):
        with contextlib.suppress(KeyError):
            roots.add(sysconfig.get_path(name))
    with contextlib.suppress(AttributeError):
        roots.update(site.getsitepackages())
    with contextlib.suppress(AttributeError):
        roots.add(site.getusersitepackages())
    # kernel_tui's parent is the repository in an editable install, where the tests' scenarios live: only the
    # package itself is the engine's.
    roots.discard(str(Path(__file__).resolve().parent.parent.parent))
    entries = {_resolved(entry) for entry in path} - set(scenario_folders)
    return tuple(_resolved(root) for root in roots if root), tuple(sorted(entries))


def _scenarios_own(
    name: str,
    module: ModuleType,
    scenario_folders: tuple[str, ...],
    engines_own: tuple[tuple[str, ...], tuple[str, ...]],
) -> bool:
    """Whether a module imported since the snapshot is the scenario's to forget: the scenario's own module, and
    modules from its folder, never an installed package's (torch imports its own lazily, and registers what it
    defines: imported twice, it fails with "already registered")."""
    from kernel_tui.engine.loader import SCENARIO_MODULE_PREFIX

    if name.startswith(SCENARIO_MODULE_PREFIX):
        return True
    where = getattr(module, "__file__", None)
    if not _inside(where, scenario_folders):
        return False
    installed, entries = engines_own
    if _inside(where, installed):
        return False
    return not any(_importable_from(entry, name, str(where)) for entry in entries)


def _importable_from(entry: str, name: str, where: str) -> bool:
    """Whether ``import name`` finds the file ``where`` on the ``sys.path`` entry ``entry``."""
    try:
        relative = Path(where).resolve().relative_to(entry)
    except (OSError, RuntimeError, ValueError):
        return False
    parts = list(relative.parts)
    if not parts:
        return False
    if parts[-1].startswith("__init__."):
        parts.pop()
    else:
        parts[-1] = parts[-1].split(".", 1)[0]  # module.py, module.cpython-311-x86_64-linux-gnu.so
    return ".".join(parts) == name


def _inside(path: str | None, folders: tuple[str, ...]) -> bool:
    if not path:
        return False
    try:
        resolved = str(Path(path).resolve())
    except (OSError, RuntimeError):
        return False
    return any(resolved == folder or resolved.startswith(folder.rstrip(os.sep) + os.sep) for folder in folders)


def _thread_code_file(thread: threading.Thread) -> str | None:
    target = getattr(thread, "_target", None)
    code = getattr(target, "__code__", None)
    if code is None and type(thread).run is not threading.Thread.run:
        code = getattr(type(thread).run, "__code__", None)
    return getattr(code, "co_filename", None)


@dataclass
class Snapshot:
    """The engine's state before any scenario: taken once, restored after each scenario."""

    configs: dict[str, dict[str, Any]]
    threads: int
    interop_threads: int
    grad_enabled: bool
    default_dtype: torch.dtype
    default_device: Any
    matmul_precision: str
    deterministic: tuple[bool, bool]
    cwd: str
    path: list[str]
    meta_path: list[Any]
    path_hooks: list[Any]
    modules: frozenset[str]
    streams: tuple[TextIO, TextIO, TextIO]
    stream_fds: tuple[int, int, int]
    """Private copies of fds 0, 1 and 2, to point them back at what they were."""
    torch_rng: torch.Tensor
    cuda_rng: list[torch.Tensor] | None
    python_rng: Any
    numpy_rng: Any
    environ: dict[str, str]
    process: ProcessState
    """Signals, timers, resource limits, interpreter hooks, the collector."""
    torch_switches: TorchState
    """Torch's patchable namespaces, autocast, inference mode, anomaly mode, the backends' flags."""
    umask: int
    warning_filters: list[Any]
    recursion_limit: int
    thread_ids: frozenset[int]
    children: frozenset[int]
    roots: tuple[str, ...] = field(default_factory=tuple)

    @classmethod
    def take(cls, device: str = "cpu") -> Snapshot:
        """``device``: the engine's; on ``cuda`` the CUDA generators are part of the state."""
        umask = os.umask(0)
        os.umask(umask)
        numpy = sys.modules.get("numpy")
        get_device = getattr(torch, "get_default_device", None)
        return cls(
            configs={name: _copy_config(_config(name)) for name in CONFIG_MODULES if _config(name) is not None},
            threads=torch.get_num_threads(),
            interop_threads=torch.get_num_interop_threads(),
            grad_enabled=torch.is_grad_enabled(),
            default_dtype=torch.get_default_dtype(),
            default_device=get_device() if get_device else None,
            matmul_precision=torch.get_float32_matmul_precision(),
            deterministic=(
                torch.are_deterministic_algorithms_enabled(),
                torch.is_deterministic_algorithms_warn_only_enabled(),
            ),
            cwd=os.getcwd(),
            path=list(sys.path),
            meta_path=list(sys.meta_path),
            path_hooks=list(sys.path_hooks),
            modules=frozenset(sys.modules),
            streams=(sys.stdin, sys.stdout, sys.stderr),
            stream_fds=(_private_dup(0), _private_dup(1), _private_dup(2)),
            torch_rng=torch.random.get_rng_state(),
            cuda_rng=torch.cuda.get_rng_state_all() if device == "cuda" else None,
            python_rng=random.getstate(),
            numpy_rng=numpy.random.get_state() if numpy is not None else None,
            environ=dict(os.environ),
            process=ProcessState.take(),
            torch_switches=TorchState.take(),
            umask=umask,
            warning_filters=list(warnings.filters),
            recursion_limit=sys.getrecursionlimit(),
            thread_ids=frozenset(thread.ident for thread in threading.enumerate() if thread.ident),
            children=frozenset(proctree.children(os.getpid())),
            roots=_python_roots(),
        )

    def restore(self, scenario_folders: tuple[str, ...] = ()) -> list[str]:
        """Put everything back; returns what could not be, one note each (empty: all restored).

        ``scenario_folders``: where the scenarios just run live; modules imported from there (or from any
        folder a scenario added to ``sys.path``) are forgotten, so the next scenario imports its own.
        """
        notes: list[str] = []
        # First: a timer the scenario left pending must not fire while the rest is restored.
        notes.extend(self._restore_part("signals, limits and hooks", self.process.restore))
        self._restore_streams()
        # Before the torch steps: a mode the scenario left entered would see (or refuse) their calls.
        notes.extend(self._restore_part("torch's switches", self.torch_switches.restore))
        for step in (self._restore_torch, self._restore_configs, self._restore_rng, self._restore_process):
            try:
                step()
            except Exception as error:  # noqa: BLE001 - one failed step must not stop the others
                notes.append(f"could not restore {step.__name__[9:]}: {type(error).__name__}: {error}")
        try:
            os.chdir(self.cwd)
        except OSError as error:
            notes.append(f"could not return to the working folder {self.cwd}: {error.strerror or error}")
        self._restore_imports(scenario_folders)
        notes.extend(self._leftovers(scenario_folders))
        notes.extend(self._differences())
        return notes

    @staticmethod
    def _restore_part(what: str, restore: Any) -> list[str]:
        try:
            return list(restore())
        except Exception as error:  # noqa: BLE001 - one failed part must not stop the others
            return [f"could not restore {what}: {type(error).__name__}: {error}"]

    # -- the steps ------------------------------------------------------------------------------------

    def _restore_streams(self) -> None:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):
                pass
        for fd, saved in zip((0, 1, 2), self.stream_fds):
            try:
                os.dup2(saved, fd)
            except OSError:
                pass
        fresh: list[TextIO] = []
        for fd, stream in enumerate(self.streams):
            if getattr(stream, "closed", True):
                mode = "r" if fd == 0 else "w"
                stream = cast(TextIO, os.fdopen(fd, mode, buffering=1, closefd=False, errors="backslashreplace"))
            fresh.append(stream)
        self.streams = (fresh[0], fresh[1], fresh[2])
        sys.stdin, sys.stdout, sys.stderr = self.streams
        # typeshed marks these Final and optional; the engine repoints them at its fresh streams all the same.
        sys.__stdin__, sys.__stdout__, sys.__stderr__ = self.streams  # type: ignore[misc,assignment]  # see above

    def _restore_torch(self) -> None:
        if torch.get_num_threads() != self.threads:
            torch.set_num_threads(self.threads)
        torch.set_grad_enabled(self.grad_enabled)
        if torch.get_default_dtype() != self.default_dtype:
            torch.set_default_dtype(self.default_dtype)
        get_device = getattr(torch, "get_default_device", None)
        if get_device is not None and get_device() != self.default_device:
            torch.set_default_device(None if self.default_device.type == "cpu" else self.default_device)
        if torch.get_float32_matmul_precision() != self.matmul_precision:
            torch.set_float32_matmul_precision(self.matmul_precision)
        if (
            torch.are_deterministic_algorithms_enabled(),
            torch.is_deterministic_algorithms_warn_only_enabled(),
        ) != self.deterministic:
            torch.use_deterministic_algorithms(self.deterministic[0], warn_only=self.deterministic[1])

    def _restore_configs(self) -> None:
        for name, saved in self.configs.items():
            module = _config(name)
            current = module.get_config_copy()
            for key, value in saved.items():
                if not _same(current.get(key, _MISSING), value):
                    try:
                        value = copy.deepcopy(value)
                    except Exception:  # noqa: BLE001
                        pass
                    setattr(module, key, value)

    def _restore_rng(self) -> None:
        torch.random.set_rng_state(self.torch_rng)
        if self.cuda_rng is not None:
            torch.cuda.set_rng_state_all(self.cuda_rng)
        random.setstate(self.python_rng)
        numpy = sys.modules.get("numpy")
        if numpy is not None and self.numpy_rng is not None:
            numpy.random.set_state(self.numpy_rng)

    def _restore_process(self) -> None:
        for key in [key for key in os.environ if key not in self.environ]:
            if not key.startswith(TORCH_PRIVATE_ENV):
                del os.environ[key]
        for key, value in self.environ.items():
            if os.environ.get(key) != value:
                os.environ[key] = value
        os.umask(self.umask)
        warnings.filters[:] = self.warning_filters  # type: ignore[index]  # typeshed says Sequence; it is a list
        mutated = getattr(warnings, "_filters_mutated", None) or getattr(warnings, "_filters_mutated_lock_held", None)
        if mutated is not None:
            mutated()  # the filters' cache is keyed on a version that only this bumps
        sys.setrecursionlimit(self.recursion_limit)

    def _restore_imports(self, scenario_folders: tuple[str, ...]) -> None:
        added = tuple(entry for entry in sys.path if entry not in self.path)
        theirs = tuple(_resolved(folder) for folder in (*scenario_folders, *added))
        sys.path[:] = self.path
        sys.meta_path[:] = self.meta_path
        sys.path_hooks[:] = self.path_hooks
        engines_own = _import_roots(self.path, theirs)
        for name in [name for name in sys.modules if name not in self.modules]:
            module = sys.modules.get(name)
            if isinstance(module, ModuleType) and _scenarios_own(name, module, theirs, engines_own):
                del sys.modules[name]
        if added:
            sys.path_importer_cache.clear()
        importlib.invalidate_caches()

    def _leftovers(self, scenario_folders: tuple[str, ...]) -> list[str]:
        """Threads and processes the scenario started and left running: nothing here can stop them."""
        notes = []
        for thread in threading.enumerate():
            if thread.ident in self.thread_ids or not thread.is_alive():
                continue
            if isinstance(thread, threading._DummyThread):
                continue  # a thread torch started in C++ that once called into Python
            where = _thread_code_file(thread)
            if where is None or not _inside(where, self.roots):
                notes.append(f"it left a thread running ({thread.name})")
        for pid in proctree.children(os.getpid()):
            if pid not in self.children and not proctree.is_torch_worker(pid):
                notes.append(f"it left a process running (pid {pid}: {proctree.command_line(pid)[:80]})")
        return notes

    def _differences(self) -> list[str]:
        """What still differs after restoring: the next scenario would not start from the same state."""
        notes = []
        if torch.get_num_threads() != self.threads:
            notes.append(f"the thread count stays {torch.get_num_threads()} (was {self.threads})")
        if torch.get_num_interop_threads() != self.interop_threads:
            notes.append("the inter-op thread count changed, and torch cannot change it back")
        for name, saved in self.configs.items():
            current = _config(name).get_config_copy()
            changed = [key for key, value in saved.items() if not _same(current.get(key, _MISSING), value)]
            if changed:
                notes.append(f"{name} keeps {', '.join(changed[:5])} changed")
        return notes


_MISSING = object()


def _config(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _copy_config(module: Any) -> dict[str, Any]:
    saved = {}
    for key, value in module.get_config_copy().items():
        try:
            saved[key] = copy.deepcopy(value)
        except Exception:  # noqa: BLE001 - a value that cannot be copied is kept as it is
            saved[key] = value
    return saved


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - a value that cannot compare is taken as changed
        return False


def _private_dup(fd: int) -> int:
    """A copy of ``fd`` above the low numbers a scenario is likely to close, not inherited by children."""
    copy_fd = os.dup(fd)
    os.set_inheritable(copy_fd, False)
    return copy_fd
