"""A scenario's reports from several machines as one table per mode: ``kernel-tui view --text`` prints it.

Each column is one machine (device, architecture, torch release); each row the work a set of kernels replaced
(``model/compare/device_columns.py``), each cell that column's kernels for it with their launches, bytes, time and
bandwidth as a share of the column's own copy ceiling. A row where the hardware chose otherwise is marked ``≠``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from kernel_tui.model.compare.device_columns import column_letter, work_text
from kernel_tui.model.names.safe_text import safe_line
from kernel_tui.text.formatting import format_bytes, format_count, format_time_us

if TYPE_CHECKING:
    from kernel_tui.model.compare.device_columns import Cell, DeviceComparison, ModeColumns
    from kernel_tui.model.report.report import ScenarioReport

CHANGED_MARK = "≠"
"""Marks a row where the columns' choices differ (another count, kind of kernel, or config)."""


def machine_line(report: ScenarioReport) -> str:
    """``cuda-preview · NVIDIA A100-SXM4-80GB (sm_80) · torch 2.14.1 · Triton 3.8.0 · CUDA 13.0``, then the copy
    ceiling and when it was measured, where the report has them: everything that tells the column apart."""
    parts = [report.device, report.device_name, f"torch {report.torch_version}"]
    machine = report.machine
    if machine is not None:
        if machine.architecture and machine.architecture not in report.device_name:
            parts.append(machine.architecture)
        parts += [
            f"{word} {value}"
            for word, value in (
                ("Triton", machine.triton_version),
                ("CUDA", machine.cuda_version),
                ("driver", machine.driver_version),
                ("host", machine.hostname),
            )
            if value
        ]
    ceilings = report.ceilings
    ceiling = ceilings.bandwidth_gbs if ceilings is not None else report.bandwidth_ceiling_gbs
    if ceiling:
        measured = ceilings.measured_at if ceilings is not None else None
        parts.append(f"copy ceiling {ceiling:.1f} GB/s" + (f" measured {measured}" if measured else ""))
    return safe_line(" · ".join(parts))


def cell_text(cell: Cell | None) -> str:
    """A column's kernels for a row, one a line with their launches, then their bytes, time and ceiling share."""
    if cell is None:
        return "(not measured)"
    if not cell.kernels:
        return "—"
    lines = [f"{safe_line(kernel.short_name)} ×{format_count(kernel.calls)}" for kernel in cell.kernels]
    figures = [format_bytes(cell.bytes_moved), format_time_us(cell.time_us)]
    if cell.ceiling_pct is not None:
        figures.append(_share(cell.ceiling_pct))
    lines.append(" · ".join(figures))
    return "\n".join(lines)


def totals_text(cell: Cell | None) -> str:
    if cell is None:
        return "(not measured)"
    figures = [
        f"{_counted(len(cell.kernels), 'kernel')}, {_counted(cell.launches, 'launch')}",
        f"{format_bytes(cell.bytes_moved)} · {format_time_us(cell.time_us)}",
    ]
    if cell.ceiling_pct is not None:
        figures.append(_share(cell.ceiling_pct))
    return "\n".join(figures)


def _share(pct: float) -> str:
    """``62% of ceiling``; ``<1% of ceiling`` rather than a ``0%`` that reads as nothing moved."""
    return f"{pct:.0f}% of ceiling" if pct >= 1 else "<1% of ceiling"


def _counted(count: float, noun: str) -> str:
    plural = noun + ("es" if noun.endswith("ch") else "s")
    return f"{format_count(count)} {noun if count == 1 else plural}"


def mode_table(comparison: DeviceComparison, mode: ModeColumns) -> Table:
    table = Table(title=mode.mode, title_justify="left", expand=True, pad_edge=False, show_lines=True)
    table.add_column("replaces", overflow="fold", ratio=2)
    for index, _ in enumerate(comparison.reports):
        table.add_column(column_letter(index), overflow="fold", ratio=3)
    table.add_column(CHANGED_MARK, overflow="fold", ratio=2)
    # Every cell is Text, never a str: a str would be read as markup, and a kernel's name comes from a stranger's file.
    for row in mode.rows:
        table.add_row(
            Text(safe_line(work_text(row.work))),
            *(Text(cell_text(cell)) for cell in row.cells),
            Text("; ".join(row.changes), style="bold yellow"),
        )
    table.add_row(Text("all kernels", style="bold"), *(Text(totals_text(cell)) for cell in mode.totals), Text(""))
    return table


def device_columns_view(comparison: DeviceComparison) -> RenderableType:
    """The scenario's title, each column's machine, a table per mode, and the notes on what else differs."""
    first = comparison.reports[0]
    parts: list[RenderableType] = [Text(safe_line(f"{comparison.title} ({first.scenario})"), style="bold")]
    for index, report in enumerate(comparison.reports):
        parts.append(Text(f"  {column_letter(index)}  {machine_line(report)}"))
        if report.error is not None:
            parts.append(Text(f"     {report.error.short_line()}", style="red"))
    changed = sum(1 for mode in comparison.modes for row in mode.rows if row.changes)
    for mode in comparison.modes:
        if any(cell is not None for cell in mode.totals):
            parts.append(mode_table(comparison, mode))
    if len(comparison.reports) > 1:
        verdict = (
            f"{_counted(changed, 'row')} where the columns chose differently ({CHANGED_MARK})"
            if changed
            else "same choices"
        )
        parts.append(Text(verdict, style="yellow" if changed else "green"))
    parts.extend(Text(f"note: {note}", style="yellow") for note in comparison.notes)
    parts.append(Text(""))
    return Group(*parts)
