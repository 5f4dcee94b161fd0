"""FLOPs per kernel: counted per eager operator from its tensors, and given to the compiled kernels that
replaced those operators.

The rules a learner can check by hand:

- operators with a formula in ``torch.utils.flop_counter`` (``mm``, ``addmm``, ``bmm``, convolutions,
  attention) use it: ``2·M·N·K`` for an ``M×K`` by ``K×N`` product, a multiply and an add per term;
- an elementwise operator (tagged ``pointwise``) is one operation per element it writes, and a reduction
  (tagged ``reduction``) one per element it reads; a random draw (``rand``, tagged ``nondeterministic_seeded``)
  one per element it writes, as an elementwise operator;
- operators that only move or place data (copies, casts, ``cat``, ``fill_``) do no arithmetic: 0; an indexed put
  that accumulates (an embedding's gradient, decomposed) one add per value it puts;
- an operator torch decomposes into those (``_softmax``, ``native_layer_norm``, batch norm, their backwards, the
  CPU's attention) is what its decomposition (``torch._decomp``) counts, run on meta tensors of its shapes;
- anything else (``sort``) is not counted: None, shown as unknown.

A training step's operators are counted per section: ``nn.Linear``'s ``mm`` in forward and the two in backward
are three calls of one operator, each row given its own section's.

A compiled kernel's FLOPs are those of the eager operators it replaced (``attribution``): a library call's come
from the eager ``mm`` it stands for, whose formula reads the shapes. Where an operator's work went to more than
one kernel (or one row shares an operator with another), the split is not known, and neither are the FLOPs.
A graph compiled once it is decomposed (the CUDA preview's training step) has kernels named for the
decomposition's operators (``var_mean``, ``rsqrt``): one that eager never ran is counted from the graph's own
nodes by the same rules.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import torch
from torch._decomp import decomposition_table
from torch.utils._python_dispatch import TorchDispatchMode, _disable_current_modes
from torch.utils._pytree import tree_map
from torch.utils.flop_counter import conv_flop_count, flop_registry, sdpa_backward_flop_count, sdpa_flop_count

from kernel_tui.engine.counting.attribution import COMBINED, PLACEMENT, PRODUCT_OF, library_op
from kernel_tui.engine.counting.cuda_graphs import FOREACH_COPY
from kernel_tui.engine.counting.op_kinds import inductor_op_name, moves_data, op_name
from kernel_tui.engine.counting.traffic import EagerTrafficMode, Traffic, seen_inside, tensors_in
from kernel_tui.model.meaning.roofline import (
    achieved_gflops,
    bound,
    dominant_bound,
    intensity,
    roof_time_us,
    unclassified_share,
)

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.mode_result import ModeResult
    from kernel_tui.model.report.report import Ceilings, ScenarioReport

NO_ARITHMETIC = PLACEMENT | {
    "aten::fill_",
    "aten::full",
    "aten::zeros",
    "aten::ones",
    "aten::zero_",
    "aten::zeros_like",
    "aten::ones_like",
    "aten::full_like",
    "aten::new_zeros",
    "aten::new_ones",
    "aten::new_full",
    "aten::_local_scalar_dense",
    "aten::lift_fresh",
    "aten::lift_fresh_copy",
    "aten::alias",
    "aten::embedding",
    "aten::index_select",
    "aten::gather",
    "aten::index",
    "aten::arange",
    "aten::scalar_tensor",
    "aten::tril",
    "aten::triu",
    "prims::iota",
    "prims::convert_element_type",
    "prims::_low_memory_max_pool_offsets_to_indices",
    FOREACH_COPY,
}
"""Operators that move or place data without computing on it (a CUDA graph's input copy among them), gathers
among them, a cast (``_to_copy``; ``prims.convert_element_type`` in a decomposed graph), and those that make
values or masks from positions (``arange``, ``prims.iota``, ``tril``, a compiled max-pool's indices from its
offsets: no arithmetic on data)."""
NO_ARITHMETIC_KINDS = frozenset({"memcpy", "memset"})


@dataclass(frozen=True)
class OpFlops:
    """One dispatched operator that moves data, with its arithmetic (None: not counted)."""

    name: str
    """Profiler-style name, ``aten::mm``: the name the byte records and the kernel rows use."""
    flops: int | None
    section: str | None = None
    """``backward`` for an operator the autograd engine ran (inside a node of a backward), else None."""


REDUCTION_TAG = getattr(torch.Tag, "reduction", None)
"""Absent in torch 2.9: there a reduction without a formula has unknown FLOPs, not a crash."""


def op_flops(name: str, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> int | None:
    """The FLOPs of one dispatched operator (``name``, its profiler-style name) by the module's rules; None when
    no rule covers it."""
    if func._overloadpacket in flop_registry:
        return _formula_flops(func._overloadpacket, args, kwargs, out)
    if name in STANDS_FOR:
        return op_flops(op_name(STANDS_FOR[name]), STANDS_FOR[name], args, kwargs, out)
    if name in NO_ARITHMETIC:
        return 0
    if name in CONVOLUTIONS:
        return _convolution_flops(args, out)
    if name in SHAPED_BY:
        shapes = [list(t.shape) for t in args[: SHAPED_BY[name][1]] if isinstance(t, torch.Tensor)]
        return int(SHAPED_BY[name][0](*shapes)) if len(shapes) == SHAPED_BY[name][1] else None
    if name in SCANS:
        return max((t.numel() for t in tensors_in(out)), default=0)
    if name in MAX_POOLS:
        return _max_pooled(name, args, out)
    if name in SCATTERS:
        return _scattered(args)
    if name in PUTS:
        return _put(name, args, kwargs)
    tags = getattr(func, "tags", ())
    if torch.Tag.pointwise in tags:
        return max((t.numel() for t in tensors_in(out)), default=0)
    if REDUCTION_TAG is not None and REDUCTION_TAG in tags:
        return max((t.numel() for t in tensors_in((args, kwargs))), default=0)
    decomposed = _decomposed_flops(func, args, kwargs)
    if decomposed is None and torch.Tag.nondeterministic_seeded in tags:
        return max((t.numel() for t in tensors_in(out)), default=0)  # a random draw: one per element, as pointwise
    return decomposed


def library_flops(name: str, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> int | None:
    """A compiled graph's library call (``extern_kernels.mm``, a CPU convolution) counted from its own
    arguments, as its eager operator would be; None for any other operator (its FLOPs are the eager ones it
    replaced). Each product is so counted on its own row: two ``mm`` of one eager operator, one of them
    compiled as an ``addmm``, each carry their own."""
    namespace, _, base = name.partition("::")
    packet = getattr(getattr(torch.ops, namespace, None), base, None)
    kwargs = {key: value for key, value in kwargs.items() if key != "out"}
    if packet is not None and packet in flop_registry:
        return _formula_flops(packet, args, kwargs, out)
    if name in CONVOLUTIONS:
        return _convolution_flops(args, out)
    if name in SCATTERS:
        return _scattered(args)
    if (
        not tensors_in((args, kwargs))
        and packet is not None
        and any(torch.Tag.nondeterministic_seeded in getattr(packet, overload).tags for overload in packet.overloads())
    ):
        # A random draw from no tensor (the seeds of a compiled dropout), as ``op_flops`` counts one; an operator
        # that may draw as it computes (attention's dropout) is no draw.
        return max((t.numel() for t in tensors_in(out)), default=0)
    return None


def _formula_flops(packet: Any, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> int | None:
    """torch's own FLOP formula for ``packet`` (``torch.utils.flop_counter``); None where it cannot read these
    arguments."""
    try:
        return int(flop_registry[packet](*args, **kwargs, out_val=out))
    except Exception:  # noqa: BLE001 - a formula that cannot read these arguments leaves the count unknown
        return None


def _convolution_flops(args: tuple[Any, ...], out: Any) -> int | None:
    outputs = tensors_in(out)
    if len(args) < 2 or not outputs or not all(isinstance(t, torch.Tensor) for t in args[:2]):
        return None
    return int(conv_flop_count(list(args[0].shape), list(args[1].shape), list(outputs[0].shape), transposed=False))


SHAPED_BY: dict[str, tuple[Callable[..., int], int]] = {
    "aten::_scaled_dot_product_flash_attention_for_cpu": (sdpa_flop_count, 3),
    "aten::_scaled_dot_product_flash_attention_for_cpu_backward": (sdpa_backward_flop_count, 4),
    "aten::embedding_dense_backward": (lambda grad: math.prod(grad), 1),
    "aten::max_pool2d_with_indices_backward": (lambda grad: math.prod(grad), 1),
}
"""Operators counted by a formula of their first tensors' shapes: the CPU's attention by the formula of the
GPU's (``torch.utils.flop_counter``'s ``sdpa_flop_count``, the products of scores and output); an embedding's
gradient, one add per gathered element into its row; a max-pool's gradient, one add per output gradient into the
input element that held its window's maximum."""


