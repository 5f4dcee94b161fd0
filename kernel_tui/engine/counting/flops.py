"""FLOPs per kernel: counted per eager operator from its tensors, and given to the compiled kernels that
replaced those operators.

The rules a learner can check by hand:

- operators with a formula in ``torch.utils.flop_counter`` (``mm``, ``addmm``, ``bmm``, convolutions,
  attention) use it: ``2·M·N·K`` for an ``M×K`` by ``K×N`` product, a multiply and an add per term;
- an elementwise operator (tagged ``pointwise``) is one operation per element it writes, and a reduction
  (tagged ``reduction``) one per element it reads;
- operators that only move or place data (copies, casts, ``cat``, ``fill_``) do no arithmetic: 0;
- anything else (``sort``, ``_softmax``, ``native_layer_norm``) is not counted: None, shown as unknown.

A compiled kernel's FLOPs are those of the eager operators it replaced (``attribution``): a library call's come
from the eager ``mm`` it stands for, whose formula reads the shapes. Where an operator's work went to more than
one kernel (or one row shares an operator with another), the split is not known, and neither are the FLOPs.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import flop_registry

from kernel_tui.engine.counting.attribution import COMBINED, PLACEMENT, PRODUCT_OF, library_op
from kernel_tui.engine.counting.cuda_graphs import FOREACH_COPY
from kernel_tui.engine.counting.op_kinds import moves_data, op_name
from kernel_tui.engine.counting.traffic import EagerTrafficMode, Traffic, seen_inside, tensors_in
from kernel_tui.model.report.roofline import (
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
    "aten::zero_",
    "aten::zeros_like",
    "aten::ones_like",
    "aten::full_like",
    "aten::new_zeros",
    "aten::new_ones",
    "aten::new_full",
    "aten::_local_scalar_dense",
    "aten::lift_fresh",
    "aten::alias",
    FOREACH_COPY,
}
"""Operators that move or place data without computing on it (a CUDA graph's input copy among them)."""
NO_ARITHMETIC_KINDS = frozenset({"memcpy", "memset"})


@dataclass(frozen=True)
class OpFlops:
    """One dispatched operator that moves data, with its arithmetic (None: not counted)."""

    name: str
    """Profiler-style name, ``aten::mm``: the name the byte records and the kernel rows use."""
    flops: int | None


REDUCTION_TAG = getattr(torch.Tag, "reduction", None)
"""Absent in torch 2.9: there a reduction without a formula has unknown FLOPs, not a crash."""


def op_flops(name: str, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> int | None:
    """The FLOPs of one dispatched operator (``name``, its profiler-style name) by the module's rules; None when
    no rule covers it."""
    formula = flop_registry.get(func._overloadpacket)
    if formula is not None:
        try:
            return int(formula(*args, **kwargs, out_val=out))
        except Exception:  # noqa: BLE001 - a formula that cannot read these arguments leaves the count unknown
            return None
    if name in NO_ARITHMETIC:
        return 0
    tags = getattr(func, "tags", ())
    if torch.Tag.pointwise in tags:
        return max((t.numel() for t in tensors_in(out)), default=0)
    if REDUCTION_TAG is not None and REDUCTION_TAG in tags:
        return max((t.numel() for t in tensors_in((args, kwargs))), default=0)
    return None


class FlopCountingMode(TorchDispatchMode):
    """Records each data-moving operator's FLOPs, in dispatch order (what ``traffic`` records bytes for)."""

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # torch leaves TorchDispatchMode.__init__ unannotated
        self.ops: list[OpFlops] = []

    def __torch_dispatch__(
        self, func: Any, types: Sequence[type], args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        kwargs = kwargs or {}
        name = op_name(func)
        if (inside := seen_inside(func, name, args)) is not None:  # a fused layer: the FLOPs of its passes
            with self:
                return inside(*args, **kwargs)
        out = func(*args, **kwargs)
        if func.namespace != "prim" and moves_data(name):
            self.ops.append(OpFlops(name, op_flops(name, func, args, kwargs, out)))
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
    with traffic, FlopCountingMode() as counting:
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
    """Each compiled row's FLOPs: those of the eager operators it replaced."""
    owners = _owners(rows)
    products = _products(rows)
    counted = []
    for row in rows:
        if row.kind in NO_ARITHMETIC_KINDS:
            flops: int | None = 0
        elif not row.aten_ops:
            flops = None
        elif row.composite is not None:
            # A pass of a library operator Inductor left whole (a fused layer): an eager operator, as eager counts.
            flops = _sum(totals.get(op) if owners[op] == 1 else None for op in row.aten_ops)
        else:
            flops = _sum(_replaced_op_flops(op, row, totals, owners, products) for op in row.aten_ops)
        counted.append(replace(row, flops=flops))
    return tuple(counted)


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
    if op in NO_ARITHMETIC:
        return 0
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


def with_flops(report: ScenarioReport, ops: Sequence[OpFlops], ceilings: Ceilings | None) -> ScenarioReport:
    """The report with FLOPs, intensity, achieved GFLOP/s and bound per kernel and per mode, and the ceilings."""
    totals = totals_by_op(ops)
    report = replace(report, ceilings=ceilings)
    if report.eager is not None:
        eager_rows = eager_kernel_flops(report.eager.kernels, totals)
        report = replace(report, eager=_mode_roofline(report.eager, eager_rows, _sum(totals.values()), ceilings))
    if report.compiled is not None:
        compiled_rows = compiled_kernel_flops(report.compiled.kernels, totals)
        total = _sum(row.flops for row in compiled_rows) if compiled_rows else 0
        report = replace(report, compiled=_mode_roofline(report.compiled, compiled_rows, total, ceilings))
    return report


def scenario_dtype(args: tuple[Any, ...]) -> torch.dtype:
    """The dtype the compute ceiling is measured in: the largest floating-point input's (float32 without one)."""
    floating = [t for t in tensors_in(args) if t.is_floating_point()]
    if not floating:
        return torch.float32
    return max(floating, key=lambda t: t.numel()).dtype
