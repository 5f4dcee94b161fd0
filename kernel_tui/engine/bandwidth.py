"""Achieved bandwidth against the device's ceiling, the ceiling measured here, not read from a datasheet.

The ceiling is the rate of a large device-to-device copy (read once, write once), measured once per device
and thread count and cached in ``$KERNEL_TUI_CACHE_DIR`` (default ``~/.cache/kernel-tui``).
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import torch

from kernel_tui.engine.device import free_memory_bytes
from kernel_tui.engine.timing import time_call
from kernel_tui.report import Kernel

COPY_BYTES = {"cpu": 256 * 2**20, "cuda": 2 * 2**30}


def cache_file() -> Path:
    root = os.environ.get("KERNEL_TUI_CACHE_DIR") or Path.home() / ".cache" / "kernel-tui"
    return Path(root) / "bandwidth.json"


def gbs(bytes_moved: int | None, time_us: float | None) -> float | None:
    if not bytes_moved or not time_us:
        return None
    return bytes_moved / time_us / 1e3


MIN_COPY_BYTES = 16 * 2**20
"""Below this a copy stays in a GPU's L2 (or a CPU's caches) and measures the cache, not memory."""


def copy_bytes(device: str, free_bytes: int) -> int:
    """The copy's size: the preferred one where it fits, with room to spare, in the free memory."""
    return max(min(COPY_BYTES[device], free_bytes // 4), MIN_COPY_BYTES)


def measure_ceiling_gbs(device: str) -> float | None:
    """The rate of a large copy, or None where not even the smallest one fits in memory."""
    size = copy_bytes(device, free_memory_bytes(device))
    while size >= MIN_COPY_BYTES:
        try:
            return _copy_rate_gbs(size, device)
        except (MemoryError, RuntimeError) as error:  # torch's OutOfMemoryError is a RuntimeError
            if "out of memory" not in str(error).lower() and not isinstance(error, MemoryError):
                raise
            # Another process took the memory between the query and the allocation: try half.
            size //= 2
    return None


def _copy_rate_gbs(size: int, device: str) -> float | None:
    source = torch.empty(size // 4, dtype=torch.float32, device=device).fill_(1.0)
    target = torch.empty_like(source)
    target.copy_(source)
    timing = time_call(lambda: target.copy_(source), device, budget_s=0.5)
    return gbs(2 * size, timing.median_us)


def ceiling_gbs(device: str, device_name: str) -> float | None:
    """The copy bandwidth of this device, from the cache or measured now and cached."""
    key = f"{device}:{device_name}:{torch.get_num_threads()} threads"
    path = cache_file()
    try:
        cached = json.loads(path.read_text())
    except (OSError, ValueError):
        cached = {}
    if isinstance(cached.get(key), (int, float)) and cached[key] > 0:
        return float(cached[key])
    value = measure_ceiling_gbs(device)
    if value is None:
        return None
    cached[key] = value
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(cached, indent=2))
    except OSError:
        pass  # an unwritable cache costs a re-measure next time, nothing more
    return value


def with_bandwidth(kernels: tuple[Kernel, ...], ceiling: float | None) -> tuple[Kernel, ...]:
    rows = []
    for kernel in kernels:
        achieved = gbs(kernel.bytes_total, kernel.time_us)
        share = 100 * achieved / ceiling if achieved is not None and ceiling else None
        rows.append(replace(kernel, gbs=achieved, ceiling_pct=share))
    return tuple(rows)
