"""The one registry of kernel-table columns: each declared once (key, header, its cell for a kernel, its
justification, its width and its priority when the width runs short), and the tables that draw from it:
``kernel-tui run`` (``render``), the Markdown lab report (``markdown_report``) and the explorer's tables
(``ui/widgets/kernel_table``). A derived column is one ``KernelColumn`` here and its key in the tuples of the
tables that show it.

Names first (``fit_columns``): the name column gets the width its longest name needs before any figure column
gets any; then the other columns join in order of ``priority`` while they fit, so that as the terminal narrows
they go in the reverse order (share, roofline, GB/s, attribution, bytes, time, calls).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Literal

from kernel_tui.text.by_line import APART_MARK
from kernel_tui.text.formatting import (
    LINK_LABELS,
    NOISY_MARK,
    PREDICTED_MARK,
    bandwidth_text,
    ceiling_share_text,
    format_bytes,
    format_count,
    format_gbs,
    format_time_us,
    link_text,
    noisy_times,
)
from kernel_tui.text.parts.boundary_text import kernel_boundaries
from kernel_tui.text.parts.roofline_text import format_bound, format_intensity

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.mode_result import ModeResult


@dataclass(frozen=True)
class TableOf:
    """What a kernel table's headers and cells depend on besides each kernel."""

    mode_name: str
    """``eager`` or ``compiled``."""
    mode: ModeResult | None
    preview: bool = False
    """A CUDA preview's table: ``preview`` where a time would be."""
    marks: bool = False
    """Mark predicted launch counts, noisy times and why a compiled kernel stands apart, as the terminal's
    tables do (the CLI explains the marks under its table, the explorer in its subtitle and name line)."""
    noise_in_header: bool = True
    """With ``marks``, the time header says the times are noisy (the explorer says it in its subtitle, where
    its fixed-width time column has no room for it)."""
    links_pending: bool = False
    """Eager, while the compiled side is not measured yet: nothing can have absorbed it so far (``…``)."""
    sorted_by: str | None = None
    """The key of the column the rows are sorted by (``kernel_order.SORTED_COLUMNS``): its header ends with
    ``SORTED_MARK``, and a fitted table makes room for it."""

    @cached_property
    def total_time_us(self) -> float:
        """The mode's kernel time, all kernels together: what the share column divides by."""
        return sum(kernel.time_us or 0.0 for kernel in self.mode.kernels) if self.mode is not None else 0.0

    @cached_property
    def counted_flops(self) -> bool:
        """Whether the engine counted any kernel's FLOPs (a recording older than the roofline has none)."""
        return self.mode is not None and any(kernel.flops is not None for kernel in self.mode.kernels)


SORTED_MARK = "▼"
"""After the header of the column the rows are sorted by: largest first."""


@dataclass(frozen=True)
class KernelColumn:
    """One column of a kernel table."""

    key: str
    """What the explorer's ``DataTable`` knows the column by."""
    label: Callable[[TableOf], str]
    """The header's words (``time``; ``time ~`` where the times are noisy); ``header`` adds the sorted-by mark."""
    cell: Callable[[Kernel, TableOf], str]
    justify: Literal["left", "right"] = "right"
    """Right for figures, so that their digits line up."""
    width: int | None = None
    """Cells wide in a fitted table (``fit_columns``); None: a text column that takes what the others leave."""
    priority: int = 0
    """Lower stays longer as the width runs short; the name (0) is never dropped."""
    shown_for: Callable[[TableOf], bool] = lambda table: True
    """Whether a table has anything to show in it (no roofline column where no FLOPs were counted)."""

    @property
    def numeric(self) -> bool:
        return self.justify == "right"

    def header(self, table: TableOf) -> str:
        """The column's header in ``table``: its label, and ``SORTED_MARK`` where the rows are sorted by it."""
        label = self.label(table)
        return f"{label} {SORTED_MARK}" if table.sorted_by == self.key else label


def _calls(kernel: Kernel, table: TableOf) -> str:
    return format_count(kernel.calls) + (PREDICTED_MARK if table.marks and kernel.predicted else "")


def _time_header(table: TableOf) -> str:
    noisy = table.marks and table.noise_in_header and noisy_times(table.mode)
    return f"time {NOISY_MARK}" if noisy else "time"


def _gbs(kernel: Kernel, table: TableOf) -> str:
    # Below 0.01 GB/s ``<0.01``, which the column has room for beside its share (the name line has the figure).
    gbs = kernel.gbs
    shown = "<0.01" if gbs is not None and 0 < gbs < 0.01 else format_gbs(gbs)
    ceiling = ceiling_share_text(kernel)
    return f"{shown} {ceiling:>4}" if ceiling else shown


def _share(kernel: Kernel, table: TableOf) -> str:
    total = table.total_time_us
    return f"{(kernel.time_us or 0.0) / total:.0%}" if total > 0 else "—"


def roofline_cell(kernel: Kernel, table: TableOf | None = None) -> str:
    """The roofline column: intensity and the side of the ridge, ``171 compute``, ``0.12 memory``, ``?``."""
    intensity = format_intensity(kernel.intensity)
    return f"{intensity} {format_bound(kernel.bound, short=True)}" if kernel.bound else intensity


def _link(kernel: Kernel, table: TableOf) -> str:
    """The attribution; with ``marks`` a compiled row that reads a buffer another kernel wrote ends with why
    they are two (``✂ library``), which the explorer's name line says in full."""
    if table.links_pending:
        return "…"
    said = link_text(kernel, table.mode_name)
    if not table.marks or table.mode_name != "compiled":
        return said
    kinds = ", ".join(dict.fromkeys(boundary.kind for boundary in kernel_boundaries(kernel, table.mode)))
    return f"{said} {APART_MARK} {kinds}" if kinds else said