MAX_POOLS = {"aten::max_pool2d": 2, "aten::max_pool2d_with_indices": 2, "aten::max_pool3d_with_indices": 3}
"""Max-pools, by how many dimensions their window has: one comparison per element of each output's window. torch
counts none (``torch.utils.flop_counter`` has no formula), and its decomposition of one, which counts the index
arithmetic too, is in some releases (2.14) and not others (2.11): a ResNet's FLOPs were unknown there."""


def _max_pooled(name: str, args: tuple[Any, ...], out: Any) -> int | None:
    outputs = tensors_in(out)
    kernel = list(args[1]) if len(args) > 1 and isinstance(args[1], (list, tuple)) else []
    if not outputs or not kernel:
        return None
    window = kernel * MAX_POOLS[name] if len(kernel) == 1 else kernel
    return int(outputs[0].numel() * math.prod(window))


STANDS_FOR = {"prims::_low_memory_max_pool_with_offsets": torch.ops.aten.max_pool2d_with_indices.default}
"""Operators Inductor's decompositions put in place of an eager one, with its arguments, that do its work: counted
as it is (a max-pool that keeps each maximum's offset in its window rather than its index)."""


SCATTERS = frozenset({"aten::scatter_add", "aten::scatter_add_", "aten::scatter_reduce", "aten::scatter_reduce_"})
"""Operators that combine each element of ``src`` (their fourth argument) into a place of ``self``: one operation
per element of ``src`` (a compiled max-pool's gradient is a ``scatter_reduce_``)."""


