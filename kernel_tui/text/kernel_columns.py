"""The columns of a kernel table after the kernel's name, each defined once: its header and its cell's text
for a kernel. ``kernel-tui run`` (``render``) and the Markdown lab report (``markdown_report``) both draw
their tables from here, so a column added here reaches both; each picks its own in ``TERMINAL_COLUMNS`` and
``MARKDOWN_COLUMNS`` (the terminal has two tables side by side to fit, the report the page's width).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernel_tui.text.formatting import (
    LINK_LABELS,
    NOISY_MARK,
    PREDICTED_MARK,
    bandwidth_text,
    format_bytes,
    format_count,
    format_time_us,
    link_text,
    noisy_times,
)

if TYPE_CHECKING:
    from kernel_tui.model.kernel import Kernel
    from kernel_tui.model.mode_result import ModeResult


@dataclass(frozen=True)
class TableOf:
    """What a kernel table's headers and cells depend on besides each kernel."""

    mode_name: str
    """``eager`` or ``compiled``."""
    mode: ModeResult | None
    preview: bool = False
    """A CUDA preview's table: ``preview`` where a time would be."""
    marks: bool = False
    """Mark predicted launch counts and noisy times, as the terminal's table does (it explains the marks under
    the table)."""


@dataclass(frozen=True)
class KernelColumn:
    header: Callable[[TableOf], str]
    cell: Callable[[Kernel, TableOf], str]
    numeric: bool = True
    """Right-aligned, so that the digits line up."""


def _calls(kernel: Kernel, table: TableOf) -> str:
    return format_count(kernel.calls) + (PREDICTED_MARK if table.marks and kernel.predicted else "")


def _time_header(table: TableOf) -> str:
    return f"time {NOISY_MARK}" if table.marks and noisy_times(table.mode) else "time"


CALLS = KernelColumn(lambda table: "calls", _calls)
"""Launches per run of ``fn``."""
TIME = KernelColumn(_time_header, lambda kernel, table: format_time_us(kernel.time_us, table.preview))
BYTES = KernelColumn(lambda table: "bytes", lambda kernel, table: format_bytes(kernel.bytes_total))
BANDWIDTH = KernelColumn(lambda table: "bandwidth", lambda kernel, table: bandwidth_text(kernel))
LINK = KernelColumn(
    lambda table: LINK_LABELS[table.mode_name], lambda kernel, table: link_text(kernel, table.mode_name), False
)
"""Eager: the compiled kernels that absorbed it; compiled: the eager operators it replaces."""

TERMINAL_COLUMNS = (CALLS, TIME, BYTES)
MARKDOWN_COLUMNS = (CALLS, TIME, BYTES, BANDWIDTH, LINK)
