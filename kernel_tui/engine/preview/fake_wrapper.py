"""What a wrapper Inductor generated for the fake GPU calls below the dispatcher, made to work on fake tensors.

The wrapper allocates its buffers with the CUDA allocator directly (``empty_strided_cuda``), asks for the
current stream, and views its inputs with ``reinterpret_tensor`` (``torch._C._dynamo.guards._reinterpret_tensor``,
a C++ call that makes a plain tensor of the same storage): each of these would touch a device that is not
there or turn a fake tensor into a plain meta tensor, and the next library call on it (``extern_kernels.addmm``
reading ``w.t()``) fails with "Please convert all Tensors to FakeTensors first". Under the fake mode an
``empty_strided`` and an ``as_strided`` give what the real calls give, as fake tensors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

ALLOCATORS = ("empty_strided_cuda", "empty_strided_cpu", "empty_strided_cpu_pinned")


def make_wrapper_fake(module: Any, fake_mode: FakeTensorMode) -> None:
    """Rebind, in a generated wrapper module, every call that would reach the device or leave the fake mode."""
    namespace = vars(module)
    for name in ALLOCATORS:
        if name in namespace:
            namespace[name] = _empty_on("cuda" if name.endswith("cuda") else "cpu", fake_mode)
    if "reinterpret_tensor" in namespace:
        namespace["reinterpret_tensor"] = _fake_reinterpret(namespace["reinterpret_tensor"], fake_mode)
    namespace["get_raw_stream"] = lambda device: 0
    namespace["copy_if_misaligned"] = lambda tensor: tensor


def _empty_on(device: str, fake_mode: FakeTensorMode) -> Callable[..., torch.Tensor]:
    def empty(size: Any, stride: Any, dtype: torch.dtype) -> torch.Tensor:
        with fake_mode:
            return torch.empty_strided(size, stride, dtype=dtype, device=device)

    return empty


def _fake_reinterpret(real: Callable[..., torch.Tensor], fake_mode: FakeTensorMode) -> Callable[..., torch.Tensor]:
    def reinterpret_tensor(tensor: torch.Tensor, size: Any, stride: Any, offset: int = 0) -> torch.Tensor:
        if isinstance(tensor, FakeTensor):
            with fake_mode:
                return torch.as_strided(tensor, size, stride, offset)
        return real(tensor, size, stride, offset)

    return reinterpret_tensor
