"""Which eager operators each compiled kernel replaced, and which compiled kernel absorbed each eager one.

Inductor records the original ATen operators of each kernel: in a comment above a Triton kernel
(``Original ATen: [aten.add, aten.relu]``) and, for C++ kernels, in the kernel's name, which it builds from
the same operators (``cpp_fused_add_relu_0``). Matched by operator name against what the dispatcher saw
eagerly, that gives the lines of ``fn`` each compiled kernel came from.

Names alone miss work that was absorbed without leaving its name: an in-place ``add_`` is functionalised
into ``add``; a library call combines operators (``addmm`` is ``mm`` plus ``add``); a kernel named after one
operator may compute another (the code says ``cos``); and operators that only place data (``cat``, ``clone``)
become index arithmetic inside the kernel that consumes their result.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from kernel_tui.engine.counting.source_lines import NO_OPERATORS, NOT_FROM_A_LINE
from kernel_tui.model.names.names import fused_ops

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel

# Library calls that do the work of several eager operators.
COMBINED = {
    "aten::addmm": ("aten::mm", "aten::add"),
    "aten::addmv": ("aten::mv", "aten::add"),
    "aten::addbmm": ("aten::bmm", "aten::add"),
    "aten::baddbmm": ("aten::bmm", "aten::add"),
    "aten::_addmm_activation": ("aten::mm", "aten::add", "aten::relu", "aten::gelu"),
}
# Library calls that do the product of an operator that adds to it: compiled, Inductor calls the plain product
# (``extern_kernels.mm`` for ``nn.Linear``'s ``addmm``) and adds the bias in the kernel that follows.
PRODUCT_OF = {
    "aten::mm": ("aten::addmm", "aten::_addmm_activation"),
    "aten::bmm": ("aten::baddbmm", "aten::addbmm"),
    "aten::mv": ("aten::addmv",),
    # Not a product: Inductor computes a max-pool's gradient as one scatter of the gradients into their places.
    "aten::scatter_reduce_": ("aten::max_pool2d_with_indices_backward",),
}
# Operators that do one job under several names: eagerly the dispatcher picks a backend's (cuDNN's batch norm,
# softmax's safe form), while Inductor records the portable operator it decomposed.
SAME_WORK = {
    "cudnn_batch_norm": "batch_norm",
    "miopen_batch_norm": "batch_norm",
    "native_batch_norm": "batch_norm",
    "_native_batch_norm_legit": "batch_norm",
    "_native_batch_norm_legit_no_training": "batch_norm",
    "_native_batch_norm_legit_functional": "batch_norm",
    "_batch_norm_with_update": "batch_norm",
    "_batch_norm_no_update": "batch_norm",
    "_safe_softmax": "_softmax",
    "cudnn_convolution": "convolution",
    "_convolution": "convolution",
    "mkldnn_convolution": "convolution",
}
# Operators that only place data: compiled, they become indexing inside the kernel that reads their result.
PLACEMENT = frozenset(
    {
        "aten::cat",
        "aten::stack",
        "aten::clone",
        "aten::contiguous",
        "aten::copy_",
        "aten::_to_copy",
        "aten::constant_pad_nd",
        "aten::repeat",
        "aten::expand",
        "aten::flip",
        "aten::roll",
        "aten::slice_scatter",
        "aten::select_scatter",
        "aten::index_select",
        "aten::_unsafe_index",
    }
)
# How generated C++ and Triton spell math functions whose operator names they would otherwise hide.
_CODE_CALL = r"(?:\.|\b|std::|tl_math\.|libdevice\.|sleef_\w*?)"


def base_name(op: str) -> str:
    """``aten::add_`` and ``aten::add.Tensor`` are the work of ``add``."""
    name = op.split("::", 1)[-1].split(".", 1)[0]
    return name.rstrip("_") or name


def work_of(op: str) -> str:
    """The job an operator does, one name for each of its spellings (``SAME_WORK``)."""
    base = base_name(op)
    return SAME_WORK.get(base, base)


def ops_from_name(name: str, candidates: list[str]) -> tuple[str, ...]:
    """The candidate operators (``aten::add``) whose names appear in a fused kernel's name, in name order."""
    ops = fused_ops(name)
    if not ops:
        return ()
    fused = f"_{ops}_"
    found = []
    for op in candidates:
        position = fused.find(f"_{base_name(op)}_")
        if position >= 0:
            found.append((position, op))
    return tuple(op for _, op in sorted(found))


