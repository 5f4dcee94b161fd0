"""How a kernel table's rows are ordered: as launched, or by time, bytes or launches, most first.

A model's hotspot (``aten::mm``, 83 % of the call) hides among fifty rows in launch order; ordered by time it is
the first. One definition for every table that orders kernels (the explorer's ``o``, ``ui/state/kernel_rows``):
which figure each order reads, which column's header says so (``time ▼``), and the order after it. The figures
and their rule for an unknown one are the model's (``kernel_tui.model.report.figures``): a kernel whose figure is
unknown (a CUDA preview's time, bytes nobody counted) goes last rather than counting as nothing, and ties keep
launch order, so that equal rows read as they ran.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from kernel_tui.model.report.figures import kernel_figure, most_first
from kernel_tui.text.kernel_columns import BYTES, CALLS, TIME

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel

AS_LAUNCHED = "launch"
"""The order the kernels ran in (eager: the operators' order; compiled: the kernels')."""

FIGURES = ("time", "bytes", "launches")
"""Each order but launch order, named by the figure it sorts by (``figures.kernel_figure``)."""

KERNEL_ORDERS = (AS_LAUNCHED, *FIGURES)
"""Every order, in the turn a key steps through them."""

SORTED_COLUMNS = {"time": TIME.key, "bytes": BYTES.key, "launches": CALLS.key}
"""The column whose header says the rows are sorted by it (``TableOf.sorted_by``)."""

ORDER_WORDS = {AS_LAUNCHED: "as launched", "time": "by time", "bytes": "by bytes", "launches": "by launches"}
"""An order as a key's label says it."""


def next_order(order: str) -> str:
    """The order after ``order``, round to launch order (an unknown one starts the turn again)."""
    at = KERNEL_ORDERS.index(order) if order in KERNEL_ORDERS else -1
    return KERNEL_ORDERS[(at + 1) % len(KERNEL_ORDERS)]


def in_order(kernels: Sequence[Kernel], order: str) -> list[Kernel]:
    """``kernels`` (in launch order) in ``order``: most first, unknown figures last, ties as launched."""
    if order not in FIGURES:
        return list(kernels)
    return most_first(kernels, partial(kernel_figure, figure=order))
