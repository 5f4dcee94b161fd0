"""Inductor's memory plan, read from the wrapper it generated: which buffers it allocates, reuses and frees early,
and the peak that plan implies.

Inside a wrapper's ``call()`` Inductor writes its plan out as plain Python: ``buf0 = empty_strided_cpu((n, ),
(1, ), torch.float32)`` allocates; ``buf2 = buf0; del buf0  # reuse`` hands a dead buffer to a new one instead
of allocating; ``del buf1`` frees a buffer as soon as its last reader has run, before the call returns;
``reinterpret_tensor(buf0, ...)`` is a view of one. Following those lines in order gives the bytes the call
holds at each step. The inputs (``arg0_1``, ``primals_1``) were allocated before the call and do not count.

The plan is an estimate where it cannot be followed: a buffer whose shape is symbolic (``s0``, a dynamic size) or
made by a line the plan does not describe (a fallback operator's result) has no known size, and the peak is
then not given; the counts still are.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass

import torch

ALLOCATION = re.compile(r"^(buf\w+) = empty_strided_\w+\((\(.*?\)), (\(.*?\)), torch\.(\w+)\)")
REUSE = re.compile(r"^(buf\w+) = (buf\w+); del \2\s+# reuse")
VIEW = re.compile(r"^(buf\w+) = reinterpret_tensor\((buf\w+),")
OTHER_BUFFER = re.compile(r"^(buf\w+) = ")
DELETE = re.compile(r"^del (buf\w+)$")
RETURN = re.compile(r"^return \(")


@dataclass(frozen=True)
class BufferPlan:
    """One or more wrappers' plans, added up: a training step has a forward and a backward wrapper, a graph
    break one wrapper per graph."""

    allocated: int
    reused: int
    freed_early: int
    peak_bytes: int | None
    """The most bytes the plan holds at once; None when a buffer's size is unknown (symbolic or unplanned)."""
    returned_bytes: int = 0
    """The bytes of the buffers ``call()`` returns: what the next graph of a broken ``fn`` runs beside."""


def _storage_bytes(shape_text: str, stride_text: str, dtype: str) -> int | None:
    try:
        shape, stride = ast.literal_eval(shape_text), ast.literal_eval(stride_text)
    except (ValueError, SyntaxError):
        return None  # symbolic: ``(s0, )``
    item = getattr(torch, dtype, None)
    if not isinstance(item, torch.dtype):
        return None
    if any(extent == 0 for extent in shape):
        return 0
    elements = 1 + sum((extent - 1) * step for extent, step in zip(shape, stride))
    return int(elements) * item.itemsize


def call_body(source: str) -> list[str]:
    """The stripped lines of the wrapper's ``call()``."""
    start = source.find("def call(")
    if start < 0:
        return []
    lines = []
    for line in source[start:].splitlines()[1:]:
        if line and not line[0].isspace():
            break  # the next top-level statement: the method (or function) ended
        if line.strip():
            lines.append(line.strip())
        if RETURN.match(line.strip()):
            break
    return lines


def wrapper_plan(source: str) -> BufferPlan:
    """The plan of one wrapper's ``call()``."""
    storage_of: dict[str, int] = {}
    size_of: dict[int, int | None] = {}
    names_of: dict[int, int] = {}
    held = peak = 0
    known = True
    allocated = reused = freed_early = 0

    def name(buffer: str, storage: int) -> None:
        storage_of[buffer] = storage
        names_of[storage] = names_of.get(storage, 0) + 1

    returns = ""
    for line in call_body(source):
        if RETURN.match(line):
            returns = line
        elif match := ALLOCATION.match(line):
            size = _storage_bytes(match.group(2), match.group(3), match.group(4))
            storage = len(size_of)
            size_of[storage] = size
            name(match.group(1), storage)
            allocated += 1
            if size is None:
                known = False
            else:
                held += size
                peak = max(peak, held)
        elif match := REUSE.match(line):
            reused += 1
            storage_of[match.group(1)] = storage_of.pop(match.group(2), -1)
        elif (match := VIEW.match(line)) and match.group(2) in storage_of:
            name(match.group(1), storage_of[match.group(2)])
        elif match := OTHER_BUFFER.match(line):
            # A fallback operator's result (``buf3 = torch.ops.aten.sort.stable(...)``): allocated, size unknown.
            storage = len(size_of)
            size_of[storage] = None
            name(match.group(1), storage)
            allocated += 1
            known = False
        elif (match := DELETE.match(line)) and match.group(1) in storage_of:
            storage = storage_of.pop(match.group(1))
            names_of[storage] -= 1
            if names_of[storage] == 0:
                freed_early += 1
                held -= size_of[storage] or 0
    returned = {storage_of.get(buffer, -1) for buffer in re.findall(r"\b(buf\w+)\b", returns)}
    returned_bytes = sum(size_of.get(storage) or 0 for storage in returned)
    return BufferPlan(allocated, reused, freed_early, peak if known else None, returned_bytes)


def combined_plan(sources: Iterable[str]) -> BufferPlan | None:
    """The plans of several wrappers that run one after another (the graphs of a broken ``fn``): counts added;
    the peak, the highest of each graph's own on top of what the graphs before it returned (kept, at most, while
    it runs). None without a wrapper."""
    plans = [wrapper_plan(source) for source in sources]
    if not plans:
        return None
    peak: int | None = 0
    held_before = 0
    for plan in plans:
        if plan.peak_bytes is None or peak is None:
            peak = None
        else:
            peak = max(peak, held_before + plan.peak_bytes)
        held_before += plan.returned_bytes
    return BufferPlan(
        sum(plan.allocated for plan in plans),
        sum(plan.reused for plan in plans),
        sum(plan.freed_early for plan in plans),
        peak,
        plans[-1].returned_bytes,
    )
