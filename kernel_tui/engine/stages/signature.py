"""What a scenario's ``fn`` takes and returns, in one line: ``a: (1048576,) float32, b: ... → () float32``.

The shapes say what the code computes before any kernel does: ``x @ y`` on two 1-D tensors is a dot
product returning a scalar, which no count of kernels makes obvious.

What ``fn`` returns is taken as models return it: a tensor, or tuples, lists, dicts and dataclasses holding
tensors (a Hugging Face ``ModelOutput`` is both a dict and a dataclass), with ``None`` and other values among
them (nanoGPT's ``GPT`` returns ``(logits, None)`` without targets). ``output_tensors`` are the tensors measured.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping
from typing import Any

import torch

ARROW = "→"


def call_signature(fn: Callable[..., Any], args: tuple[Any, ...], output: Any) -> str:
    """Each argument by name with its shape and dtype, then the output's."""
    names = _argument_names(fn, len(args))
    taken = ", ".join(f"{name}: {describe_value(value)}" for name, value in zip(names, args, strict=True))
    return f"{taken or '()'} {ARROW} {describe_value(output)}"


def output_tensors(value: Any) -> list[torch.Tensor]:
    """The tensors in what ``fn`` returned, in order, each once: inside tuples, lists, dicts and dataclasses, at
    any depth; anything else (``None``, a number, a string) holds none."""
    # Told apart with ``is``, not ``id()``: a training step's loss collects them inside the compiled step, where
    # Dynamo on torch 2.11 breaks the graph at ``id()`` of a tensor it made (37 compiled launches for one).
    found: list[torch.Tensor] = []
    for part in _parts(value, depth=0):
        if not any(part is seen for seen in found):
            found.append(part)
    return found


def _parts(value: Any, depth: int) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if depth > 8:  # a structure that holds itself; no model's output is this deep
        return []
    return [tensor for _, part in _fields(value) for tensor in _parts(part, depth + 1)]


def _fields(value: Any) -> list[tuple[str | None, Any]]:
    """A container's parts, named where they have names: a dict's items (a ``ModelOutput``'s set fields), a
    dataclass's fields, a tuple's or list's items unnamed; nothing for anything else."""
    if value is None:
        # Asked before is_dataclass: inside a compiled training step, Dynamo on torch 2.11 cannot trace its
        # hasattr on NoneType and broke the graph there (nanoGPT's (logits, None), each training step).
        return []
    if isinstance(value, Mapping):
        return [(str(key), part) for key, part in value.items()]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [(field.name, getattr(value, field.name, None)) for field in dataclasses.fields(value)]
    if isinstance(value, (tuple, list)):
        return [(None, part) for part in value]
    return []


SHOWN_PARTS = 4
"""How many parts of a long tuple or list the shapes line names before it counts the rest."""


def describe_value(value: Any) -> str:
    """``(1048576,) float32`` for a tensor; a tuple's or list's parts in parentheses, a dict's or dataclass's
    by name in braces; else its type name (``None``, a number, as written)."""
    if isinstance(value, torch.Tensor):
        return f"{tuple(value.shape)} {str(value.dtype).removeprefix('torch.')}"
    if isinstance(value, (tuple, list)):
        shown = [describe_value(part) for part in value[:SHOWN_PARTS]]
        if len(value) > SHOWN_PARTS + 1:
            # A model's training step returns the loss and every weight's gradient: 28 shapes for a 2-layer GPT
            # filled five lines of the explorer, above the kernels.
            shown.append(f"… {len(value) - SHOWN_PARTS} more")
        else:
            shown += [describe_value(part) for part in value[SHOWN_PARTS:]]
        return "(" + ", ".join(shown) + ")"
    if isinstance(value, Mapping) or (dataclasses.is_dataclass(value) and not isinstance(value, type)):
        parts = ", ".join(f"{name}: {describe_value(part)}" for name, part in _fields(value) if part is not None)
        return f"{type(value).__name__}{{{parts}}}"
    if value is None or isinstance(value, (bool, int, float)):
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