def ops_from_code(code: str | None, candidates: list[str]) -> tuple[str, ...]:
    """Candidates whose math function the kernel's code calls (``.cos()``, ``std::exp``, ``tl_math.sin``)."""
    if not code:
        return ()
    return tuple(op for op in candidates if re.search(rf"{_CODE_CALL}{re.escape(base_name(op))}\s*\(", code))


def library_op(kernel: Kernel) -> str | None:
    """The operator a library call carries out (``aten::mm`` for ``extern_kernels.mm``), None for a kernel."""
    return kernel.op or (kernel.name if kernel.kind == "op" else None)


def ops_named(kernel: Kernel, candidates: list[str], whole: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The operators a kernel's record, name or code says it computes; a plain product (``mm``) does the
    product of an operator that adds to it (``addmm``) unless a library call does that operator ``whole``."""
    by_work = {work_of(op): op for op in candidates}
    recorded = tuple(by_work.get(work_of(op), op) for op in kernel.aten_ops)
    products = tuple(
        op for recorded_op in recorded for op in PRODUCT_OF.get(recorded_op, ()) if op in candidates and op not in whole
    )
    # The full name: a short name may have cut the list of operators short.
    named = ops_from_name(kernel.name, candidates)
    computed = ops_from_code(kernel.code, candidates)
    return tuple(dict.fromkeys((*recorded, *products, *named, *computed)))


def ops_combined(kernel: Kernel, candidates: list[str]) -> tuple[str, ...]:
    """The operators a library call may have combined (``addmm`` is ``mm`` plus ``add``): a guess from its
    name, which yields to a kernel that names the operator itself (a residual ``add`` that went into the next
    layer norm's kernel, not into the ``addmm`` that ran eagerly too)."""
    parts = (part for op in kernel.aten_ops for part in COMBINED.get(f"aten::{base_name(op)}", ()))
    return tuple(part for part in parts if part in candidates)


def all_replaced(compiled: tuple[Kernel, ...], candidates: list[str]) -> list[tuple[str, ...]]:
    """Per compiled kernel, the eager operators it replaced: those it names, and those a library call combined
    that no kernel names. Only operators eager ran are named where there are any: a compiled ``addmm`` replaces
    the eager ``mm`` and ``add``, and the views Inductor records moved nothing eagerly."""
    whole = frozenset(op for kernel in compiled if (op := library_op(kernel)) is not None)
    # A pass of a library operator Inductor left whole (a fused layer's mm) is that eager operator, and no other.
    named = [kernel.aten_ops if kernel.composite else ops_named(kernel, candidates, whole) for kernel in compiled]
    claimed = {op for ops in named for op in ops}
    replaced = []
    for kernel, own in zip(compiled, named):
        guessed = () if kernel.composite else ops_combined(kernel, candidates)
        combined = (op for op in guessed if op not in claimed or op in own)
        ops = tuple(dict.fromkeys((*own, *combined)))
        replaced.append(tuple(op for op in ops if op in candidates) or ops)
    return replaced


def attribute(eager: tuple[Kernel, ...], compiled: tuple[Kernel, ...]) -> tuple[tuple[Kernel, ...], tuple[Kernel, ...]]:
    """Fill compiled kernels' ``aten_ops`` and ``lines``, and eager kernels' ``fused_into``."""
    compiled = tuple(_as_run_eagerly(kernel, eager) for kernel in compiled)
    candidates = list(dict.fromkeys(op for kernel in eager for op in kernel.aten_ops))
    # A layout conversion Inductor added is named for the convolution it serves, whose work it does not do.
    replaced = [() if c.layout else ops for c, ops in zip(compiled, all_replaced(compiled, candidates))]
    absorbed = []
    for kernel in eager:
        # A composite's later passes carry no dispatcher record of their own: they are its work too.
        own = set(kernel.aten_ops) | ({kernel.op} if kernel.op and not kernel.aten_ops else set())
        takers = [(c.short_name, c.section) for c, ops in zip(compiled, replaced) if set(ops) & own]
        # A training step's backward ``mul`` went into a backward kernel, not into the forward's that also muls.
        same_section = tuple(name for name, section in takers if section == kernel.section)
        into = same_section or tuple(name for name, _ in takers)
        absorbed.append(replace(kernel, fused_into=into))
    _credit_placement(absorbed, compiled, replaced)
    attributed = []
    for kernel, ops in zip(compiled, replaced):
        lines = lines_of(ops, kernel.section, eager)
        unplaced = None if lines else why_unplaced(ops, eager)
        attributed.append(replace(kernel, aten_ops=ops, lines=lines, unplaced=unplaced))
    return tuple(absorbed), tuple(attributed)


def lines_of(ops: tuple[str, ...], section: str | None, eager: tuple[Kernel, ...]) -> tuple[int, ...]:
    """The lines of the eager operators ``ops``, in order: those of the same section of a training step where it
    ran them (a backward ``mul`` is not the forward's), else wherever they ran (a backward kernel that recomputes
    a forward operator does that line's work again)."""
    lines: set[int] = set()
    for op in ops:
        same = [kernel for kernel in eager if op in kernel.aten_ops and kernel.section == section]
        anywhere = same or [kernel for kernel in eager if op in kernel.aten_ops]
        lines.update(line for kernel in anywhere for line in kernel.lines)
    return tuple(sorted(lines))


def why_unplaced(ops: tuple[str, ...], eager: tuple[Kernel, ...]) -> str:
    """Why a compiled kernel that replaced ``ops`` has no line: the reason its eager operators have none."""
    if not ops:
        return NO_OPERATORS
    reason = next((kernel.unplaced for kernel in eager if set(ops) & set(kernel.aten_ops) and kernel.unplaced), None)
    return reason or NOT_FROM_A_LINE.format(ops=", ".join(ops))


def _credit_placement(eager: list[Kernel], compiled: tuple[Kernel, ...], replaced: list[tuple[str, ...]]) -> None:
    """An uncredited operator that only places data went into the kernel that consumed it: the one that
    absorbed the next credited eager operator."""
    for index, kernel in enumerate(eager):
        if kernel.fused_into or not set(kernel.aten_ops) & PLACEMENT:
            continue
        consumer = next((later for later in eager[index + 1 :] if later.fused_into), None)
        if consumer is None:
            continue
        eager[index] = replace(kernel, fused_into=consumer.fused_into)
        for position, compiled_kernel in enumerate(compiled):
            if compiled_kernel.short_name in consumer.fused_into:
                replaced[position] = tuple(dict.fromkeys((*replaced[position], *kernel.aten_ops)))


def _as_run_eagerly(kernel: Kernel, eager: tuple[Kernel, ...]) -> Kernel:
    """A compiled-side operator that no graph recorded (``.item()`` at a graph break runs between graphs)
    did what it did eagerly: its bytes and operators are the eager row's."""
    if kernel.bytes_total is not None or kernel.kind != "op" or kernel.aten_ops:
        return kernel
    twin = next((row for row in eager if row.name == kernel.name), None)
    if twin is None:
        return kernel
    return replace(kernel, bytes_read=twin.bytes_read, bytes_written=twin.bytes_written, aten_ops=twin.aten_ops)
