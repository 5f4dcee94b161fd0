"""Compute or memory: arithmetic intensity, achieved FLOP/s, and which side of the roofline's ridge a kernel sits.

A kernel that does ``flops`` operations while moving ``bytes`` has an intensity of ``flops / bytes``. The device
has two measured ceilings: its copy bandwidth (GB/s) and its peak matmul throughput (GFLOP/s). Their ratio is the
ridge point: a kernel below it runs out of bandwidth before it runs out of arithmetic (memory-bound), one above
it the other way round (compute-bound). A kernel so small that even at the roof it would take less than one
call's fixed cost sits far below both roofs: neither ceiling limits it but the cost of calling it
(overhead-bound). Pure arithmetic on report fields, so the UI process can use it too.
"""

from __future__ import annotations

from collections.abc import Iterable

MEMORY_BOUND = "memory-bound"
COMPUTE_BOUND = "compute-bound"
OVERHEAD_BOUND = "overhead-bound"
CALL_OVERHEAD_US = 2.0
"""About what one kernel call costs before it computes anything (Python, the dispatcher, a launch: a few
microseconds on a CPU and on a GPU alike). A kernel whose time at the roof is below it cannot be held back by
either ceiling. Judged on the roof time, which depends on the work alone, so a busy machine that slows a
large kernel does not turn it into an overhead-bound one."""
OVERHEAD_FACTOR = 2.0
"""...and that took at least this many times its roof time: it did pay for something else than its work."""


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


def roof_time_us(
    flops: float | None, bytes_moved: int | None, bandwidth_gbs: float | None, matmul_gflops: float | None
) -> float | None:
    """The least time the ceilings allow this work: its bytes at the copy bandwidth or its FLOPs at the peak,
    whichever takes longer (microseconds); None when neither can be known."""
    times = []
    if bytes_moved and bandwidth_gbs:
        times.append(bytes_moved / bandwidth_gbs / 1e3)
    if flops and matmul_gflops:
        times.append(flops / matmul_gflops / 1e3)
    return max(times) if times else None


def bound(
    kernel_intensity: float | None, ridge: float | None, time_us: float | None = None, roof_us: float | None = None
) -> str | None:
    """Which ceiling limits a kernel of this intensity; None when either is unknown. With its measured time
    and its time at the roof (``roof_time_us``): overhead-bound when the roof time is below one call's
    cost and it took well over that, far below both roofs (a 16 by 16 matmul)."""
    if kernel_intensity is None or ridge is None:
        return None
    if time_us and roof_us is not None and roof_us < CALL_OVERHEAD_US and time_us >= OVERHEAD_FACTOR * roof_us:
        return OVERHEAD_BOUND
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


def unclassified_share(rows: Iterable[tuple[str | None, float | None]]) -> float | None:
    """From (bound, time) per kernel: the share of the kernel time in kernels with no class; None without
    times (a preview)."""
    timed = [(side, time_us) for side, time_us in rows if time_us]
    total = sum(time_us for _, time_us in timed if time_us is not None)
    if total <= 0:
        return None
    return sum(time_us for side, time_us in timed if side is None and time_us is not None) / total
