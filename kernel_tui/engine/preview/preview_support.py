"""Whether the CUDA preview can run on this torch: each of its patches finds what it expects, or it refuses.

The preview fakes a GPU by patching private parts of torch and Triton (``cuda_fakes``, ``preview``). Releases
move them, so the preview does not trust one version number: before it starts, it looks up every target it
patches or calls, by name, and checks that the functions it replaces still take the arguments its stand-ins
take. The first one missing is the refusal, named ("torch._inductor.fx_passes.pad_mm._should_pad is not in
torch 2.10.0"), once, before any scenario runs.

Running the generated code on fake tensors also provokes torch's own warnings, which say nothing about the
user's code: ``quiet_torch_warnings`` keeps them from the user.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import warnings
from collections.abc import Iterator
from typing import Any

import torch


class PreviewUnavailable(RuntimeError):
    """The preview cannot run with this torch: the message says why and what would work."""


TORCH_TARGETS = (
    "torch._subclasses.fake_tensor.FakeTensorMode.avoid_device_init",
    "torch._C._cuda_getDeviceCount",
    "torch._C._cuda_getDevice",
    "torch._C._cuda_setDevice",
    "torch.cuda._lazy_init",
    "torch.cuda.random._lazy_init",
    "torch.cuda.device_count",
    "torch.cuda._exchange_device",
    "torch.cuda._maybe_exchange_device",
    "torch.cuda.get_rng_state",
    "torch.cuda.set_rng_state",
    "torch._utils_internal.max_clock_rate",
    "torch._inductor.async_compile.AsyncCompile.triton",
    "torch._inductor.async_compile.AsyncCompile.cpp",
    "torch._inductor.async_compile.AsyncCompile.cpp_pybinding",
    "torch._inductor.constant_folding.ConstantFolder.run",
    "torch._inductor.fx_passes.pad_mm._should_pad",
    "torch._inductor.fx_passes.pad_mm.should_pad_mm_bf16",
    "torch._inductor.fx_passes.pad_mm.is_mm_compute_bound",
    "torch._inductor.graph.GraphLowering.compile_to_module",
    "torch._inductor.codecache.PyCodeCache.modules",
    "torch._dynamo.device_interface.caching_worker_device_properties",
    "torch.utils._triton.has_triton.cache_clear",
    "torch._TorchCompileInductorWrapper",
)
"""What ``cuda_fakes.fake_cuda`` and the preview's backend patch or call in torch."""

TRITON_TARGETS = (
    "triton.backends.compiler.GPUTarget",
    "triton.backends.nvidia.driver.CudaDriver",
    "triton.runtime.driver.driver.set_active",
    "triton.runtime.driver.driver._active",
)
"""What ``cuda_fakes.fake_cuda`` replaces in Triton: the active driver, by one that reports the target GPU."""

STAND_IN_PARAMETERS = {
    "torch._inductor.fx_passes.pad_mm._should_pad": ("match", "mat1", "mat2", "op", "input"),
    "torch._inductor.async_compile.AsyncCompile.triton": ("self", "kernel_name", "source_code"),
}
"""Functions replaced by stand-ins that Inductor calls with these arguments: a release that renamed or added
one would call the stand-in wrongly."""


def check_preview() -> None:
    """Refuse, naming the missing piece, where the preview's patches would not find what they expect."""
    if torch.version.cuda is None:
        raise PreviewUnavailable(
            f"--device cuda-preview needs the CUDA build of torch (what `pip install torch` gives on Linux); "
            f"this is torch {torch.__version__}, a CPU-only build"
        )
    try:
        import triton
    except ImportError as error:
        raise PreviewUnavailable(f"--device cuda-preview needs triton, which comes with CUDA torch: {error}") from error
    versions = f"torch {torch.__version__} with triton {getattr(triton, '__version__', '?')}"
    for target in (*TORCH_TARGETS, *TRITON_TARGETS):
        if not _exists(target):
            raise PreviewUnavailable(
                f"--device cuda-preview cannot fake a GPU on {versions}: it patches {target}, which is not there"
            )
    for target, expected in STAND_IN_PARAMETERS.items():
        found = _parameters(resolve(target))
        if found is not None and tuple(found[: len(expected)]) != expected:
            raise PreviewUnavailable(
                f"--device cuda-preview cannot fake a GPU on {versions}: {target} takes ({', '.join(found)}), "
                f"its stand-in ({', '.join(expected)})"
            )


def resolve(dotted: str) -> Any:
    """The object a dotted name stands for: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        try:
            value: Any = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for name in parts[split:]:
            value = getattr(value, name)
        return value
    raise ImportError(dotted)


def _exists(dotted: str) -> bool:
    try:
        resolve(dotted)
    except Exception:  # noqa: BLE001 - a module that fails to import in its own way lacks the target all the same
        return False
    return True


def _parameters(function: Any) -> list[str] | None:
    try:
        return list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return None


TORCH_WARNINGS = (
    # Inductor checks its inputs' alignment by address; a fake tensor's address is 0, aligned.
    "Accessing the data pointer of FakeTensor",
    # Asked of the fake device's properties, about a setting the user's GPU would decide: not the user's news.
    ".*TensorFloat32 tensor cores.*",
    ".*allow_tf32.*",
)


@contextlib.contextmanager
def quiet_torch_warnings() -> Iterator[None]:
    """Torch's warnings that the preview provokes by running code on a device that is not there."""
    with warnings.catch_warnings():
        for message in TORCH_WARNINGS:
            warnings.filterwarnings("ignore", message)
        yield
