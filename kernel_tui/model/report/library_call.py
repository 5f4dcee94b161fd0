"""A library call: one ATen operator that hands its work to a vendor library (cuBLAS, cuDNN), and the kernels
the library ran inside it.

PyTorch and Inductor decide the calls (eager's ``aten::mm``, a compiled graph's ``extern_kernels.mm``); how many
kernels one call runs is the library's own heuristic, per GPU, shape, dtype, library version and workspace.
cuBLAS's split-K runs one product as a gemm kernel over slices of K and a second kernel that adds the slices up
(an H200, 256 × 256 fp32: ``…execute_kernel…`` with grid z 4, then ``…execute_split_k_kernel…`` with grid z 1).
So a kernel table shows a library call as one row whose ``calls`` are calls, with the kernels inside it listed
(``Kernel.library_kernels``), and a claim about launches counts the call once; Triton's and ATen's own kernels
stay one launch each. Plain data and names, no torch: the engine groups, the tables and the explorer show.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kernel_tui.model.report.launch import KernelLaunch

MATMULS = frozenset(
    {"mm", "addmm", "bmm", "baddbmm", "addbmm", "mv", "addmv", "dot", "vdot", "_addmm_activation", "_scaled_mm"}
)
"""ATen operators whose product a BLAS computes (cuBLAS or cuBLASLt on a GPU)."""
CONVOLUTIONS = frozenset(
    {
        "cudnn_convolution",
        "cudnn_convolution_transpose",
        "cudnn_convolution_relu",
        "cudnn_convolution_add_relu",
        "miopen_convolution",
        "miopen_convolution_transpose",
        "miopen_depthwise_convolution",
    }
)
"""ATen operators that are one cuDNN (MIOpen) convolution. ``aten::convolution`` is not one of them: it may add
the bias with an ``add_`` of its own, an ATen kernel that is no part of the library's call."""
LIBRARY_OPS = MATMULS | CONVOLUTIONS | {"_int_mm", "_cudnn_rnn", "_scaled_dot_product_cudnn_attention"}
"""The operators whose work on a GPU is one call into a vendor library, by name without namespace."""

_SPLIT_K = re.compile(r"split_?k", re.IGNORECASE)


def operator_of(name: str) -> str:
    """The bare operator of a profiler name (``aten::mm``) or a generated wrapper's call (``extern_kernels.mm``,
    ``torch.ops.aten.mm.default``): ``mm``."""
    if "::" in name:
        return name.rsplit("::", 1)[-1]
    parts = name.split(".")
    if parts[0] == "torch" and len(parts) >= 4:  # torch.ops.aten.mm.default
        return parts[3]
    if parts[0] == "aten" and len(parts) >= 2:  # aten.mm.default
        return parts[1]
    return parts[-1] if parts[0] == "extern_kernels" else name


def is_library_op(name: str) -> bool:
    """Whether an operator (``aten::mm``) or a wrapper's call (``extern_kernels.mm``) is one library call."""
    return operator_of(name) in LIBRARY_OPS


def library_name(op: str) -> str:
    """Whose kernels a call runs: ``cuBLAS`` for a product, ``cuDNN`` for a convolution or an RNN."""
    bare = operator_of(op)
    if bare.startswith("miopen"):
        return "MIOpen"
    if bare in CONVOLUTIONS or "cudnn" in bare:
        return "cuDNN"
    return "cuBLAS"


@dataclass(frozen=True)
class LibraryKernel:
    """One kernel a library ran inside a call (a cuBLAS product's gemm, the kernel that adds split-K's slices)."""

    name: str
    """The kernel's full name, as the profiler gave it."""
    short_name: str
    """A readable name (``names.short_name``)."""
    launches: float
    """Its launches per call of the library operator (a float only when runs disagree)."""
    time_us: float | None = None
    """Its time per run of ``fn``, all its launches together (None in a preview)."""
    launch: KernelLaunch | None = None
    """Its grid and block as the profiler reported them (``grid`` z above 1: K split into that many slices)."""

    @property
    def splits_k(self) -> bool:
        """Whether this kernel is part of a split-K product: named for it, or run over more than one slice of K."""
        grid = self.launch.grid if self.launch is not None else None
        return _SPLIT_K.search(self.name) is not None or (grid is not None and grid[2] > 1)


def kernels_per_call(kernels: Sequence[LibraryKernel]) -> float:
    """Launches one call made: 1 for a call whose kernels are not known."""
    return sum(kernel.launches for kernel in kernels) if kernels else 1


def call_words(op: str, kernels: Sequence[LibraryKernel]) -> str | None:
    """``cuBLAS ran this product as 2 kernels: split-K``; None for a call the library ran as one kernel."""
    launches = kernels_per_call(kernels)
    if launches <= 1:
        return None
    bare = operator_of(op)
    what = "product" if bare in MATMULS or bare == "_int_mm" else "convolution" if bare in CONVOLUTIONS else "call"
    why = ": split-K" if any(kernel.splits_k for kernel in kernels) else ""
    return f"{library_name(op)} ran this {what} as {launches:g} kernels{why}"


def short_words(op: str, kernels: Sequence[LibraryKernel]) -> str:
    """A table's name for a call of several kernels: ``cuBLAS, 2 kernels, split-K``."""
    why = ", split-K" if any(kernel.splits_k for kernel in kernels) else ""
    return f"{library_name(op)}, {kernels_per_call(kernels):g} kernels{why}"


def kernel_line(kernel: LibraryKernel) -> str:
    """One kernel inside a call, for a listing: its name, its launches per call where more than one, its grid."""
    parts = [kernel.short_name]
    if kernel.launches != 1:
        parts.append(f"×{kernel.launches:g}")
    grid = kernel.launch.grid if kernel.launch is not None else None
    if grid is not None:
        parts.append("grid " + "×".join(str(blocks) for blocks in grid))
    if _SPLIT_K.search(kernel.name):
        parts.append("(split-K)")
    return " ".join(parts)
