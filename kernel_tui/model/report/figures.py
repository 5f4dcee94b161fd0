"""The figures kernels and module rows are ordered and shared out by, read in one place, with one rule for a figure
nobody knows.

Four figures: ``time`` (the profiler's, per call of ``fn``), ``bytes`` moved, ``flops`` and ``launches``; a
kernel's (``kernel_figure``) and, per mode, a module row's (``module_figure``). A figure is None where it is
unknown (a CUDA preview runs nothing and has no times; bytes or FLOPs no one could count), never 0: 0 is a
figure measured as nothing. The one rule for an unknown figure, in every table that orders by one (the kernel
tables' ``o`` and ``--sort``, the modules dialog) and in the hotspot line's shares: it is not a figure. An order
puts it after every known one, 0 included (``most_first``), and a share counts it as no part of the whole
(``kernel_tui.model.report.hotspots``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.module_table import ModuleRow

T = TypeVar("T")

FIGURES = ("time", "bytes", "flops", "launches")
"""Every figure a kernel and a module row have."""

_OF_A_KERNEL: dict[str, Callable[[Kernel], float | None]] = {
    "time": lambda kernel: kernel.time_us,
    "bytes": lambda kernel: kernel.bytes_total,
    "flops": lambda kernel: kernel.flops,
    # The calls column's figure: the rows a table orders by launches read down the column its header marks.
    "launches": lambda kernel: kernel.calls,
}
_MODULE_FIELDS = {"time": "time_us", "bytes": "bytes", "flops": "flops", "launches": "launches"}
"""A figure's field of ``ModuleRow``, after its mode (``eager_time_us``)."""


def kernel_figure(kernel: Kernel, figure: str) -> float | None:
    """``kernel``'s ``figure`` (one of ``FIGURES``); None where it is unknown."""
    return _OF_A_KERNEL[figure](kernel)


def module_figure(row: ModuleRow, figure: str, *modes: str) -> float | None:
    """``row``'s ``figure`` in the first of ``modes`` (``eager``, ``compiled``) where it is known; None where it is
    known in none of them."""
    for mode in modes:
        value: float | None = getattr(row, f"{mode}_{_MODULE_FIELDS[figure]}")
        if value is not None:
            return value
    return None


def most_first(items: Iterable[T], figure: Callable[[T], float | None]) -> list[T]:
    """``items`` by ``figure``, most first; an unknown figure (None) after every known one, ties in the order
    given (the sort is stable)."""

    def key(item: T) -> tuple[bool, float]:
        value = figure(item)
        return (value is None, -(value or 0.0))

    return sorted(items, key=key)
