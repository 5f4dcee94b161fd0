"""Why these kernels, in words: which compiled kernel absorbed an eager one, what a compiled kernel
replaced, how fast each one moved its bytes, and which table columns fit the room there is.

Plain functions of ``kernel_tui.model.report`` data (no Textual), shared by the kernel tables, the full-name
line under them and the generated-code dialog, and tested without an app.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernel_tui.text.boundary_text import kernel_note
from kernel_tui.text.formatting import LINK_LABELS, attribution_text, bandwidth_text, ceiling_share_text, format_gbs
from kernel_tui.text.roofline_text import format_bound, format_flops, format_gflops, format_intensity

if TYPE_CHECKING:
    from rich.console import JustifyMethod

    from kernel_tui.model.kernel import Kernel
    from kernel_tui.model.mode_result import ModeResult


def bandwidth_cell(kernel: Kernel) -> tuple[str, str]:
    """(GB/s, % of the ceiling) for the bandwidth column, e.g. (``7.17``, ``62%``); below 0.01 GB/s
    ``<0.01``, which the column has room for beside its share (the line under the tables has the figure)."""
    gbs = kernel.gbs
    return ("<0.01" if gbs is not None and 0 < gbs < 0.01 else format_gbs(gbs)), ceiling_share_text(kernel)


def kernel_story(kernel: Kernel, mode: str, compiled: ModeResult | None = None) -> list[str]:
    """The highlighted kernel's attribution and bandwidth in full, for the line under the tables; it offers
    ``g`` only where ``code_kernel`` (what ``g`` shows) finds code, with ``compiled`` the run's compiled side."""
    attribution = attribution_text(kernel, mode)
    parts = [attribution] if attribution else []
    apart = kernel_note(kernel, compiled, eager=mode == "eager")
    if apart:
        parts.append(f"{apart} (d: Inductor's words)")
    if kernel.gbs is not None:
        parts.append(bandwidth_text(kernel))
    if kernel.flops is not None or kernel.intensity is not None:
        parts.append(roofline_story(kernel))
    target = code_kernel(kernel, mode, compiled) if mode == "eager" else None
    if mode == "compiled" and kernel.code:
        parts.append("g shows its code")
    elif target is not None:
        parts.append("g shows the code it became")
    return parts


def roofline_cell(kernel: Kernel) -> str:
    """The roofline column: intensity and the side of the ridge, ``171 compute``, ``0.12 memory``, ``?``."""
    intensity = format_intensity(kernel.intensity)
    return f"{intensity} {format_bound(kernel.bound, short=True)}" if kernel.bound else intensity


def roofline_story(kernel: Kernel) -> str:
    """``2.15 G FLOPs, 171 FLOP/B, 26.9 GFLOP/s, compute-bound``: the highlighted kernel on the roofline."""
    parts = [f"{format_flops(kernel.flops)} FLOPs", f"{format_intensity(kernel.intensity)} FLOP/B"]
    if kernel.gflops is not None:
        parts.append(f"{format_gflops(kernel.gflops)} GFLOP/s")
    if kernel.bound is not None:
        parts.append(format_bound(kernel.bound))
    return ", ".join(parts)


def code_language(kernel: Kernel) -> str:
    """The Pygments lexer for a compiled kernel's source: C++ (Inductor's CPU kernels) or Python (Triton)."""
    from kernel_tui.model.names import kernel_backend  # its patterns compile when code is first shown, not at start-up

    code = kernel.code or ""
    backend = kernel_backend(kernel.name)
    if "@triton" in code or "import triton" in code or backend == "triton":
        return "python"
    if "#include" in code or 'extern "C"' in code or backend == "cpp":
        return "cpp"
    return "python"


def code_kernel(kernel: Kernel | None, mode: str, compiled: ModeResult | None) -> Kernel | None:
    """The compiled kernel whose code the ``g`` key shows, for the kernel highlighted in ``mode``'s table:
    that kernel itself (compiled), or the compiled kernel that did an eager kernel's work (eager).

    None when no compiled kernel is known to have done that work: showing the first kernel with code
    instead would name an unrelated one (``cpp_fused_max_sin_0`` for ``aten::cos``)."""
    if compiled is None:
        return None
    with_code = [candidate for candidate in compiled.kernels if candidate.code]
    if kernel is None:
        return with_code[0] if with_code else None
    if mode == "compiled":
        return kernel if kernel.code else None
    for name in kernel.fused_into:
        for candidate in with_code:
            if candidate.short_name == name:
                return candidate
    # Without attribution, a compiled kernel that says it replaced this very operator did its work.
    for ops in ({kernel.name, kernel.op} - {None}, set(kernel.aten_ops)):
        found = next((candidate for candidate in with_code if ops & set(candidate.aten_ops)), None)
        if found is not None:
            return found
    return None