NAME = KernelColumn("kernel", lambda table: "kernel", lambda kernel, table: kernel.short_name, "left")
"""Each table writes its own name cell from this one's (nested under a composite, indented in a section)."""
CALLS = KernelColumn("calls", lambda table: "calls", _calls, width=5, priority=1)
"""Launches per run of ``fn``."""
TIME = KernelColumn(
    "time", _time_header, lambda kernel, table: format_time_us(kernel.time_us, table.preview), width=9, priority=2
)
BYTES = KernelColumn(
    "bytes", lambda table: "bytes", lambda kernel, table: format_bytes(kernel.bytes_total), width=9, priority=3
)
LINK = KernelColumn("link", lambda table: LINK_LABELS[table.mode_name], _link, "left", priority=4)
"""Eager: the compiled kernels that absorbed it; compiled: the eager operators it replaces."""
GBS = KernelColumn("gbs", lambda table: "GB/s %ceil", _gbs, width=10, priority=5)
"""Achieved GB/s and its share of the copy ceiling, in figures."""
ROOF = KernelColumn(
    "roof",
    lambda table: "FLOP/B bound",
    roofline_cell,
    width=12,
    priority=6,
    shown_for=lambda table: table.counted_flops,
)
"""Intensity and the side of the ridge (``0.083 memory`` is the widest)."""
SHARE = KernelColumn("share", lambda table: "share", _share, width=5, priority=7)
"""Of the mode's kernel time (it repeats the time column, so it goes first)."""
BANDWIDTH = KernelColumn(
    "bandwidth", lambda table: "bandwidth", lambda kernel, table: bandwidth_text(kernel), priority=5
)
"""Achieved bandwidth in words, for a page that has the width."""

TERMINAL_COLUMNS = (NAME, CALLS, TIME, BYTES)
"""``kernel-tui run``: two tables side by side."""
MARKDOWN_COLUMNS = (NAME, CALLS, TIME, BYTES, BANDWIDTH, LINK)
"""The lab report: the page's width, every column whole."""
EXPLORER_COLUMNS = (NAME, CALLS, TIME, BYTES, GBS, SHARE, ROOF, LINK)
"""The explorer's tables, left to right, fitted to their width."""

MIN_TEXT_WIDTH = 12
"""A text column (the attribution) narrower than this says too little: it goes instead."""
MAX_NAME_WIDTH = 64
"""The most a name claims before the figure columns: no course kernel comes near it (the longest, indented in
a training step's section, is 42), but a crafted results file's 5,000-character name pushed every figure
out; past this a name is cut in the middle (and the name line under the tables has it whole)."""
MAX_TEXT_TARGET = 40
"""Past this a long attribution is cut rather than keeping a figure column out: the course's longest kernel
name (``triton_poi_fused_expand_scalar_tensor…_0``, Inductor's own cut included) fits whole."""


@dataclass(frozen=True)
class ColumnPlan:
    """The columns a fitted table shows, left to right, and each one's width."""

    columns: tuple[KernelColumn, ...]
    widths: Mapping[str, int]
    left_out: int = 0
    """Columns the table would show with the width to show them."""

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(column.key for column in self.columns)

    @property
    def name_width(self) -> int:
        return self.widths[NAME.key]


def fit_columns(
    columns: Sequence[KernelColumn], room: int, spacing: int, wants: Mapping[str, int], table: TableOf | None = None
) -> ColumnPlan:
    """The columns of ``columns`` that fit in ``room`` cells, names first (each column also takes ``spacing``
    cells: its padding, and in a Rich table its rule).

    ``wants`` gives each text column's longest text (the name's, the attribution's), and where it has one a
    figure column's (a figure column without one takes its ``width``, so that it lines up run after run). The
    name gets what it wants, up to the whole room (and ``MAX_NAME_WIDTH``); then the other columns join by
    ``priority`` while they fit; the first that does not fit ends the list, so that the columns shown at any
    width are the most important ones. A text column joins whole (up to ``MAX_TEXT_TARGET``) or, where that
    does not fit, cut to ``MIN_TEXT_WIDTH`` and last. What is left goes to the text columns up to what they
    want, and any rest to the last column shown, so that the table fills its width."""
    available = [column for column in columns if table is None or column.shown_for(table)]

    def least(column: KernelColumn) -> int:
        # Never narrower than its header: a figure column's fixed width is its figures', and the sorted-by mark
        # widens a narrow header (``calls ▼``) rather than being cut off.
        header = len(column.header(table)) if table is not None else 0
        return max(wants.get(column.key, column.width or 0), header)

    widths = {NAME.key: max(1, min(least(NAME), MAX_NAME_WIDTH, room - spacing))}
    used = widths[NAME.key] + spacing
    joining = sorted((column for column in available if column is not NAME), key=lambda column: column.priority)
    for column in joining:
        width = least(column) if column.width is not None else min(least(column), MAX_TEXT_TARGET)
        cut = used + width + spacing > room and column.width is None
        if cut:
            width = min(MIN_TEXT_WIDTH, width)
        if used + width + spacing > room:
            break
        widths[column.key] = width
        used += width + spacing
        if cut:
            break  # a text column cut to its least still says something; a column after it would cut it more
    left_out = len([column for column in available if column.key not in widths])
    texts = [column for column in available if column.width is None and column.key in widths]
    spare = max(0, room - used)
    for column in texts:
        grow = min(spare, max(0, wants.get(column.key, 0) - widths[column.key]))
        widths[column.key] += grow
        spare -= grow
    shown = tuple(column for column in available if column.key in widths)
    widths[shown[-1].key] += spare
    return ColumnPlan(shown, widths, left_out)
