"""What ATen's CUDA code launches for one eager operator, where that is not the one kernel a preview assumes.

The preview counts one launch per ATen operator that works on the device. For most operators that is the
rule a GPU follows; for a few, ATen's CUDA source launches more, and the count here is a prediction read from
that source (torch 2.11-2.14), marked as such on the row (``Kernel.predicted``) until a GPU confirms it:

- a full reduction (one output) of a float32 tensor of 2^19 elements or more: ``Reduce.cuh`` shares it out
  among blocks that meet through semaphores, which it clears with ``cudaMemsetAsync`` first (``Memset
  (Device)``, 4 bytes for one output) before the reduce kernel;
- ``logsumexp``: ``ReduceOps.cpp`` runs it as nine operators (``amax``, ``abs``, ``eq``, ``masked_fill_``,
  ``sub``, ``exp_``, ``sum``, ``log_``, ``add_``), each a kernel, which the dispatcher sees as one;
- a cumulative sum over a tensor's only non-trivial dimension: cub's ``DeviceScan`` (an init kernel, then the
  scan kernel);
- ``sort`` and ``topk``: several kernels (cub radix sort passes, index fills, copies) whose number depends on
  the size; the row keeps one launch and says it is a lower bound;
- ``.item()`` copies into a pinned host buffer: ``Memcpy DtoH (Device -> Pinned)``;
- PyTorch's fast path for an eval-mode transformer layer (``_transformer_encoder_layer_fwd``,
  ``_native_multi_head_attention``): one operator whose CUDA code launches its projections, attention, norms and
  feed-forward as kernels of their own; Inductor leaves it as it is, so it is one row on both sides, and the row
  keeps one launch and says it is a lower bound.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import torch

from kernel_tui.engine.compiler.generated_code import PINNED_DTOH
from kernel_tui.engine.counting.op_kinds import FUSED_LAYERS
from kernel_tui.engine.counting.traffic import Traffic
from kernel_tui.model.report.kernel import LOWER_BOUND

GLOBAL_REDUCE_MIN = 1 << 19
"""From this many float32 elements a full reduction splits across blocks (``Reduce.cuh``, the audit's finding)."""
SEMAPHORE_BYTES = 4
"""``Reduce.cuh``'s ``semaphore_size()``: an int per block column; one for a reduction to a single value."""
FULL_REDUCTIONS = frozenset(
    f"aten::{name}"
    for name in (
        "sum", "mean", "amax", "amin", "max", "min", "prod", "nansum", "linalg_vector_norm", "norm",
        "var", "std", "var_mean", "std_mean", "argmax", "argmin", "all", "any",
    )
)  # fmt: skip
LOGSUMEXP_PASSES = ("amax", "abs", "eq", "masked_fill_", "sub", "exp_", "sum", "log_", "add_")
SCANS = frozenset({"aten::cumsum", "aten::cumprod"})
SORTS = frozenset({"aten::sort", "aten::topk", "aten::argsort", "aten::msort"})
MEMSET_NAME = "Memset (Device)"

REDUCE_BASIS = "memset + reduce: ATen's Reduce.cuh clears its semaphores before a split reduction (prediction)"
LOGSUMEXP_BASIS = "9 kernels: ATen's logsumexp (ReduceOps.cpp) runs nine operators (prediction)"
SCAN_BASIS = "2 kernels: cub's DeviceScan, an init kernel and the scan (prediction)"
SORT_BASIS = f"at least 1: a GPU sort runs several cub passes, their number depends on the size {LOWER_BOUND}"
FUSED_LAYER_BASIS = (
    "at least 1: PyTorch's fast path runs the layer as one operator, which on a GPU launches its projections, "
    f"attention, norms and feed-forward as kernels of their own {LOWER_BOUND}"
)
PINNED_BASIS = ".item() copies into a pinned host buffer (ATen's _local_scalar_dense_cuda)"


def cuda_launches(
    launch: Traffic, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any, device: str = "cuda"
) -> list[Traffic]:
    """The launches a GPU makes for one dispatched operator, ``launch`` being the preview's one-launch record;
    ``device`` is the device type standing for the GPU (``cpu`` for a training step traced on CPU fakes)."""
    name = launch.name
    if name == "aten::_local_scalar_dense" and launch.kind == "memcpy":
        return [replace(launch, call=PINNED_DTOH, basis=PINNED_BASIS)]
    source = args[0] if args and isinstance(args[0], torch.Tensor) else None
    if source is None or source.device.type != device:
        return [launch]
    if name == "aten::logsumexp":
        return _logsumexp(launch, source, out)
    if name in FULL_REDUCTIONS and _splits(source, out):
        memset = Traffic(name, 0, SEMAPHORE_BYTES, launch.aten_ops, launch.lines, call=MEMSET_NAME, kind="memset")
        return [replace(memset, basis=REDUCE_BASIS), replace(launch, basis=REDUCE_BASIS)]
    if name in SCANS and source.numel() > 1 and max(source.shape, default=1) == source.numel():
        init = Traffic(name, 0, 0, launch.aten_ops, launch.lines, call="DeviceScanInitKernel", kind="kernel")
        return [replace(init, basis=SCAN_BASIS), replace(launch, basis=SCAN_BASIS)]
    if (basis := named_basis(name)) is not None:
        return [replace(launch, basis=basis)]
    return [launch]


def named_basis(name: str) -> str | None:
    """Why one row of operator ``name`` is a lower bound, whatever its arguments (a sort, a fused layer); the
    compiled side's rows ask it too, for an operator Inductor leaves as it is."""
    if name in SORTS:
        return SORT_BASIS
    if name in FUSED_LAYERS:
        return FUSED_LAYER_BASIS
    return None


def _splits(source: torch.Tensor, out: Any) -> bool:
    outputs = out if isinstance(out, (tuple, list)) else (out,)
    first = next((t for t in outputs if isinstance(t, torch.Tensor)), None)
    return (
        first is not None
        and first.numel() == 1
        and source.dtype == torch.float32
        and source.numel() >= GLOBAL_REDUCE_MIN
    )


def _logsumexp(launch: Traffic, source: torch.Tensor, out: Any) -> list[Traffic]:
    """Each pass with the bytes it moves: ``N`` the input, ``R`` the reduced values (``out``'s size)."""
    big = source.numel() * source.element_size()
    small = out.numel() * out.element_size() if isinstance(out, torch.Tensor) else 0
    flags = out.numel() if isinstance(out, torch.Tensor) else 0  # the bool mask of infinite maxima
    moved = {
        "amax": (big, small),
        "abs": (small, small),
        "eq": (small, flags),
        "masked_fill_": (small + flags, small),
        "sub": (big + small, big),
        "exp_": (big, big),
        "sum": (big, small),
        "log_": (small, small),
        "add_": (2 * small, small),
    }
    passes = []
    for step in LOGSUMEXP_PASSES:
        read, written = moved[step]
        passes.append(
            Traffic(
                launch.name, read, written, (f"aten::{step}",), launch.lines, call=f"aten::{step}", kind="op",
                basis=LOGSUMEXP_BASIS,
            )
        )  # fmt: skip
    if _splits(source, out):  # its amax and sum are full reductions of their own: a memset each
        memset = Traffic(
            launch.name, 0, SEMAPHORE_BYTES, launch.aten_ops, launch.lines, call=MEMSET_NAME, kind="memset"
        )
        for index in (6, 0):
            passes.insert(index, replace(memset, basis=LOGSUMEXP_BASIS))
    return passes
