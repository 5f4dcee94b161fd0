"""How much memory one steady call needs at its peak, above what was allocated before it.

Measured from the allocator itself: with ``profile_memory=True`` the profiler records every allocation and free
the allocator reports (the CPU allocator and CUDA's caching allocator alike) as a ``[memory]`` event with its
size, negative for a free. The running sum of those sizes, from zero at the call's start, is the memory the call
holds at each moment; its maximum is the peak. ``prof.events()`` folds the allocations made inside an operator
into that operator's totals, so the events are read unfolded, from the profiler's results in time order.

On a GPU the caching allocator keeps its own high-water mark (``torch.cuda.max_memory_allocated``): the call's
peak is read from it, and the profiler's events only split it into a training step's sections.

A training step's sections are split at the ``BACKWARD_RANGE`` annotation: forward (the loss included) is
what comes before ``backward()``, backward what runs inside it; both peaks are counted from the step's start, so
backward's includes what forward kept for it.

``LiveStorages`` counts the same thing without an allocator, for fake tensors (the CUDA preview): each storage
an operator creates is allocated, and freed when Python drops its last reference.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch.profiler import ProfilerActivity, profile
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

from kernel_tui.engine.counting import events as ev
from kernel_tui.engine.counting.timing import synchronize

MEMORY_EVENT = "[memory]"


@dataclass(frozen=True)
class Peak:
    """The most bytes one call held at once above what was allocated before it, and where it was read."""

    bytes: int
    source: str
    """How it was counted, in words (``CPU allocator``, ``CUDA caching allocator``, ``Inductor's buffer plan``)."""
    forward: int | None = None
    backward: int | None = None
    """A training step's peak per section, counted from the step's start; None for a forward-only call."""
    allocations: int | None = None
    """How many buffers the call allocated (``LiveStorages`` only)."""


def running_peak(sizes: Sequence[int]) -> int:
    """The highest running sum of allocation sizes (frees negative), from zero: never below zero, since
    freeing what was allocated before the call cannot make its peak negative."""
    held = peak = 0
    for size in sizes:
        held += size
        peak = max(peak, held)
    return peak


@dataclass(frozen=True)
class MemoryTimeline:
    """The allocations (frees negative) one profiled call made, in time order, and where backward started."""

    allocations: list[tuple[int, int]]
    """(start time in ns, bytes) of each allocator event of the call's device."""
    backward_range: tuple[int, int] | None

    def peak(self) -> int:
        return running_peak([size for _, size in self.allocations])

    def section_peaks(self) -> tuple[int, int] | None:
        """Forward's and backward's peaks, from the step's start; None without a ``backward()``."""
        if self.backward_range is None:
            return None
        start, end = self.backward_range
        before = [size for when, size in self.allocations if when < start]
        forward = running_peak(before)
        held = sum(before)
        during = [size for when, size in self.allocations if start <= when <= end]
        backward = held + running_peak(during) if during else held
        return forward, max(backward, held)


def profiled_timeline(call: Callable[[], Any], device: str) -> MemoryTimeline:
    """The allocator's events of one call of ``call`` (already warm), read from the profiler."""
    activities = [ProfilerActivity.CPU]
    if device == "cuda":
        activities.append(ProfilerActivity.CUDA)
    synchronize(device)
    with profile(activities=activities, profile_memory=True) as prof, torch.no_grad():
        result = call()
        synchronize(device)
        del result
    wanted = "CUDA" if device == "cuda" else "CPU"
    allocations: list[tuple[int, int]] = []
    backward_range = None
    for event in prof.profiler.kineto_results.events():
        name = event.name()
        if name == MEMORY_EVENT and str(event.device_type()).endswith(wanted):
            allocations.append((event.start_ns(), event.nbytes()))
        elif name == ev.BACKWARD_RANGE and backward_range is None:
            backward_range = (event.start_ns(), event.start_ns() + event.duration_ns())
    allocations.sort(key=lambda pair: pair[0])
    return MemoryTimeline(allocations, backward_range)


def measured_peak(call: Callable[[], Any], device: str) -> Peak:
    """The peak of one steady call above what was allocated before it, and a training step's per section."""
    timeline = profiled_timeline(call, device)
    sections = timeline.section_peaks()
    forward, backward = sections if sections is not None else (None, None)
    if device == "cuda":
        return Peak(_caching_allocator_peak(call), "CUDA caching allocator", forward, backward)
    return Peak(timeline.peak(), "CPU allocator (profiler memory events)", forward, backward)


def _caching_allocator_peak(call: Callable[[], Any]) -> int:
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    with torch.no_grad():
        result = call()
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() - before
    del result
    return max(peak, 0)


class LiveStorages(TorchDispatchMode):
    """Counts the bytes of the storages operators create while they are alive: the memory eager code holds,
    on fake tensors too. A view shares its base's storage and adds nothing."""

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # torch leaves TorchDispatchMode.__init__ unannotated
        self.held = 0
        self.peak = 0
        self.allocations = 0
        self.forward_peak: int | None = None
        """The peak before the first operator that an autograd node ran: a training step's forward's."""
        self.backward_peak = 0
        """The peak from then on."""
        self._known: dict[int, weakref.ref[torch.UntypedStorage]] = {}

    def __torch_dispatch__(
        self, func: Any, types: Sequence[type], args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        if self.forward_peak is None and torch._C._current_autograd_node() is not None:
            self.forward_peak, self.backward_peak = self.peak, self.held
        out = func(*args, **(kwargs or {}))
        inputs = {id(t.untyped_storage()) for t in tree_leaves((args, kwargs)) if isinstance(t, torch.Tensor)}
        for tensor in tree_leaves(out):
            if isinstance(tensor, torch.Tensor):
                self._allocated(tensor.untyped_storage(), inputs)
        return out

    def _allocated(self, storage: torch.UntypedStorage, inputs: set[int]) -> None:
        key = id(storage)
        known = self._known.get(key)
        if key in inputs or (known is not None and known() is storage):
            return
        size = storage.nbytes()
        self._known[key] = weakref.ref(storage)
        self.held += size
        self.allocations += 1
        self.peak = max(self.peak, self.held)
        self.backward_peak = max(self.backward_peak, self.held)
        weakref.finalize(storage, self._freed, size)

    def _freed(self, size: int) -> None:
        self.held -= size


def tracked_peak(call: Callable[[], Any], source: str) -> Peak:
    """The peak of the storages ``call``'s operators create (``LiveStorages``), its result dropped after."""
    with LiveStorages() as live:
        result = call()
    del result
    forward = live.forward_peak
    if forward is None:
        return Peak(live.peak, source, allocations=live.allocations)
    return Peak(live.peak, source, forward, live.backward_peak, live.allocations)