def _scattered(args: tuple[Any, ...]) -> int | None:
    return args[3].numel() if len(args) > 3 and isinstance(args[3], torch.Tensor) else None


PUTS = {
    "aten::index_put": 2,
    "aten::index_put_": 2,
    "aten::_unsafe_index_put": 2,
    "aten::_index_put_impl_": 2,
    "aten::_unsafe_masked_index_put_accumulate": 3,
}
"""Operators that put ``values`` (the argument at this place) at indexed places of ``self``: with ``accumulate``,
one add per element of ``values``, as an embedding's gradient (which Inductor decomposes into
``_unsafe_masked_index_put_accumulate``) is counted; without, only placement: 0."""


def _put(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int | None:
    place = PUTS[name]
    values = args[place] if len(args) > place else None
    if not isinstance(values, torch.Tensor):
        return None
    accumulate = name.endswith("_accumulate") or bool(
        args[place + 1] if len(args) > place + 1 else kwargs.get("accumulate")
    )
    return values.numel() if accumulate else 0


SCANS = frozenset({"aten::cumsum", "aten::cumprod", "aten::logcumsumexp", "aten::cummax", "aten::cummin"})
"""Running sums and products (a Hugging Face model's position ids are a ``cumsum`` of its mask): one operation per
element written, each the previous result combined with the next element. torch tags them neither pointwise
nor reduction, and has no decomposition of them to count."""


CONVOLUTIONS = frozenset(
    {"aten::mkldnn_convolution", "aten::_nnpack_spatial_convolution", "mkldnn::_convolution_pointwise"}
)
"""A CPU backend's convolution, ``(input, weight, bias, padding, stride, ...)``: ``torch.utils.flop_counter``
has the portable ``convolution``'s formula, not theirs, and the arithmetic is the same."""


def _on_meta(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return torch.empty_strided(value.shape, value.stride(), dtype=value.dtype, device="meta")
    return value


def _decomposed_flops(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int | None:
    """What torch's decomposition of ``func`` counts by these rules, run on meta tensors of the same shapes
    with every other mode off (its operators are not the scenario's: no bytes, no rows); None without one, or
    when a part of it is not counted."""
    decomposition = decomposition_table.get(func)
    if decomposition is None:
        return None
    counting = FlopCountingMode()
    try:
        with _disable_current_modes():
            meta_args, meta_kwargs = tree_map(_on_meta, (args, kwargs))
            with counting:
                decomposition(*meta_args, **meta_kwargs)
    except Exception:  # noqa: BLE001 - a decomposition that cannot run on meta tensors leaves the count unknown
        return None
    return _sum(op.flops for op in counting.ops)


class FlopCountingMode(TorchDispatchMode):
    """Records each data-moving operator's FLOPs, in dispatch order (what ``traffic`` records bytes for); with
    ``records`` (the list a traffic mode below it appends to), an operator that the traffic mode recorded as one
    record gets its FLOPs on it too (``Traffic.own_flops``)."""

    def __init__(self, records: list[Traffic] | None = None) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # torch leaves TorchDispatchMode.__init__ unannotated
        self.ops: list[OpFlops] = []
        self.records = records

    def __torch_dispatch__(
        self, func: Any, types: Sequence[type], args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        kwargs = kwargs or {}
        name = op_name(func)
        if (inside := seen_inside(func, name, args)) is not None:  # a fused layer: the FLOPs of its passes
            with self:
                return inside(*args, **kwargs)
        recorded = len(self.records) if self.records is not None else 0
        out = func(*args, **kwargs)
        if func.namespace != "prim" and moves_data(name):
            section = "backward" if torch._C._current_autograd_node() is not None else None
            count = op_flops(name, func, args, kwargs, out)
            self.ops.append(OpFlops(name, count, section))
            if self.records is not None and len(self.records) == recorded + 1 and self.records[-1].name == name:
                self.records[-1] = replace(self.records[-1], own_flops=count)
        return out


def eager_flops(fn: Callable[..., Any], args: tuple[Any, ...]) -> list[OpFlops]:
    """Run ``fn`` once (untimed, unprofiled) and return the FLOPs of its data-moving operators in order."""
    mode = FlopCountingMode()
    with torch.no_grad(), mode:
        fn(*args)
    return mode.ops


@contextlib.contextmanager
def bytes_and_flops(traffic: EagerTrafficMode) -> Iterator[FlopCountingMode]:
    """``traffic`` recording each operator's bytes and a ``FlopCountingMode`` (yielded) its FLOPs, in one run
    of the code inside: each operator is counted for its FLOPs, then recorded by ``traffic``."""
    with traffic, FlopCountingMode(traffic.records) as counting:
        yield counting


def eager_bytes_and_flops(
    fn: Callable[..., Any], args: tuple[Any, ...], source_file: str | None = None
) -> tuple[list[Traffic], list[OpFlops]]:
    """Run ``fn`` once (untimed, unprofiled) and return its data-moving operators in order, by their bytes
    (each with the line of ``source_file`` it was called from) and by their FLOPs."""
    traffic = EagerTrafficMode(source_file)
    with torch.no_grad(), bytes_and_flops(traffic) as counting:
        fn(*args)
    return traffic.ops, counting.ops


def graph_flops(graph: torch.fx.GraphModule, section: str | None) -> list[OpFlops]:
    """The FLOPs of each data-moving operator of an ATen graph (AOTAutograd's forward or backward), counted by
    ``op_flops`` on the shapes it was traced with and named as Inductor names the kernels it compiles it into
    (``aten::var_mean``, ``prims.iota``): the work of a graph compiled once it is decomposed (the preview's
    training step), whose kernels name operators eager never ran."""
    ops = []
    for node in graph.graph.nodes:
        if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
            continue
        if not moves_data(op_name(node.target)):
            continue
        ops.append(OpFlops(inductor_op_name(str(node.target._overloadpacket)), node_flops(node), section))
    return ops


def node_flops(node: torch.fx.Node) -> int | None:
    """The FLOPs of one ``call_function`` node of an ATen graph whose target is an operator, counted by
    ``op_flops`` on the values it was traced with (each node's ``meta["val"]``)."""
    args, kwargs = torch.fx.node.map_arg((node.args, node.kwargs), lambda arg: arg.meta.get("val"))
    return op_flops(op_name(node.target), node.target, args, kwargs, node.meta.get("val"))


def _not_run_eagerly(graph_ops: Sequence[OpFlops], ops: Sequence[OpFlops]) -> list[OpFlops]:
    """The operators of ``graph_ops`` of a name that eager ran none of in their section: an operator eager did
    run keeps eager's count, which is what its kernels replaced."""
    ran = {(op.name, op.section) for op in ops}
    return [op for op in graph_ops if (op.name, op.section) not in ran]


def totals_by_op(ops: Iterable[OpFlops]) -> dict[str, int | None]:
    """Per operator name, the FLOPs of all its calls together; None if any call was not counted."""
    totals: dict[str, int | None] = {}
    for op in ops:
        previous = totals.get(op.name, 0)
        totals[op.name] = None if previous is None or op.flops is None else previous + op.flops
    return totals


def _sum(values: Iterable[int | None]) -> int | None:
    total = 0
    for value in values:
        if value is None:
            return None
        total += value
    return total


def _owners(rows: Sequence[Kernel]) -> dict[str, int]:
    """How many rows name each operator: an operator named by two rows cannot be split between them."""
    owners: dict[str, int] = {}
    for row in rows:
        for op in set(row.aten_ops):
            owners[op] = owners.get(op, 0) + 1
    return owners


def eager_kernel_flops(rows: Sequence[Kernel], totals: dict[str, int | None]) -> tuple[Kernel, ...]:
    """Each eager row's FLOPs: the operators the dispatcher saw for it, all their calls together."""
    owners = _owners(rows)
    counted = []
    for row in rows:
        if row.kind in NO_ARITHMETIC_KINDS and not row.aten_ops:
            flops: int | None = 0
        elif not row.aten_ops:
            flops = None  # a composite's later pass: its work is on its first pass, its own share unknown
        else:
            flops = _sum(totals.get(op) if owners[op] == 1 else None for op in row.aten_ops)
        counted.append(replace(row, flops=flops))
    return tuple(counted)


def compiled_kernel_flops(rows: Sequence[Kernel], totals: dict[str, int | None]) -> tuple[Kernel, ...]:
    """Each compiled row's FLOPs: a library call's counted from its own arguments (``library_flops``, already on
    the row) plus those of the other eager operators it absorbed (an ``addmm``'s add); any other row's, those of
    the eager operators it replaced, less what library calls did of them."""
    owners = _owners(rows)
    products = _products(rows)
    done = _done_by_library(rows, totals)
    counted = []
    for row in rows:
        if row.kind in NO_ARITHMETIC_KINDS:
            flops: int | None = 0
        elif row.flops is not None and row.composite is None:
            own = _library_ops(row)
            rest = [op for op in row.aten_ops if op not in own and op not in done]
            flops = _sum([row.flops, *(_replaced_op_flops(op, row, totals, owners, products) for op in rest)])
        elif not row.aten_ops:
            flops = None
        elif row.composite is not None:
            # A pass of a library operator Inductor left whole (a fused layer): an eager operator, as eager counts.
            flops = _sum(totals.get(op) if owners[op] == 1 else None for op in row.aten_ops)
        else:
            flops = _sum(
                _left_flops(op, rows, totals, done)
                if op in done
                else _replaced_op_flops(op, row, totals, owners, products)
                for op in row.aten_ops
            )
        counted.append(replace(row, flops=flops))
    return tuple(counted)


def _library_ops(row: Kernel, totals: dict[str, int | None] | None = None) -> tuple[str, ...]:
    """The operators whose product a library call computes: its own, the product of one that adds to it
    (``addmm``'s ``mm``), or the one whose product it is (``mm`` for ``addmm``); with ``totals``, those eager
    ran, first first."""
    op = library_op(row) or row.name
    candidates = (op, *COMBINED.get(op, ())[:1], *PRODUCT_OF.get(op, ()))
    return tuple(candidate for candidate in candidates if totals is None or candidate in totals)


def _done_by_library(rows: Sequence[Kernel], totals: dict[str, int | None]) -> dict[str, int]:
    """Per eager operator, the FLOPs library calls counted from their own arguments did of it: each call's
    given to the operators it may compute in turn, each up to what eager counted of it, what is left to the
    first. One row of ``extern_kernels.mm`` may hold the product of an ``mm`` and those of ``addmm`` calls whose
    bias is added in the kernel after: all given to ``mm`` it would leave ``addmm`` counted again."""
    done: dict[str, int] = {}
    for row in rows:
        ops = _library_ops(row, totals) if row.flops is not None and row.composite is None else ()
        if not ops or row.flops is None:
            continue
        left = row.flops
        for op in ops:
            total = totals[op]
            room = left if total is None else max(min(left, total - done.get(op, 0)), 0)
            done[op], left = done.get(op, 0) + room, left - room
        done[ops[0]] += left
    return done


def _left_flops(op: str, rows: Sequence[Kernel], totals: dict[str, int | None], done: dict[str, int]) -> int | None:
    """What library calls left of ``op`` to the kernels that name it besides them: nothing when they did it all
    (a kernel named for the ``mm`` it feeds), all of the rest for one kernel, unknown split among several."""
    total = totals.get(op)
    if total is None or total < done[op]:
        return None
    left = total - done[op]
    others = [row for row in rows if op in row.aten_ops and (row.flops is None or row.composite is not None)]
    return 0 if left == 0 else (left if len(others) == 1 else None)


def _does_product(row: Kernel, op: str) -> bool:
    """Whether ``row`` is the library call that computes ``op``'s product (``addmm``'s in an ``mm``)."""
    library = library_op(row)
    return library is not None and (library == op or op in PRODUCT_OF.get(library, ()))


def _products(rows: Sequence[Kernel]) -> dict[str, int]:
    """How many library calls compute each operator's product."""
    counts: dict[str, int] = {}
    for row in rows:
        for op in set(row.aten_ops):
            if _does_product(row, op):
                counts[op] = counts.get(op, 0) + 1
    return counts


def _replaced_op_flops(
    op: str, row: Kernel, totals: dict[str, int | None], owners: dict[str, int], products: dict[str, int]
) -> int | None:
    if op in totals:
        if owners[op] == 1:
            return totals[op]
        if products.get(op) == 1:
            # nn.Linear compiled for a GPU: the library's mm does the product, whose FLOPs the formula counts; the
            # kernels that add the bias after it do what the formula leaves out.
            return totals[op] if _does_product(row, op) else 0
        return None
    if op in NO_ARITHMETIC or not moves_data(op):
        return 0  # a view (``expand``, ``permute``) in a kernel's name is indexing: no arithmetic
    if set(COMBINED.get(op, ())) & set(row.aten_ops):
        return 0  # a library call named for the operators it combines: their FLOPs are counted as theirs
    if any(whole in totals and whole in row.aten_ops for whole in PRODUCT_OF.get(op, ())):
        return 0  # the product of an operator the row is credited with, whose FLOPs are counted as its
    return None


def with_roofline_fields(
    kernels: Sequence[Kernel], ridge: float | None, ceilings: Ceilings | None = None
) -> tuple[Kernel, ...]:
    """Intensity, achieved GFLOP/s and the bound of each kernel that has its FLOPs (with ``ceilings``, a
    kernel far below both roofs is overhead-bound)."""
    bandwidth = ceilings.bandwidth_gbs if ceilings is not None else None
    peak = ceilings.matmul_gflops if ceilings is not None else None
    rows = []
    for kernel in kernels:
        kernel_intensity = intensity(kernel.flops, kernel.bytes_total)
        roof_us = roof_time_us(kernel.flops, kernel.bytes_total, bandwidth, peak)
        rows.append(
            replace(
                kernel,
                intensity=kernel_intensity,
                gflops=achieved_gflops(kernel.flops, kernel.time_us),
                bound=bound(kernel_intensity, ridge, kernel.time_us, roof_us),
            )
        )
    return tuple(rows)


def _mode_roofline(
    mode: ModeResult, kernels: tuple[Kernel, ...], flops: int | None, ceilings: Ceilings | None
) -> ModeResult:
    kernels = with_roofline_fields(kernels, ceilings.ridge if ceilings is not None else None, ceilings)
    side = dominant_bound((kernel.bound, kernel.time_us) for kernel in kernels)
    return replace(
        mode,
        kernels=kernels,
        flops=flops,
        intensity=intensity(flops, mode.bytes_total),
        gflops=achieved_gflops(flops, mode.time_us),
        bound=side[0] if side else None,
        bound_share=side[1] if side else None,
        unclassified_share=unclassified_share((kernel.bound, kernel.time_us) for kernel in kernels),
    )


def with_flops(
    report: ScenarioReport, ops: Sequence[OpFlops], ceilings: Ceilings | None, graph_ops: Sequence[OpFlops] = ()
) -> ScenarioReport:
    """The report with FLOPs, intensity, achieved GFLOP/s and bound per kernel and per mode, and the ceilings.
    A mode's total is its rows' where each is known, else its operators' (known when each of theirs is).
    ``graph_ops`` are the compiled graphs' own operators (``graph_flops``), counted for the compiled kernels
    that name one eager did not run."""
    report = replace(report, ceilings=ceilings)
    if report.eager is not None:
        eager_rows = _per_section(report.eager.kernels, ops, eager_kernel_flops)
        total = _sum(row.flops for row in eager_rows)
        total = total if total is not None else _sum(op.flops for op in ops)
        report = replace(report, eager=_mode_roofline(report.eager, eager_rows, total, ceilings))
    if report.compiled is not None:
        # The forward work a compiled backward recomputes is backward's: its kernels are named for it.
        ops = [*ops, *(OpFlops(name, flops, "backward") for name, flops in report.compiled.recomputed_flops)]
        ops = [*ops, *_not_run_eagerly(graph_ops, ops)]
        compiled_rows = _per_section(report.compiled.kernels, ops, compiled_kernel_flops)
        total = _sum(row.flops for row in compiled_rows) if compiled_rows else 0
        if total is None:
            sections = dict.fromkeys(_section_of_row(row) for row in report.compiled.kernels)
            total = _sum(_replaced_total(report.compiled.kernels, ops, section) for section in sections)
        report = replace(report, compiled=_mode_roofline(report.compiled, compiled_rows, total, ceilings))
    return report


def _replaced_total(rows: Sequence[Kernel], ops: Sequence[OpFlops], section: str | None) -> int | None:
    """A compiled section's FLOPs where the split among its kernels is not known (two kernels share a layer
    norm): the library calls' own counts, and the eager operators the other kernels replaced, each once, less
    what the library calls did of them. None where any of those is not counted. ``rows`` are every section's:
    an operator of the other section is counted in the one whose kernels name it."""
    elsewhere = {op for row in rows if _section_of_row(row) != section for op in row.aten_ops}
    others = totals_by_op(op for op in ops if op.section != section)
    rows = [row for row in rows if _section_of_row(row) == section and row.kind not in NO_ARITHMETIC_KINDS]
    totals = totals_by_op(op for op in ops if op.section == section)
    done = _done_by_library(rows, totals)
    parts: list[int | None] = []
    named: dict[str, None] = {}
    for row in rows:
        own = row.flops is not None and row.composite is None
        if own:
            parts.append(row.flops)
        elif not row.aten_ops:
            return None
        mine = _library_ops(row) if own else ()
        named.update(dict.fromkeys(_functional(op, totals) for op in row.aten_ops if op not in mine))
    for op in named:
        if op in totals:
            total = totals[op]
            parts.append(None if total is None or total < done.get(op, 0) else total - done.get(op, 0))
        elif op in others:
            # AOTAutograd merges a forward value and the same value in backward before partitioning (a layer
            # norm's 1/σ): a forward kernel may be named for a backward operator, or the other way round. Its work
            # is the other section's, counted there where that section's kernels name it too, else here.
            parts.append(0 if op in elsewhere else others[op])
        else:
            parts.append(0 if op in NO_ARITHMETIC or not moves_data(op) else None)
    return _sum(parts)


def _functional(op: str, totals: dict[str, int | None]) -> str:
    """The graph's operator a compiled row's in-place one stands for: Inductor runs a graph's ``index_put`` as a
    copy and ``aten.index_put_``, a fallback kernel named for the in-place form the graph never held."""
    return op[:-1] if op not in totals and op.endswith("_") and op[:-1] in totals else op


def _per_section(
    rows: Sequence[Kernel],
    ops: Sequence[OpFlops],
    count: Callable[[Sequence[Kernel], dict[str, int | None]], tuple[Kernel, ...]],
) -> tuple[Kernel, ...]:
    """``count`` run on each section of a training step apart (forward's rows against forward's operators,
    backward's against backward's), the rows kept in their order; once, on everything, for a plain call."""
    counted: dict[int, Kernel] = {}
    for section in dict.fromkeys(_section_of_row(row) for row in rows):
        mine = [index for index, row in enumerate(rows) if _section_of_row(row) == section]
        totals = totals_by_op(op for op in ops if op.section == section)
        for index, row in zip(mine, count([rows[index] for index in mine], totals), strict=True):
            counted[index] = row
    return tuple(counted[index] for index in range(len(rows)))


def _section_of_row(row: Kernel) -> str | None:
    """``backward``, or None for forward (the loss included) and for a plain call, as ``OpFlops.section``."""
    return "backward" if row.section == "backward" else None


def scenario_dtype(args: tuple[Any, ...]) -> torch.dtype:
    """The dtype the compute ceiling is measured in: the largest floating-point input's (float32 without one)."""
    floating = [t for t in tensors_in(args) if t.is_floating_point()]
    if not floating:
        return torch.float32
    return max(floating, key=lambda t: t.numel()).dtype
