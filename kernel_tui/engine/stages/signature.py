"""What a scenario's ``fn`` takes and returns, in one line: ``a: (1048576,) float32, b: ... → () float32``.

The shapes say what the code computes before any kernel does: ``x @ y`` on two 1-D tensors is a dot
product returning a scalar, which no count of kernels makes obvious.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import torch

ARROW = "→"


def call_signature(fn: Callable[..., Any], args: tuple[Any, ...], output: Any) -> str:
    """Each argument by name with its shape and dtype, then the output's."""
    names = _argument_names(fn, len(args))
    taken = ", ".join(f"{name}: {describe_value(value)}" for name, value in zip(names, args, strict=True))
    return f"{taken or '()'} {ARROW} {describe_value(output)}"


def describe_value(value: Any) -> str:
    """``(1048576,) float32`` for a tensor; a tuple's or list's parts in parentheses; else its type name."""
    if isinstance(value, torch.Tensor):
        return f"{tuple(value.shape)} {str(value.dtype).removeprefix('torch.')}"
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(describe_value(part) for part in value) + ")"
    if isinstance(value, (bool, int, float)):
        return repr(value)
    return type(value).__name__


def _argument_names(fn: Callable[..., Any], count: int) -> list[str]:
    try:
        parameters = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    names: list[str] = []
    for parameter in parameters:
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            break
        if parameter.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            names.append(parameter.name)
    names = names[:count]
    # *args, or a callable whose signature cannot be read: the position names the argument.
    return names + [f"args[{position}]" for position in range(len(names), count)]
