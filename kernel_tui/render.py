"""Rich tables for ``kernel-tui run``: eager and compiled side by side, then the summary, sweep and claims."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from kernel_tui.formatting import (
    claim_line,
    device_line,
    format_bytes,
    format_count,
    format_size,
    format_speedup,
    format_time_us,
    format_transfers,
    report_notes,
    summary_line,
)
from kernel_tui.report import SECTIONS, ModeResult, ScenarioReport, nested_names
from kernel_tui.roofline_text import (
    ceilings_line,
    format_bound,
    format_flops,
    format_gflops,
    format_intensity,
    roofline_summary,
)


def kernel_table(title: str, mode: ModeResult | None, preview: bool = False) -> Table:
    table = Table(title=title, title_justify="left", expand=True, pad_edge=False)
    table.add_column("kernel", overflow="ellipsis", no_wrap=True, ratio=3, min_width=12)
    table.add_column("calls", justify="right")
    table.add_column("time", justify="right")
    table.add_column("bytes", justify="right")
    if mode is None:
        table.add_row("not measured", "", "", "")
        return table
    if not mode.kernels:
        table.add_row(Text("no kernels", style="dim"), "0", "", "")
    groups = [(section, mode.section(section)) for section in SECTIONS] if mode.is_training else [(None, mode.kernels)]
    for section, kernels in groups:
        if section is not None:
            table.add_row(Text(section, style="bold"), format_count(sum(k.calls for k in kernels)), "", "")
        for kernel, name in zip(kernels, nested_names(kernels)):
            table.add_row(
                name if section is None else f"  {name}",
                format_count(kernel.calls),
                format_time_us(kernel.time_us, preview),
                format_bytes(kernel.bytes_total),
            )
    return table


def training_line(report: ScenarioReport) -> str:
    """A training step's launches and bytes per section, eager → compiled, and what forward saves for
    backward: ``forward: launches 3 → 1, bytes ... · saved for backward 256.0 KiB (1.0×) → 64.0 KiB (0.2×)``."""
    modes = [mode for mode in (report.eager, report.compiled) if mode is not None]
    parts = []
    for section in SECTIONS:
        launches = " → ".join(format_count(getattr(mode, f"{section}_launches")) for mode in modes)
        traffic = " → ".join(format_bytes(getattr(mode, f"{section}_bytes")) for mode in modes)
        parts.append(f"{section}: launches {launches}, bytes {traffic}")
    saved = " → ".join(
        f"{format_bytes(mode.saved_bytes)} ({format_transfers(_in_arrays(mode.saved_bytes, report))})"
        for mode in modes
    )
    parts.append(f"saved for backward {saved}")
    return " · ".join(parts)


def _in_arrays(count: int | None, report: ScenarioReport) -> float | None:
    return count / report.array_bytes if count is not None and report.array_bytes else None


def roofline_table(report: ScenarioReport) -> Table:
    """Per kernel of both modes: FLOPs, intensity, achieved GB/s and GFLOP/s, and the side of the ridge."""
    table = Table(title="compute or memory (roofline)", title_justify="left", expand=True, pad_edge=False)
    table.add_column("mode")
    table.add_column("kernel", overflow="ellipsis", no_wrap=True, ratio=3, min_width=12)
    for column in ("FLOPs", "FLOP/B", "GB/s", "GFLOP/s"):
        table.add_column(column, justify="right")
    table.add_column("bound")
    for label, mode in (("eager", report.eager), ("compiled", report.compiled)):
        if mode is None:
            continue
        for kernel, name in zip(mode.kernels, nested_names(mode.kernels)):
            table.add_row(
                label,
                name,
                format_flops(kernel.flops),
                format_intensity(kernel.intensity),
                format_time_us(None, True) if report.is_preview else format_gflops(kernel.gbs),
                format_time_us(None, True) if report.is_preview else format_gflops(kernel.gflops),
                format_bound(kernel.bound),
            )
    return table


def sweep_table(report: ScenarioReport) -> Table:
    table = Table(title="runtime against size (median of one call)", title_justify="left")
    for column in ("size", "eager", "compiled", "speedup"):
        table.add_column(column, justify="right")
    table.add_column("note")
    for point in report.sweep:
        table.add_row(
            format_size(point.size),
            format_time_us(point.eager_us),
            format_time_us(point.compiled_us),
            format_speedup(point),
            point.note or "",
        )
    return table


def claims_text(report: ScenarioReport) -> Text:
    text = Text()
    for key, check in report.expect.items():
        text.append(claim_line(key, check) + "  ", style="green" if check.ok else "bold red")
    return text


SIDE_BY_SIDE_WIDTH = 100


def scenario_view(report: ScenarioReport, width: int = 120) -> RenderableType:
    parts: list[RenderableType] = [
        Text(report.title, style="bold"),
        Text(f"{report.scenario} · {device_line(report)}", style="dim"),
    ]
    if report.signature:
        parts.append(Text(f"shapes: {report.signature}"))
    if report.eager is not None:
        eager = kernel_table("Eager", report.eager, report.is_preview)
        compiled = kernel_table("Compiled", report.compiled, report.is_preview)
        if width >= SIDE_BY_SIDE_WIDTH:
            sides = Table.grid(expand=True, padding=(0, 1))
            sides.add_column(ratio=1)
            sides.add_column(ratio=1)
            sides.add_row(eager, compiled)
            parts.append(sides)
        else:
            parts.extend((eager, compiled))
        parts.append(Text(summary_line(report)))
        if report.eager.is_training:
            parts.append(Text(training_line(report)))
        parts.append(roofline_table(report))
        parts.append(Text(roofline_summary(report)))
        if not report.is_preview:
            parts.append(Text(ceilings_line(report.ceilings), style="dim"))
    if report.sweep:
        parts.append(sweep_table(report))
    if report.sweep_strategy:
        parts.append(Text(f"sweep: {report.sweep_strategy}", style="dim"))
    if report.expect:
        parts.append(claims_text(report))
    for assumption in report.assumptions:
        parts.append(Text(f"preview for sm_{report.arch}: {assumption}", style="dim"))
    if report.error is not None:
        parts.append(Text(f"error: {report.error.one_line()}", style="bold red"))
    for note in report_notes(report):
        parts.append(Text(f"note: {note}", style="yellow"))
    parts.append(Text(""))
    return Group(*parts)
