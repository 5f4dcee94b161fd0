"""What identifies the machine a report was measured on, beyond its device's name: the report's ``machine``.

Two reports of one scenario are compared side by side (``kernel-tui view``'s device columns) only when the reader
can tell what differed between them: the GPU or its architecture, the torch and Triton that generated the code,
the driver that ran it, and when the ceilings the bandwidth is a share of were measured. No torch here: the UI
reads it; the engine fills it in (``engine/stages/machine_identity.py``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MachineIdentity:
    """The software and hardware a report's numbers depend on, besides ``device_name`` and ``torch_version``."""

    architecture: str | None = None
    """The GPU's architecture as Inductor targets it (``sm_90``; a preview's target), or the CPU's (``x86_64``)."""
    triton_version: str | None = None
    """The Triton installed beside torch, which generates a GPU's compiled kernels; None where there is none."""
    cuda_version: str | None = None
    """The CUDA toolkit torch was built with (``torch.version.cuda``); None for a build without CUDA."""
    driver_version: str | None = None
    """The NVIDIA driver the GPU ran under; None on a CPU and in a preview, which runs on no GPU."""
    hostname: str | None = None
    """The machine's network name: two runs of one GPU model on two machines stay two columns."""


def machine_differences(first: MachineIdentity | None, second: MachineIdentity | None) -> list[str]:
    """The identity fields in which two machines differ, worded for a note: ``Triton 3.4.0 against 3.5.0``."""
    left, right = first or MachineIdentity(), second or MachineIdentity()
    words = {"triton_version": "Triton", "cuda_version": "CUDA", "driver_version": "driver"}
    return [
        f"{word} {getattr(left, name) or 'none'} against {getattr(right, name) or 'none'}"
        for name, word in words.items()
        if getattr(left, name) != getattr(right, name)
    ]