def no_code_reason(kernel: Kernel | None, mode: str) -> str:
    """What ``g`` says when ``code_kernel`` found nothing to show for the highlighted kernel."""
    if kernel is None:
        return "No generated code to show: run the scenario first (r)."
    if mode == "compiled":
        return f"{kernel.short_name} has no generated code: it is a library call or a copy, not an Inductor kernel."
    attribution = attribution_text(kernel, mode)
    if attribution:
        # The same words as its row: the work went to a library call, which has no generated code.
        return f"{kernel.short_name}: {attribution}, so there is no code to show."
    return (
        f"{kernel.short_name}: no compiled kernel is known to have done its work "
        "(compiled, it may have become a view, a library call, or nothing)."
    )


# -- which columns fit ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    """One kernel-table column: its key, header, justification and fixed width (None: sized to fit)."""

    key: str
    label: str
    justify: JustifyMethod
    width: int | None


NAME = Column("kernel", "kernel", "left", None)
CALLS = Column("calls", "calls", "right", 5)
TIME = Column("time", "time", "right", 9)
BYTES = Column("bytes", "bytes", "right", 9)
BANDWIDTH = Column("gbs", "GB/s %ceil", "right", 10)
SHARE = Column("share", "share", "right", 5)
ROOF = Column("roof", "FLOP/B bound", "right", 12)
"""Intensity and the side of the ridge (``0.083 memory`` is the widest); only where the engine counted FLOPs
(``plan_columns(roofline=)``)."""
LINK = Column("link", "", "left", None)
"""Labelled per table (``formatting.LINK_LABELS``)."""

ORDER = (NAME, CALLS, TIME, BYTES, BANDWIDTH, SHARE, LINK)
"""Left to right."""
DROPPED_FIRST = SHARE
"""Shown only when the name and the attribution both fit whole next to it (it repeats the time column)."""
DROPPED_NEXT = (BANDWIDTH, LINK)
"""Then dropped in this order when even the shortest name and attribution do not fit; what they said
stays in the full-name line under the tables."""
MIN_NAME_WIDTH = 12
MIN_LINK_WIDTH = 12
MAX_NAME_TARGET = 28
MAX_LINK_TARGET = 32
"""Past these widths a long name or attribution is cut rather than pushing the share column out."""


@dataclass(frozen=True)
class ColumnPlan:
    """The columns a table shows at its width, and the widths of the two text columns."""

    columns: tuple[Column, ...]
    name_width: int
    link_width: int

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(column.key for column in self.columns)


def _needed(shown: tuple[Column, ...], padding: int, name_width: int, link_width: int) -> int:
    widths = {NAME.key: name_width, LINK.key: link_width}
    return sum(widths.get(column.key, column.width or 0) + 2 * padding for column in shown)


def plan_columns(room: int, padding: int, name_want: int, link_want: int, roofline: bool = False) -> ColumnPlan:
    """Which columns fit in ``room`` cells (each column also takes ``padding`` on both sides).

    ``name_want`` and ``link_want`` are the longest name and attribution to show. The share column stays
    only if both fit whole (up to a cap) beside it; then the bandwidth and the attribution go, in that
    order, until the name and the attribution fit at their minimum. What is left goes first to the
    attribution, then to the name, up to what their texts need, and any rest to the last column so the
    table fills its width. With ``roofline``, the roofline column stands before the attribution and goes
    right after the share column.
    """
    name_min = min(MIN_NAME_WIDTH, max(name_want, len(NAME.label)))
    link_min = min(MIN_LINK_WIDTH, max(link_want, len(LINK_LABELS["eager"])))
    name_target = max(name_min, min(name_want, MAX_NAME_TARGET))
    link_target = max(link_min, min(link_want, MAX_LINK_TARGET))
    shown: tuple[Column, ...] = (*ORDER[:-1], ROOF, LINK) if roofline else ORDER
    if _needed(shown, padding, name_target, link_target) > room:
        shown = tuple(column for column in shown if column is not DROPPED_FIRST)
    for column in (ROOF, *DROPPED_NEXT):
        if _needed(shown, padding, name_min, link_min if LINK in shown else 0) <= room:
            break
        shown = tuple(kept for kept in shown if kept is not column)
    has_link = LINK in shown
    spare = max(0, room - _needed(shown, padding, name_min, link_min if has_link else 0))
    name_width, link_width = name_min, link_min if has_link else 0
    if has_link:
        grow = min(spare, max(0, link_want - link_width))
        link_width, spare = link_width + grow, spare - grow
    grow = min(spare, max(0, name_want - name_width))
    name_width, spare = name_width + grow, spare - grow
    if has_link:
        link_width += spare
    else:
        name_width += spare
    return ColumnPlan(shown, name_width, link_width)
