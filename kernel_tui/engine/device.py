"""Choosing the device, describing it, and the engine-wide torch settings that must precede any compile."""

from __future__ import annotations

import os
import platform
from pathlib import Path
from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    from kernel_tui.transport.protocol import Device


def choose_device(requested: str) -> Device:
    """``auto`` is CUDA when available, else CPU; asking for CUDA without one is an error."""
    if requested == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if requested == "cuda-preview":
        from kernel_tui.engine.preview_support import check_preview

        check_preview()  # a RuntimeError that names what this torch lacks
        return "cuda-preview"
    if requested == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("--device cuda was asked for, but torch sees no CUDA device")
    if requested == "cuda":
        return "cuda"
    if requested == "cpu":
        return "cpu"
    raise RuntimeError(f"unknown device {requested!r}: use auto, cpu or cuda")


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


KERNEL_PROFILE_OFF = (
    "the scenario turned torch._inductor.config.cpp.enable_kernel_profile off: without it the profiler sees no "
    "compiled C++ kernel, so the compiled side was measured with it on"
)
KERNEL_PROFILE_OFF_IN_FN = (
    "fn turns torch._inductor.config.cpp.enable_kernel_profile off as it runs, before its kernels are compiled: "
    "the profiler sees none of its compiled C++ kernels, so the compiled side shows none"
)
DYNAMO_DISABLED = (
    "torch.compile was turned off (torch._dynamo.config.disable, by the scenario or TORCH_COMPILE_DISABLE=1): it "
    "would have run fn eagerly, so the compiled side was measured with it on"
)
DYNAMO_DISABLED_BY_ENVIRONMENT = (
    "TORCHDYNAMO_DISABLE=1 was in the environment: torch.compile would have run fn eagerly, so the compiled side "
    "was measured without it"
)

RECOMPILE_LIMIT_LOWERED = (
    "the scenario lowered dynamo's recompile limit below its default: the engine compiles fn more than once "
    "(to read why kernels stayed apart, for each variant, for the sweep's sizes), and past the limit dynamo runs fn "
    "eagerly for good, so the compiled side was measured with the default"
)


def measurable_again() -> list[str]:
    """Turn back on what the engine needs to compile and see compiled kernels, where the scenario's code (or the
    environment) turned it off; a note for each. Without either, the compiled column silently repeats eager's
    kernels or shows none, with no error."""
    import torch._dynamo.config as dynamo_config

    notes = kernel_profile_on()
    if dynamo_config.disable:
        dynamo_config.disable = False
        notes.append(DYNAMO_DISABLED)
    # Hit once, the limit leaves fn's code eager for the rest of the run, raising it afterwards or not: the sweep's
    # compiled line was eager's at every size but the profiled one, and said 0 recompiles.
    from kernel_tui.engine.compile_watch import DYNAMO_RECOMPILE_LIMITS, raise_recompile_limits

    if raise_recompile_limits(DYNAMO_RECOMPILE_LIMITS):
        notes.append(RECOMPILE_LIMIT_LOWERED)
    # torch.compile reads this one from the environment each time it is called, not from its config.
    if os.environ.get("TORCHDYNAMO_DISABLE") == "1":
        del os.environ["TORCHDYNAMO_DISABLE"]
        notes.append(DYNAMO_DISABLED_BY_ENVIRONMENT)
    return notes


def kernel_profile_on() -> list[str]:
    """Compiled C++ kernels are invisible to the profiler without ``enable_kernel_profile``; it is part of the
    compile cache key, so it stays on for profiled and timed runs alike. A note when it was off."""
    import torch._inductor.config as inductor_config

    if inductor_config.cpp.enable_kernel_profile:
        return []
    inductor_config.cpp.enable_kernel_profile = True
    return [KERNEL_PROFILE_OFF]


def configure_torch(device: str) -> None:
    """Settings that are part of Inductor's cache key or change what the profiler can see: set them once."""
    import logging

    # A CUDA build of torch on a machine without CUDA warns on every C++ compile; it is not the user's news.
    logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)

    # Off by default, so no note; a dynamo disabled by the environment is left for each run to tell.
    kernel_profile_on()
    # Scenarios are inference; one grad mode everywhere also keeps dynamo's guards from recompiling
    # between the profiled, timed and swept calls.
    torch.set_grad_enabled(False)
