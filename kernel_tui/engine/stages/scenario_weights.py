"""The weights a scenario's ``fn`` uses: ``nn.Module`` instances, parameters, buffers and plain tensors, wherever
they live, placed on the run's device in the run's dtype.

A model is rarely a function of two tensors: its layers hold parameters. A scenario may keep its modules at
module level (``fc1 = nn.Linear(256, 1024)``), build them in ``inputs()`` and pass them to ``fn`` as arguments,
or keep plain tensors at module level (``W = torch.randn(...)``). Which module-level names ``fn`` uses is read
from its code: the global names it and the module-level functions it calls refer to.

Placing a weight converts it with the run's ``Placement``: on this machine's CPU or GPU, ``Tensor.to`` (device,
and the inputs' floating-point dtype where they agree on one, for a weight still in torch's default dtype); in
the CUDA preview, a fake CUDA tensor of the same
shape, strides and dtype. A parameter stays a ``Parameter`` (``requires_grad`` kept) and one shared by two
modules stays shared, so a training step differentiates it once.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any, cast

import torch
from torch import nn

Placement = Callable[[torch.Tensor, "torch.dtype | None"], torch.Tensor]
"""A weight as the run needs it, in the dtype given (None: its own)."""


def on_device(device: str) -> Placement:
    """What a measurement does: the weight on ``device``, in ``dtype`` if one is given."""

    def place(tensor: torch.Tensor, dtype: torch.dtype | None) -> torch.Tensor:
        return tensor.to(device=device, dtype=dtype)

    return place


def run_dtype(args: tuple[Any, ...]) -> torch.dtype | None:
    """The dtype of the floating-point tensors among the inputs when they agree on one (a bfloat16 input makes
    a bfloat16 layer, as ``model.to(x.dtype)`` would); None without such an input or when they disagree."""
    dtypes = {arg.dtype for arg in args if isinstance(arg, torch.Tensor) and arg.is_floating_point()}
    return dtypes.pop() if len(dtypes) == 1 else None


def global_names(fn: Any, namespace: Mapping[str, Any]) -> list[str]:
    """The module-level names ``fn`` refers to, and those of the module-level functions it calls, in order."""
    seen_code: set[int] = set()
    names: dict[str, None] = {}
    pending = [code for code in [getattr(fn, "__code__", None)] if isinstance(code, types.CodeType)]
    while pending:
        code = pending.pop()
        if id(code) in seen_code:
            continue
        seen_code.add(id(code))
        pending.extend(const for const in code.co_consts if isinstance(const, types.CodeType))
        for name in code.co_names:
            names.setdefault(name, None)
            value = namespace.get(name)
            inner = getattr(value, "__code__", None)
            if isinstance(value, types.FunctionType) and value.__globals__ is namespace and inner is not None:
                pending.append(inner)
    return [name for name in names if name in namespace]


@dataclass(frozen=True)
class UsedWeights:
    """The modules and module-level tensors one call of ``fn`` uses."""

    modules: tuple[nn.Module, ...]
    tensor_names: tuple[str, ...]
    """Module-level names bound to a tensor (a parameter included)."""

    def tensors(self, namespace: Mapping[str, Any]) -> tuple[torch.Tensor, ...]:
        """Every parameter and buffer of the modules and every module-level tensor, each once."""
        found: dict[int, torch.Tensor] = {}
        for tensor in self._module_tensors():
            found.setdefault(id(tensor), tensor)
        for name in self.tensor_names:
            value = namespace.get(name)
            if isinstance(value, torch.Tensor):
                found.setdefault(id(value), value)
        return tuple(found.values())

    def _module_tensors(self) -> Iterator[torch.Tensor]:
        for module in self.modules:
            yield from module.parameters()
            yield from module.buffers()


def used_weights(fn: Any, namespace: Mapping[str, Any], args: tuple[Any, ...]) -> UsedWeights:
    modules: dict[int, nn.Module] = {id(arg): arg for arg in args if isinstance(arg, nn.Module)}
    tensor_names = []
    for name in global_names(fn, namespace):
        value = namespace[name]
        if isinstance(value, torch.Tensor):
            tensor_names.append(name)
        # A module is placed in place, so one held in a list or dict (``layers = [nn.Linear(...)]``) is too.
        held = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else [value]
        for item in held:
            if isinstance(item, nn.Module):
                modules.setdefault(id(item), item)
    return UsedWeights(tuple(modules.values()), tuple(tensor_names))


def place_weights(
    used: UsedWeights, namespace: MutableMapping[str, Any], placement: Placement, dtype: torch.dtype | None
) -> None:
    """Replace each weight by its placed form, in its module or under its module-level name."""
    placed: dict[int, torch.Tensor] = {}

    def convert(tensor: torch.Tensor) -> torch.Tensor:
        if id(tensor) not in placed:
            # Only a weight still in torch's default dtype follows the inputs': one the scenario gave a dtype of
            # its own (a bfloat16 layer fed float32 that it casts) keeps it.
            follows = dtype is not None and tensor.dtype == torch.get_default_dtype()
            with torch.no_grad():
                new = placement(tensor, dtype if follows else None)
            if new is not tensor and isinstance(tensor, nn.Parameter):
                new = nn.Parameter(new, requires_grad=tensor.requires_grad)
            placed[id(tensor)] = new
        return placed[id(tensor)]

    for module in used.modules:
        for submodule in module.modules():
            for key, parameter in submodule._parameters.items():
                if parameter is not None:
                    submodule._parameters[key] = cast("nn.Parameter", convert(parameter))  # convert keeps the type
            for key, buffer in submodule._buffers.items():
                if buffer is not None:
                    submodule._buffers[key] = convert(buffer)
    for name in used.tensor_names:
        namespace[name] = convert(namespace[name])
