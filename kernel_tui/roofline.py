"""Compute or memory: arithmetic intensity, achieved FLOP/s, and which side of the roofline's ridge a kernel sits.

A kernel that does ``flops`` operations while moving ``bytes`` has an intensity of ``flops / bytes``. The device
has two measured ceilings: its copy bandwidth (GB/s) and its peak matmul throughput (GFLOP/s). Their ratio is the
ridge point: a kernel below it runs out of bandwidth before it runs out of arithmetic (memory-bound), one above
it the other way round (compute-bound). Pure arithmetic on report fields, so the UI process can use it too.
"""

from __future__ import annotations

from collections.abc import Iterable

MEMORY_BOUND = "memory-bound"
COMPUTE_BOUND = "compute-bound"


def intensity(flops: float | None, bytes_moved: int | None) -> float | None:
    """FLOPs per byte; None when either is unknown or nothing moved (a ratio over zero bytes means nothing)."""
    if flops is None or not bytes_moved:
        return None
    return flops / bytes_moved


def achieved_gflops(flops: float | None, time_us: float | None) -> float | None:
    """FLOPs over time in GFLOP/s (10^9 operations a second)."""
    if flops is None or not time_us or time_us <= 0:
        return None
    return flops / time_us / 1e3


def ridge_point(bandwidth_gbs: float | None, matmul_gflops: float | None) -> float | None:
    """The intensity (FLOPs per byte) at which the two ceilings meet."""
    if not bandwidth_gbs or not matmul_gflops:
        return None
    return matmul_gflops / bandwidth_gbs


def bound(kernel_intensity: float | None, ridge: float | None) -> str | None:
    """Which ceiling limits a kernel of this intensity; None when either is unknown."""
    if kernel_intensity is None or ridge is None:
        return None
    return COMPUTE_BOUND if kernel_intensity >= ridge else MEMORY_BOUND


def dominant_bound(rows: Iterable[tuple[str | None, float | None]]) -> tuple[str, float] | None:
    """From (bound, time) per kernel: the side holding most of the classified kernel time, and its share.

    None when no kernel has both a class and a time (a preview has no times)."""
    time_by_side: dict[str, float] = {}
    for side, time_us in rows:
        if side is not None and time_us:
            time_by_side[side] = time_by_side.get(side, 0.0) + time_us
    total = sum(time_by_side.values())
    if total <= 0:
        return None
    side = max(time_by_side, key=lambda name: time_by_side[name])
    return side, time_by_side[side] / total
