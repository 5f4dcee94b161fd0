"""Describing the device: its name, its free memory and its last-level cache."""

from __future__ import annotations

import os
import platform
from pathlib import Path

import torch


def device_name(device: str) -> str:
    if device == "cuda-preview":
        return "CUDA preview: code generated for a GPU, nothing run on one"
    if device == "cuda":
        return torch.cuda.get_device_name()
    return _cpu_model() or platform.processor() or platform.machine()


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def free_memory_bytes(device: str) -> int:
    if device == "cuda":
        free, _total = torch.cuda.mem_get_info()
        return int(free)
    try:
        with open("/proc/meminfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES"))


CPU_CACHES = Path("/sys/devices/system/cpu/cpu0/cache")
_SIZE_UNITS = {"K": 2**10, "M": 2**20, "G": 2**30}


def last_level_cache_bytes(device: str) -> int | None:
    """The largest cache between the device's cores and its memory (a GPU's L2 as torch reports it, a CPU's L3 as
    Linux does), or None where Linux says nothing: data that fits can move faster than a copy from memory."""
    if device == "cuda":
        properties = torch.cuda.get_device_properties(torch.cuda.current_device())
        return int(getattr(properties, "L2_cache_size", 0)) or None  # a build without it (ROCm) says nothing
    sizes = []
    for level in CPU_CACHES.glob("index*"):
        try:
            text = (level / "size").read_text(encoding="utf-8").strip()
        except OSError:
            continue
        number, unit = (text[:-1], text[-1]) if text[-1:] in _SIZE_UNITS else (text, "")
        if number.isdecimal():
            sizes.append(int(number) * _SIZE_UNITS.get(unit, 1))
    return max(sizes, default=None) or None
