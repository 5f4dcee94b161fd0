"""A CUDA GPU that is not there: what Inductor needs to believe in one while it generates code, and nothing more.

The CUDA preview compiles a scenario for a GPU of a given architecture on any machine. Dynamo traces ``fn`` on
fake CUDA tensors without help; only Inductor's code generation asks the CUDA runtime and Triton's driver about
the device. ``fake_cuda`` answers those questions for one target (sm_80, sm_90 or sm_100) and makes every
decision a real GPU would make by measuring with a fixed policy, recorded as an assumption. It is active only
around Inductor's compile and around running the generated wrapper on fake tensors, never while Dynamo traces
(there, the same patches would make Dynamo save CUDA RNG state and probe stream capture).

What is faked, and why (each is a private API that a release can change: ``preview_support`` checks that each
target is there before the preview starts):

1. Device count and index (``torch._C._cuda_getDeviceCount``, ``_cuda_getDevice``, ``_cuda_setDevice``,
   ``torch.cuda.device_count``, ``_exchange_device``, ``_maybe_exchange_device``): one device, index 0, the
   generated wrapper's ``_DeviceGuard`` included.
2. Device properties (``torch.cuda._get_device_properties``; ``_lazy_init`` a no-op): SM count, shared memory
   and registers of the target decide block sizes and how a large reduction is split.
3. RNG state (``torch.cuda.get_rng_state`` / ``set_rng_state``): AOTAutograd saves and restores it.
4. ``FakeTensorMode.avoid_device_init`` forced on, as on a machine without CUDA: pattern-matcher set-up would
   otherwise make real CUDA tensors.
5. Triton's active driver: a ``CudaDriver`` that reports ``GPUTarget('cuda', arch, 32)`` and never loads
   libcuda; Inductor checks ``isinstance(driver, CudaDriver)``.
6. ``torch._utils_internal.max_clock_rate`` (it would run ``nvidia-smi``).
7. Constant folding evaluates real tensors on the graph's device: it runs on the CPU, and only the folded
   scalar is kept, so the graph is the same.
8. ``pad_mm`` benchmarks padded against unpadded matmuls on the GPU: never pad, recorded as an assumption.
9. Kernel compilation (``AsyncCompile.triton``, ``cpp``, ``cpp_pybinding``) is replaced by stubs whose launch
   does nothing: loading the wrapper compiles nothing and running it executes nothing.
10. Caches that remember device facts (``has_triton``, ``is_big_gpu``, the device-properties cache, ...) are
    cleared on entry and on exit, so no fake fact outlives the preview.

Also decided without a GPU, each recorded as an assumption where it applies: the SDPA backend (chosen in C++
from the real device; ``rewrite_sdpa`` approximates CUDA's choice), ``max-autotune`` (benchmarks candidates:
the preview keeps the default choices) and CUDA graphs (``reduce-overhead``: the preview lists the kernels a
graph would replay).
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, cast
from unittest import mock

import torch

from kernel_tui.engine.preview.preview_support import PreviewUnavailable
from kernel_tui.transport.protocol import ARCHES

# Published figures of one board per architecture: what Inductor reads decides block sizes, reduction splits
# and whether GEMM templates are considered.
_TARGETS: dict[int, dict[str, Any]] = {
    80: dict(
        name="NVIDIA A100-SXM4-80GB",
        multi_processor_count=108,
        shared_memory_per_block_optin=166912,
        shared_memory_per_multiprocessor=167936,
        L2_cache_size=40 * 2**20,
        clock_rate=1410000,
        memory_clock_rate=1593000,
        memory_bus_width=5120,
        total_memory=80 * 2**30,
    ),
    90: dict(
        name="NVIDIA H100 80GB HBM3",
        multi_processor_count=132,
        shared_memory_per_block_optin=232448,
        shared_memory_per_multiprocessor=233472,
        L2_cache_size=50 * 2**20,
        clock_rate=1980000,
        memory_clock_rate=2619000,
        memory_bus_width=5120,
        total_memory=80 * 2**30,
    ),
    100: dict(
        name="NVIDIA B200",
        multi_processor_count=148,
        shared_memory_per_block_optin=232448,
        shared_memory_per_multiprocessor=233472,
        L2_cache_size=126 * 2**20,
        clock_rate=1965000,
        memory_clock_rate=3996000,
        memory_bus_width=8192,
        total_memory=180 * 2**30,
    ),
}


def device_properties(arch: int) -> types.SimpleNamespace:
    """What ``torch.cuda.get_device_properties`` would say on a board of architecture ``arch``."""
    if arch not in _TARGETS:
        raise PreviewUnavailable(f"unknown architecture sm_{arch}: use one of {', '.join(map(str, ARCHES))}")
    major, minor = divmod(arch, 10)
    return types.SimpleNamespace(
        major=major,
        minor=minor,
        warp_size=32,
        max_threads_per_multi_processor=2048,
        max_threads_per_block=1024,
        regs_per_multiprocessor=65536,
        shared_memory_per_block=48 * 1024,
        is_integrated=0,
        is_multi_gpu_board=0,
        gcnArchName="",
        uuid="00000000-0000-0000-0000-000000000000",
        pci_bus_id=0,
        pci_device_id=0,
        pci_domain_id=0,
        **_TARGETS[arch],
    )


class _StubKernel:
    """Stands in for a compiled kernel: launching it does nothing (there is no device to run it on)."""

    def __init__(self, name: str, source: str) -> None:
        self.kernel_name, self.source = name, source
        self.launch_plan: Any = None
        """A Triton kernel's ``launch_info.TritonLaunchPlan``: how Inductor would launch it."""

    def run(self, *args: Any, **kwargs: Any) -> None:
        return None

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        return None

    def __getattr__(self, item: str) -> Any:
        if item.startswith("__"):
            raise AttributeError(item)
        return lambda *args, **kwargs: None  # precompile(), set_compile_info() and the like


