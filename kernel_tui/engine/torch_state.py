"""Torch's global switches and namespaces a scenario can leave changed: taken once, put back after each one.

A scenario that patches ``torch.Tensor.relu``, leaves ``torch.autocast`` entered, turns on anomaly mode or
turns off oneDNN (``torch.backends.mkldnn.enabled = False``) would change what every later scenario in
the same engine measures: its kernels, its dtypes, its times. ``TorchState`` records those switches when
the engine is ready and puts them back; what it cannot put back (inference mode left entered: only its
guard object can end it) is returned as a note, and the engine then ends after that scenario's report.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import torch

from kernel_tui.engine.preview_support import resolve

PATCHABLE = ("torch", "torch.nn.functional", "torch.Tensor", "torch.nn.Module")
"""Namespaces whose attributes a scenario may monkeypatch: their dictionaries are restored entry by entry."""
AUTOCAST_DEVICES = ("cpu", "cuda", "xpu", "mps", "hpu", "xla")
_MISSING = object()


def _switches() -> list[tuple[str, Callable[[], Any], Callable[[Any], None]]]:
    """Every global torch switch with a getter and a setter: name, read, write."""
    found: list[tuple[str, Callable[[], Any], Callable[[Any], None]]] = [
        (
            "anomaly mode",
            lambda: (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()),
            lambda saved: torch.set_anomaly_enabled(saved[0], saved[1]),
        ),
        ("warn_always", torch.is_warn_always_enabled, torch.set_warn_always),
        ("deterministic debug mode", torch.get_deterministic_debug_mode, torch.set_deterministic_debug_mode),
        ("autocast cache", torch.is_autocast_cache_enabled, torch.set_autocast_cache_enabled),
    ]
    for device in AUTOCAST_DEVICES:
        try:
            torch.is_autocast_enabled(device)
            torch.get_autocast_dtype(device)
        except (RuntimeError, TypeError, ValueError):
            continue  # a device type this build does not know
        found.append((f"autocast on {device}", *_autocast(device)))
    found.extend(_backend_switches())
    return found


def _autocast(device: str) -> tuple[Callable[[], Any], Callable[[Any], None]]:
    def read() -> tuple[bool, torch.dtype]:
        return torch.is_autocast_enabled(device), torch.get_autocast_dtype(device)

    def write(saved: tuple[bool, torch.dtype]) -> None:
        torch.set_autocast_enabled(device, saved[0])
        torch.set_autocast_dtype(device, saved[1])

    return read, write


def _backend_switches() -> list[tuple[str, Callable[[], Any], Callable[[Any], None]]]:
    """``torch.backends.*`` flags: the properties of each backend module, cuBLAS's and the SDPA choices."""
    import torch.backends

    found: list[tuple[str, Callable[[], Any], Callable[[Any], None]]] = []

    def attribute(owner: Any, label: str, name: str) -> None:
        found.append(
            (
                f"torch.backends.{label}.{name}",
                lambda: getattr(owner, name),
                lambda saved: setattr(owner, name, saved),
            )
        )

    for label in sorted(dir(torch.backends)):
        module = getattr(torch.backends, label, None)
        if not isinstance(module, ModuleType):
            continue
        for name, value in vars(type(module)).items():
            if isinstance(value, torch.backends.ContextProp):
                attribute(module, label, name)
    if hasattr(torch.backends, "opt_einsum"):
        for name in ("enabled", "strategy"):
            attribute(torch.backends.opt_einsum, "opt_einsum", name)
    matmul = torch.backends.cuda.matmul
    for name in (
        "allow_tf32",
        "allow_fp16_reduced_precision_reduction",
        "allow_bf16_reduced_precision_reduction",
        "allow_fp16_accumulation",
        "fp32_precision",
    ):
        attribute(matmul, "cuda.matmul", name)
    cuda = torch.backends.cuda
    for kind in ("flash", "mem_efficient", "math", "cudnn"):
        read, write = getattr(cuda, f"{kind}_sdp_enabled", None), getattr(cuda, f"enable_{kind}_sdp", None)
        if read is not None and write is not None:
            found.append((f"torch.backends.cuda.{kind}_sdp", read, write))
    mha = getattr(torch.backends, "mha", None)
    if mha is not None and hasattr(mha, "get_fastpath_enabled"):
        found.append(("torch.backends.mha fast path", mha.get_fastpath_enabled, mha.set_fastpath_enabled))
    return found


@dataclass
class TorchState:
    """Torch's global switches and patchable namespaces, as they were when the engine became ready."""

    namespaces: dict[str, dict[str, Any]]
    switches: list[tuple[str, Callable[[], Any], Callable[[Any], None], Any]]
    inference_mode: bool
    function_modes: int
    dispatch_modes: int

    @classmethod
    def take(cls) -> TorchState:
        switches = []
        for name, read, write in _switches():
            try:
                switches.append((name, read, write, read()))
            except Exception:  # noqa: BLE001 - a switch this build or machine cannot read is not ours to keep
                continue
        return cls(
            namespaces={name: dict(vars(resolve(name))) for name in PATCHABLE},
            switches=switches,
            inference_mode=torch.is_inference_mode_enabled(),
            function_modes=torch._C._len_torch_function_stack(),
            dispatch_modes=torch._C._len_torch_dispatch_stack(),
        )

    def restore(self) -> list[str]:
        """Put it all back; returns what could not be, one note each."""
        notes = self._restore_modes()
        for name, saved in self.namespaces.items():
            notes.extend(_restore_namespace(name, resolve(name), saved))
        for name, read, write, saved in self.switches:
            try:
                if read() != saved:
                    write(saved)
                if read() != saved:
                    notes.append(f"{name} stays {read()!r} (was {saved!r})")
            except Exception as error:  # noqa: BLE001 - one switch must not keep the others from being restored
                notes.append(f"could not restore {name}: {type(error).__name__}: {error}")
        torch.clear_autocast_cache()
        return notes

    def _restore_modes(self) -> list[str]:
        notes = []
        # An autocast entered and never left also counts its nesting, which decides when its cache is cleared.
        while torch.autocast_decrement_nesting() > 0:
            pass
        while torch._C._len_torch_function_stack() > self.function_modes:
            mode = torch._C._pop_torch_function_stack()
            # torch.set_default_device's own mode: torch would try to leave it again when the default is reset.
            if getattr(torch._GLOBAL_DEVICE_CONTEXT, "device_context", None) is mode:
                torch._GLOBAL_DEVICE_CONTEXT.device_context = None
        if torch._C._len_torch_dispatch_stack() > self.dispatch_modes:
            from torch.utils._python_dispatch import _pop_mode

            while torch._C._len_torch_dispatch_stack() > self.dispatch_modes:
                _pop_mode()
        if torch.is_inference_mode_enabled() != self.inference_mode:
            gc.collect()  # an inference-mode guard nobody holds any more ends when it is collected
        if torch.is_inference_mode_enabled() != self.inference_mode:
            notes.append("it left torch.inference_mode() entered")
        return notes


def _restore_namespace(name: str, owner: Any, saved: dict[str, Any]) -> list[str]:
    current = dict(vars(owner))
    for key, value in current.items():
        # A submodule imported since is torch's own, not a patch.
        if key not in saved and not isinstance(value, ModuleType):
            delattr(owner, key)
    for key, value in saved.items():
        if current.get(key, _MISSING) is not value:
            setattr(owner, key, value)
    still = [key for key, value in saved.items() if vars(owner).get(key, _MISSING) is not value]
    if still:
        return [f"{name} keeps {', '.join(still[:5])} patched"]
    return []
