"""How a kernel was launched: its grid of blocks, the threads of each block, and what each thread had to do.

A GPU kernel runs as a grid of blocks of threads; the GPU schedules a block's threads in warps of 32. A
compiled CPU kernel runs its loop in an OpenMP parallel region of some number of threads. ``KernelLaunch``
holds either, as the profiler reported it (a GPU), as Inductor would launch it (the CUDA preview) or as the
generated C++ asks for it (a CPU), and no torch: the UI process shows it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

WARP_SIZE = 32
"""Threads per warp on every NVIDIA GPU: a block's threads are scheduled 32 at a time."""


@dataclass(frozen=True)
class KernelLaunch:
    """One kernel's launch; every field is None where its source does not say."""

    grid: tuple[int, int, int] | None = None
    """Blocks in x, y and z (a GPU)."""
    block: tuple[int, int, int] | None = None
    """Threads per block in x, y and z (a GPU)."""
    warps: int | None = None
    """Warps per block: Triton's ``num_warps``; from a profiler, the block's threads over 32, rounded up."""
    threads: int | None = None
    """All threads launched: grid times block on a GPU, the parallel region's threads on a CPU."""
    elements: int | None = None
    """Elements of the largest array the kernel received: the work its threads share."""
    registers_per_thread: int | None = None
    """Registers each thread uses, as the profiler reports them (a GPU only)."""
    shared_memory: int | None = None
    """Bytes of shared memory per block (static and dynamic), as the profiler reports it."""
    occupancy_pct: float | None = None
    """The profiler's estimate of achieved occupancy: resident warps as a share of the SM's maximum."""
    config: dict[str, int] | None = None
    """The Triton config it was launched with (``XBLOCK``, ``R0_BLOCK``; ``num_warps`` is ``warps``)."""
    alternatives: tuple[str, ...] = ()
    """The other configs Inductor offered (``XBLOCK 512 · 8 warps``): a GPU times them all on the first call
    and keeps the fastest, which a preview cannot; it shows the first."""
    note: str | None = None
    """Why fields are unknown (a library kernel in a preview), or what a GPU would decide differently."""

    @property
    def elements_per_thread(self) -> float | None:
        """The array's elements over the threads launched: above 1 each thread loops or handles a vector;
        below 1 some threads have no element (a warp is 32 threads however few elements there are)."""
        if not self.elements or not self.threads:
            return None
        return self.elements / self.threads

    @property
    def is_known(self) -> bool:
        return self.threads is not None

    def with_elements(self, elements: int | None) -> KernelLaunch:
        return self if elements is None else replace(self, elements=elements)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> KernelLaunch | None:
        """From ``--json``; None for a kernel saved before launches were recorded."""
        if not isinstance(data, dict):
            return None

        def triple(value: Any) -> tuple[int, int, int] | None:
            return tuple(value) if isinstance(value, (list, tuple)) and len(value) == 3 else None

        config = data.get("config")
        return cls(
            grid=triple(data.get("grid")),
            block=triple(data.get("block")),
            warps=data.get("warps"),
            threads=data.get("threads"),
            elements=data.get("elements"),
            registers_per_thread=data.get("registers_per_thread"),
            shared_memory=data.get("shared_memory"),
            occupancy_pct=data.get("occupancy_pct"),
            config=dict(config) if isinstance(config, dict) else None,
            alternatives=tuple(data.get("alternatives") or ()),
            note=data.get("note"),
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: the fields, and ``elements_per_thread`` derived from them."""
        return {
            "grid": list(self.grid) if self.grid else None,
            "block": list(self.block) if self.block else None,
            "warps": self.warps,
            "threads": self.threads,
            "elements": self.elements,
            "elements_per_thread": self.elements_per_thread,
            "registers_per_thread": self.registers_per_thread,
            "shared_memory": self.shared_memory,
            "occupancy_pct": self.occupancy_pct,
            "config": self.config,
            "alternatives": list(self.alternatives),
            "note": self.note,
        }


def gpu_launch(grid: tuple[int, int, int], block: tuple[int, int, int], **known: Any) -> KernelLaunch:
    """A GPU launch from its grid and block: threads multiply out, warps round a block up to whole warps
    unless ``warps`` is given (Triton's ``num_warps``)."""
    block_threads = math.prod(block)
    warps = known.pop("warps", None)
    return KernelLaunch(
        grid=grid,
        block=block,
        warps=warps if warps is not None else -(-block_threads // WARP_SIZE),
        threads=math.prod(grid) * block_threads,
        **known,
    )


def _dims(values: tuple[int, int, int]) -> str:
    """``1024`` for a one-dimensional grid or block, ``64×8`` or ``4×2×2`` otherwise."""
    used = list(values)
    while len(used) > 1 and used[-1] == 1:
        used.pop()
    return "×".join(f"{value:,}" for value in used)


def _count(value: float) -> str:
    """``8``, ``524,288``, ``2.5``: a whole number with separators, else one decimal (three below 1)."""
    if value == int(value):
        return f"{int(value):,}"
    return f"{value:,.1f}" if value >= 1 else f"{value:.3g}"


def per_thread_text(launch: KernelLaunch) -> str | None:
    """``8 elements/thread``, or ``8 elements on 32 threads`` where threads outnumber the elements."""
    share = launch.elements_per_thread
    if share is None or launch.elements is None or launch.threads is None:
        return None
    if share < 1:
        return f"{launch.elements:,} elements on {launch.threads:,} threads"
    return f"{_count(share)} elements/thread"


def launch_text(launch: KernelLaunch | None) -> str | None:
    """One line: ``grid 1,024 × block 128 = 131,072 threads · 4 warps · 8 elements/thread`` (GPU),
    ``2 OpenMP threads · 524,288 elements/thread`` (CPU); the note where nothing is known; None with no launch."""
    if launch is None:
        return None
    if not launch.is_known:
        return launch.note
    if launch.grid is None or launch.block is None:
        parts = [f"{launch.threads:,} OpenMP thread{'s' if launch.threads != 1 else ''}"]
    else:
        parts = [
            f"grid {_dims(launch.grid)} × block {_dims(launch.block)} = {launch.threads:,} threads",
            f"{launch.warps} warp{'s' if launch.warps != 1 else ''}",
        ]
    per_thread = per_thread_text(launch)
    if per_thread:
        parts.append(per_thread)
    if launch.registers_per_thread is not None:
        parts.append(f"{launch.registers_per_thread} registers/thread")
    if launch.shared_memory:
        parts.append(f"{launch.shared_memory:,} B shared")
    if launch.occupancy_pct is not None:
        parts.append(f"occupancy {launch.occupancy_pct:g}%")
    if launch.alternatives:
        parts.append(f"config 1 of {len(launch.alternatives) + 1}")
    return " · ".join(parts)


LAUNCH_HEADERS = ("grid", "block", "warps", "threads", "per thread")
"""The columns of a launch in a table (``kernel-tui run``, the lab report)."""


def launch_cells(launch: KernelLaunch) -> tuple[str, ...]:
    """A launch's cells under ``LAUNCH_HEADERS``: grid and block as ``1,024`` or ``64×8``, empty on a CPU."""
    share = launch.elements_per_thread
    return (
        _dims(launch.grid) if launch.grid else "",
        _dims(launch.block) if launch.block else "",
        str(launch.warps) if launch.warps is not None else "",
        f"{launch.threads:,}" if launch.threads is not None else "",
        _count(share) if share is not None else "",
    )
