"""The machine a report was measured on, as the report's ``machine`` records it: architecture, Triton, CUDA, driver.

Read once per engine (none of it changes while the engine lives). Triton's version is read from its installed
metadata, not by importing it: a CPU run never needs Triton's import cost.
"""

from __future__ import annotations

import functools
import importlib.metadata
import platform
import re
import socket

import torch

from kernel_tui.model.report.machine import MachineIdentity

NVIDIA_DRIVER_FILE = "/proc/driver/nvidia/version"
"""Where the Linux kernel module says its version: read when NVML cannot be asked."""
_DRIVER_VERSION = re.compile(r"Kernel Module\s+(?:for\s+\S+\s+)?([0-9][0-9.]+)")


def machine_identity(device: str, arch: int | None = None) -> MachineIdentity:
    """``device``'s identity; ``arch`` is the architecture a preview generates code for."""
    if device == "cuda-preview":
        architecture: str | None = f"sm_{arch}" if arch is not None else None
    elif device == "cuda":
        major, minor = torch.cuda.get_device_capability()
        architecture = f"sm_{major}{minor}"
    else:
        architecture = platform.machine() or None
    return MachineIdentity(
        architecture=architecture,
        triton_version=_installed_version("triton"),
        cuda_version=torch.version.cuda,
        driver_version=_driver_version() if device == "cuda" else None,
        hostname=socket.gethostname() or None,
    )


@functools.cache
def _installed_version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


@functools.cache
def _driver_version() -> str | None:
    """The NVIDIA driver's version: NVML's answer (the package torch reads GPU utilisation with), else the kernel
    module's; None where neither can be read (another platform, a container without ``/proc/driver``)."""
    try:
        import pynvml  # type: ignore[import-not-found,unused-ignore]

        pynvml.nvmlInit()
        version = pynvml.nvmlSystemGetDriverVersion()
        return version.decode() if isinstance(version, bytes) else str(version)
    except Exception:  # noqa: BLE001 (no NVML, or one that cannot start: the file below may still say)
        pass
    try:
        with open(NVIDIA_DRIVER_FILE, encoding="utf-8") as handle:
            match = _DRIVER_VERSION.search(handle.read())
    except OSError:
        return None
    return match.group(1) if match else None