def _clear_device_caches() -> None:
    from torch._dynamo import device_interface
    from torch._inductor import utils as inductor_utils
    from torch.utils._triton import has_triton

    has_triton.cache_clear()
    device_interface.caching_worker_device_properties.pop("cuda", None)
    for name in ("is_big_gpu", "get_max_num_sms", "get_device_tflops", "get_gpu_shared_memory", "get_gpu_type"):
        cached = getattr(inductor_utils, name, None)
        if cached is not None and hasattr(cached, "cache_clear"):
            cached.cache_clear()


class _CudaToCpu(torch.utils._python_dispatch.TorchDispatchMode):
    """Runs real-tensor operations that ask for a CUDA device on the CPU instead."""

    def __torch_dispatch__(
        self, func: Any, types: Sequence[type], args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        def on_cpu(value: Any) -> Any:
            if isinstance(value, torch.device) and value.type == "cuda":
                return torch.device("cpu")
            if isinstance(value, str) and value.startswith("cuda"):
                return "cpu"
            return value

        args, kwargs = torch.utils._pytree.tree_map(on_cpu, (args, dict(kwargs or {})))
        return func(*args, **kwargs)


def _constant_folding_on_cpu() -> Any:
    from torch._inductor.constant_folding import ConstantFolder

    original = ConstantFolder.run

    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        with _CudaToCpu():  # type: ignore[no-untyped-call]  # it inherits TorchDispatchMode's unannotated __init__
            return original(self, *args, **kwargs)

    return mock.patch.object(ConstantFolder, "run", run)


def _no_constants_made_for_real() -> Any:
    """AOT autograd's trace keeps a real copy of each one-element tensor it can compute from constants, so that a
    later ``.item()`` can read it; it computes it for real, on the device the graph names. A tensor made from
    Python data on the GPU (an index list, ``x[:, [-1]]`` in nanoGPT's forward; the ``torch.tensor([], device=...)``
    of Hugging Face's cache) then needed a GPU driver, and the compile failed. The preview keeps no such copies:
    the graph is the same; a ``.item()`` of one is a stand-in value, as every ``.item()`` in the preview is."""
    from torch.fx.experimental import proxy_tensor

    return mock.patch.object(proxy_tensor, "CONSTANT_NUMEL_LIMIT", -1)


def _pad_mm_policy(assumptions: list[str]) -> Any:
    """pad_mm's own checks up to where it would benchmark on the GPU; there, never pad."""
    from torch._inductor import config as inductor_config
    from torch._inductor.fx_passes import pad_mm

    def should_pad(match: Any, mat1: Any, mat2: Any, op: Any, input: Any = None) -> bool:
        if op is torch.ops.aten.bmm:
            m, k, n = mat1.shape[1], mat1.shape[2], mat2.shape[2]
        elif op in (torch.ops.aten.mm, torch.ops.aten.addmm):
            m, k, n = mat1.shape[0], mat1.shape[1], mat2.shape[1]
        else:
            return False
        if inductor_config.force_shape_pad:
            return True
        # torch 2.12 turned symbolic sizes into hints here; before, pad_mm compared the sizes as they came.
        hint_symbols = getattr(pad_mm, "hint_symbols", None)
        if hint_symbols is not None:
            m, k, n = hint_symbols((m, k, n))
        if "pad_aten_mm_pass" in inductor_config.post_grad_fusion_options and pad_mm.should_pad_mm_bf16(
            mat1.dtype, m, n, k
        ):
            return True
        if not pad_mm.is_mm_compute_bound(m, k, n, mat1.dtype):
            return False
        assumptions.append(
            f"pad_mm: {op} {m}×{k}×{n} {str(mat1.dtype).removeprefix('torch.')}: a GPU benchmarks padded "
            "against unpadded here; the preview does not pad"
        )
        return False

    return mock.patch.object(pad_mm, "_should_pad", should_pad)


@contextlib.contextmanager
def fake_cuda(arch: int, assumptions: list[str]) -> Iterator[types.SimpleNamespace]:
    """torch and Triton see one CUDA device of architecture ``arch``; kernels are generated, never compiled."""
    from torch._inductor.async_compile import AsyncCompile
    from torch._subclasses.fake_tensor import FakeTensorMode
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.driver import CudaDriver
    from triton.runtime.driver import driver as triton_driver

    props = device_properties(arch)

    class FakeCudaDriver(CudaDriver):  # type: ignore[misc]  # triton ships no types: CudaDriver is Any to mypy
        def __init__(self) -> None:  # CudaDriver's own would build and load cuda_utils.so against libcuda
            self.utils = types.SimpleNamespace(
                get_device_properties=lambda device: {
                    "max_shared_mem": props.shared_memory_per_block_optin,
                    "multiprocessor_count": props.multi_processor_count,
                    "max_num_regs": props.regs_per_multiprocessor,
                    "warpSize": 32,
                    "sm_clock_rate": props.clock_rate,
                    "mem_clock_rate": props.memory_clock_rate,
                    "mem_bus_width": props.memory_bus_width,
                }
            )
            self.launcher_cls = None

        def get_current_target(self) -> Any:
            return GPUTarget("cuda", arch, 32)

        def get_current_device(self) -> int:
            return 0

        def set_current_device(self, device: int) -> None:
            pass

        def get_device_capability(self, device: int = 0) -> tuple[int, int]:
            return (props.major, props.minor)

        def get_current_stream(self, device: int | None = None) -> int:
            return 0

        def get_active_torch_device(self) -> torch.device:
            return torch.device("cuda", 0)

    def stub_triton(self: Any, kernel_name: str, source_code: str, device_str: str = "cuda") -> _StubKernel:
        from kernel_tui.engine.counting.launch_info import TritonLaunchPlan

        stub = _StubKernel(kernel_name, source_code)
        stub.launch_plan = TritonLaunchPlan(source_code)  # read now, while the fake device answers the heuristics
        return stub

    def stub_cpp(self: Any, *args: Any) -> _StubKernel:
        return _StubKernel("cpp", str(args[-1]) if args else "")

    patches = [
        mock.patch.object(FakeTensorMode, "avoid_device_init", property(lambda self: True)),
        mock.patch.object(torch._C, "_cuda_getDeviceCount", lambda: 1),
        mock.patch.object(torch._C, "_cuda_getDevice", lambda: 0),
        mock.patch.object(torch._C, "_cuda_setDevice", lambda device: None),
        mock.patch.object(torch.cuda, "_lazy_init", lambda: None),
        mock.patch.object(torch.cuda.random, "_lazy_init", lambda: None),
        mock.patch.object(torch.cuda, "_get_device_properties", lambda device=None: props, create=True),
        mock.patch.object(torch.cuda, "device_count", lambda: 1),
        mock.patch.object(torch.cuda, "_exchange_device", lambda device: 0),
        mock.patch.object(torch.cuda, "_maybe_exchange_device", lambda device: 0),
        mock.patch.object(torch.cuda, "get_rng_state", lambda device="cuda": torch.zeros(16, dtype=torch.uint8)),
        mock.patch.object(torch.cuda, "set_rng_state", lambda new_state, device="cuda": None),
        mock.patch.object(torch._utils_internal, "max_clock_rate", lambda: props.clock_rate // 1000),
        mock.patch.object(AsyncCompile, "triton", stub_triton),
        mock.patch.object(AsyncCompile, "cpp", stub_cpp),
        mock.patch.object(AsyncCompile, "cpp_pybinding", stub_cpp),
        _constant_folding_on_cpu(),
        _no_constants_made_for_real(),
        _pad_mm_policy(assumptions),
    ]
    had_driver = triton_driver._active
    with contextlib.ExitStack() as stack:
        for patch in patches:
            stack.enter_context(patch)
        triton_driver.set_active(FakeCudaDriver())
        _clear_device_caches()
        try:
            yield props
        finally:
            triton_driver._active = had_driver
            _clear_device_caches()


# -- scaled_dot_product_attention: the backend a GPU would pick ------------------------------------------------


def _sdpa_choice(q: Any, k: Any, v: Any, mask: Any, is_causal: bool, enable_gqa: bool, arch: int) -> str:
    """An approximation of sdp_utils.cpp's CUDA order: flash, then memory-efficient, then math."""
    d = q.shape[-1]
    four_d = q.dim() == 4 and k.dim() == 4 and v.dim() == 4
    heads_match = enable_gqa or (q.shape[1] == k.shape[1] == v.shape[1])
    half = q.dtype in (torch.float16, torch.bfloat16)
    if (
        four_d
        and heads_match
        and mask is None
        and arch >= 80
        and half
        and d <= 256
        and d % 8 == 0
        and k.shape[-1] == d
        and v.shape[-1] == d
        and not (is_causal and q.shape[-2] != k.shape[-2])
    ):
        return "flash"
    align = 8 if half else 4
    if (
        four_d
        and heads_match
        and not enable_gqa
        and d % align == 0
        and v.shape[-1] % align == 0
        and q.dtype in (torch.float16, torch.bfloat16, torch.float32)
    ):
        return "efficient"
    return "math"


def _sdpa_as(backend: str) -> Any:
    def sdpa(
        query: torch.Tensor,
        key: torch.Tensor,
        value: torch.Tensor,
        attn_mask: torch.Tensor | None = None,
        dropout_p: float = 0.0,
        is_causal: bool = False,
        scale: float | None = None,
        enable_gqa: bool = False,
    ) -> torch.Tensor:
        if backend == "flash":
            flash = torch.ops.aten._scaled_dot_product_flash_attention(
                query, key, value, dropout_p, is_causal, False, scale=scale
            )
            return cast(torch.Tensor, flash[0])  # the attention output; the rest are what backward needs
        if attn_mask is not None and attn_mask.dtype == torch.bool:
            attn_mask = torch.where(attn_mask, 0.0, float("-inf")).to(query.dtype)
        if attn_mask is not None:
            attn_mask = attn_mask.expand(query.shape[0], query.shape[1], query.shape[2], key.shape[2])
        grad = query.requires_grad or key.requires_grad or value.requires_grad
        efficient = torch.ops.aten._scaled_dot_product_efficient_attention(
            query, key, value, attn_mask, grad, dropout_p, is_causal, scale=scale
        )
        return cast(torch.Tensor, efficient[0])  # the attention output; the rest are what backward needs

    sdpa.__name__ = f"sdpa_{backend}"
    return sdpa


_SDPA_ARGS = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale", "enable_gqa")


def _sdpa_targets() -> set[Any]:
    return {torch._C._nn.scaled_dot_product_attention, torch.nn.functional.scaled_dot_product_attention}


def _sdpa_decide(bound: dict[str, Any], value: Any, arch: int, assumptions: list[str]) -> str:
    q, k, v = value(bound["query"]), value(bound["key"]), value(bound["value"])
    choice = _sdpa_choice(
        q, k, v, bound.get("attn_mask"), bool(bound.get("is_causal", False)), bool(bound.get("enable_gqa", False)), arch
    )
    assumptions.append(
        f"SDPA backend: a GPU chooses it at run time; for q {list(q.shape)} {str(q.dtype).removeprefix('torch.')}"
        f" the preview assumes {choice}"
    )
    return choice


def rewrite_sdpa(gm: torch.fx.GraphModule, arch: int, assumptions: list[str]) -> None:
    """Point each ``scaled_dot_product_attention`` of a Dynamo graph at the fused op a GPU would dispatch to.

    Without a device the dispatcher would pick the math backend, which Inductor decomposes into matmuls and a
    softmax: a different kernel list from any real GPU's."""
    targets = _sdpa_targets()
    changed = False
    for node in gm.graph.nodes:
        if node.op != "call_function" or node.target not in targets:
            continue

        def value(arg: Any) -> Any:
            return arg.meta.get("example_value", arg.meta.get("val")) if isinstance(arg, torch.fx.Node) else arg

        choice = _sdpa_decide({**dict(zip(_SDPA_ARGS, node.args)), **node.kwargs}, value, arch, assumptions)
        if choice != "math":
            node.target = _sdpa_as(choice)
            changed = True
    if changed:
        gm.recompile()


class SdpaAsOnGpu(torch.overrides.TorchFunctionMode):
    """Eager, the same choice as ``rewrite_sdpa``: the fused attention a GPU would run, not the math fallback
    the dispatcher picks on fake tensors.

    A module's fast path (an eval-mode ``TransformerEncoderLayer`` or ``MultiheadAttention``) declines when
    ``torch.overrides.has_torch_function`` says yes, as it does for any mode like this one: while it is on,
    that question is answered as a GPU run, which has no such mode, would answer it."""

    def __init__(self, arch: int, assumptions: list[str]) -> None:
        super().__init__()
        self.arch = arch
        self.assumptions = assumptions
        self._replaced: list[Any] = []  # torch.overrides.has_torch_function as it was at each entry

    def __enter__(self) -> SdpaAsOnGpu:
        self._replaced.append(torch.overrides.has_torch_function)
        torch.overrides.has_torch_function = self._as_without_this_mode
        try:
            return cast("SdpaAsOnGpu", super().__enter__())  # type: ignore[no-untyped-call]  # torch: unannotated
        except BaseException:
            torch.overrides.has_torch_function = self._replaced.pop()
            raise

    def __exit__(self, *exc: object) -> None:
        try:
            super().__exit__(*exc)  # type: ignore[no-untyped-call]  # torch leaves it unannotated
        finally:
            torch.overrides.has_torch_function = self._replaced.pop()

    def _as_without_this_mode(self, args: Iterable[Any]) -> bool:
        current = torch.overrides._get_current_function_mode()  # type: ignore[no-untyped-call]  # unannotated
        original = self._replaced[0]
        if current is not self:
            return bool(original(args))
        with torch.overrides._pop_mode_temporarily():
            return bool(original(args))

    def __torch_function__(
        self, func: Any, types: Sequence[type], args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        kwargs = kwargs or {}
        if func in _sdpa_targets():
            choice = _sdpa_decide(
                {**dict(zip(_SDPA_ARGS, args)), **kwargs}, lambda arg: arg, self.arch, self.assumptions
            )
            if choice != "math":
                return _sdpa_as(choice)(*args, **kwargs)
        return func(*args, **kwargs)
