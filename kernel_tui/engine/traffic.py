"""Bytes moved, counted from the real tensors: per eager operator, and the ideal for a whole ``fn``.

The rules a learner counts by: a view moves nothing; an input is read once over its non-broadcast
dimensions (a stride of 0 is the same element again); an in-place op reads and writes its target; an
``out=`` argument is written, not read. The same tensor passed twice to one op is read once.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

from kernel_tui.engine.op_kinds import moves_data


def tensor_bytes(tensor: torch.Tensor) -> int:
    """Bytes a kernel must touch for ``tensor``: its elements over the dimensions that are not broadcast."""
    count = 1
    for size, stride in zip(tensor.shape, tensor.stride()):
        if stride != 0:
            count *= size
    return count * tensor.element_size()


def _key(tensor: torch.Tensor) -> tuple[int, tuple[int, ...], tuple[int, ...], Any]:
    return (tensor.data_ptr(), tuple(tensor.shape), tuple(tensor.stride()), tensor.dtype)


def unique_bytes(tensors: Iterable[torch.Tensor]) -> int:
    seen: dict[Any, int] = {}
    for tensor in tensors:
        seen.setdefault(_key(tensor), tensor_bytes(tensor))
    return sum(seen.values())


def tensors_in(value: Any) -> list[torch.Tensor]:
    return [leaf for leaf in tree_leaves(value) if isinstance(leaf, torch.Tensor)]


@dataclass(frozen=True)
class OpTraffic:
    """One dispatched operator that moves data, with its bytes."""

    name: str
    """Profiler-style name, ``aten::add``."""
    bytes_read: int
    bytes_written: int
    line: int | None = None
    """The line of the scenario file that called it."""


class EagerTrafficMode(TorchDispatchMode):
    """Records each dispatched operator's reads and writes, in order, skipping views and allocations."""

    def __init__(self, source_file: str | None = None) -> None:
        super().__init__()
        self.ops: list[OpTraffic] = []
        self._source_file = source_file

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        name = f"{func.namespace}::{func._schema.name.split('::', 1)[-1]}"
        if moves_data(name):
            self.ops.append(_op_traffic(name, func._schema, args, kwargs, out, self._caller_line()))
        return out

    def _caller_line(self) -> int | None:
        if self._source_file is None:
            return None
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_code.co_filename == self._source_file:
                return frame.f_lineno
            frame = frame.f_back
        return None


def _op_traffic(name: str, schema: Any, args: tuple, kwargs: dict, out: Any, line: int | None) -> OpTraffic:
    read: list[torch.Tensor] = []
    written: list[torch.Tensor] = []
    bound = dict(zip((a.name for a in schema.arguments), args))
    bound.update(kwargs)
    for argument in schema.arguments:
        value = bound.get(argument.name)
        tensors = tensors_in(value)
        if not tensors:
            continue
        alias = argument.alias_info
        if alias is not None and alias.is_write:
            written.extend(tensors)
            if not argument.kwarg_only:
                read.extend(tensors)  # add_ reads its target; out= is only written
        else:
            read.extend(tensors)
    written_keys = {_key(t) for t in written}
    read_keys = {_key(t) for t in read}
    for result in tensors_in(out):
        key = _key(result)
        if key not in written_keys and key not in read_keys:
            written.append(result)
    return OpTraffic(name, unique_bytes(read), unique_bytes(written), line)


def eager_traffic(fn: Any, args: tuple, source_file: str | None = None) -> list[OpTraffic]:
    """Run ``fn`` once (untimed, unprofiled) and return its data-moving operators in order, each with the
    line of ``source_file`` it was called from."""
    mode = EagerTrafficMode(source_file)
    with torch.no_grad(), mode:
        fn(*args)
    return mode.ops


def ideal_bytes(args: tuple, output: Any) -> int:
    """Each input read once and each output written once: what a perfect single kernel would move."""
    return unique_bytes(tensors_in(args)) + unique_bytes(tensors_in(output))


def array_bytes(args: tuple) -> int:
    """The unit of an array-sized transfer: the bytes of the largest input."""
    return max((tensor_bytes(t) for t in tensors_in(args)), default=0)
