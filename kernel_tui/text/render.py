"""Rich tables for ``kernel-tui run``: eager and compiled side by side, then the summary, sweep and claims."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from kernel_tui.model.compare.baseline_marks import MARK_STYLES
from kernel_tui.model.names.safe_text import safe_line
from kernel_tui.model.report.compile_variants import describe_arguments
from kernel_tui.model.report.kernel import nested_names
from kernel_tui.model.report.launch import LAUNCH_HEADERS, launch_cells
from kernel_tui.model.report.report import known_launches
from kernel_tui.model.report.report_keys import MODES, SECTIONS
from kernel_tui.text.baseline import (
    BaselineComparison,
    heading_text,
    kernel_cells,
    time_text,
    totals_text,
    unchanged_text,
    verdict_text,
)
from kernel_tui.text.by_line import annotated_lines
from kernel_tui.text.call_split import (
    CONTRADICTION_MARK,
    compile_lines,
    cuda_graph_lines,
    split_lines,
    verdict_lines,
)
from kernel_tui.text.formatting import (
    PREDICTED_MARK,
    VARIANT_HEADERS,
    claim_line,
    device_line,
    format_count,
    format_size,
    format_speedup,
    format_time_us,
    report_notes,
    summary_line,
    training_line,
    variant_rows,
)
from kernel_tui.text.kernel_columns import CALLS, NAME, TERMINAL_COLUMNS, TIME, ColumnPlan, TableOf, fit_columns
from kernel_tui.text.kernel_order import AS_LAUNCHED, SORTED_COLUMNS, in_order
from kernel_tui.text.names_beside_figures import RULED, columns_kept
from kernel_tui.text.parts.boundary_text import boundary_lines
from kernel_tui.text.parts.hotspot_text import hotspot_lines
from kernel_tui.text.parts.library_text import kernel_lines
from kernel_tui.text.parts.memory_text import memory_line
from kernel_tui.text.parts.module_text import module_table_view
from kernel_tui.text.parts.roofline_text import (
    ROOFLINE_HEADERS,
    ceilings_line,
    roofline_cells,
    roofline_summary,
)
from kernel_tui.text.parts.variant_text import autotune_lines, recompile_lines

if TYPE_CHECKING:
    from kernel_tui.model.report.mode_result import ModeResult
    from kernel_tui.model.report.report import ScenarioReport


def kernel_table(
    title: str, mode: ModeResult | None, preview: bool = False, width: int | None = None, order: str = AS_LAUNCHED
) -> Table:
    """One mode's kernels in ``order`` (``kernel_order``, its column's header marked); within ``width`` cells,
    names first: the figure columns that do not fit beside the longest name are left out by their priority
    (``kernel_columns.fit_columns``)."""
    table = Table(title=title, title_justify="left", expand=True, pad_edge=False)
    of = TableOf(title.lower(), mode, preview, marks=True, sorted_by=SORTED_COLUMNS.get(order))
    rows = _rows(mode, of, order)
    plan = _plan(of, rows, width)
    table.add_column(NAME.header(of), overflow="ellipsis", no_wrap=True, ratio=3, min_width=plan.name_width)
    figures = [column for column in plan.columns if column is not NAME]
    for column in figures:
        table.add_column(column.header(of), justify=column.justify, no_wrap=True)
    for name, cells in rows:
        table.add_row(name, *(cells.get(column.key, "") for column in figures))
    if mode is not None and any(kernel.predicted for kernel in mode.kernels):
        table.caption = f"{PREDICTED_MARK} predicted from ATen's CUDA source"
        table.caption_justify = "left"
    return table


def _rows(mode: ModeResult | None, of: TableOf, order: str = AS_LAUNCHED) -> list[tuple[Text | str, dict[str, str]]]:
    """Each row's name and its cells by column key: a kernel's, a section heading's, or a word for none; a
    training step's kernels sorted within their section."""
    if mode is None:
        return [("not measured", {})]
    rows: list[tuple[Text | str, dict[str, str]]] = []
    if not mode.kernels:
        rows.append((Text("no kernels", style="dim"), {CALLS.key: "0"}))
    groups = [(section, mode.section(section)) for section in SECTIONS] if mode.is_training else [(None, mode.kernels)]
    for section, launched in groups:
        kernels = in_order(launched, order)
        if section is not None:
            rows.append((Text(section, style="bold"), {CALLS.key: format_count(sum(k.calls for k in kernels))}))
        indent = "" if section is None else "  "
        for kernel, name in zip(kernels, nested_names(kernels)):
            cells = {column.key: column.cell(kernel, of) for column in TERMINAL_COLUMNS if column is not NAME}
            rows.append((indent + name, cells))
            rows.extend((indent + line, {TIME.key: time}) for line, time in kernel_lines(kernel, of.preview))
    return rows


def _plan(of: TableOf, rows: list[tuple[Text | str, dict[str, str]]], width: int | None) -> ColumnPlan:
    """The columns that fit ``width`` (None: all of them), each as wide as its header and its cells."""
    wants = {column.key: len(column.header(of)) for column in TERMINAL_COLUMNS}
    for name, cells in rows:
        wants[NAME.key] = max(wants[NAME.key], len(name))
        for key, cell in cells.items():
            wants[key] = max(wants[key], len(cell))
    # A column takes its padding either side and its rule: three cells, less the table's two edges' padding
    # (``pad_edge=False``) and one rule fewer than columns, plus the two edges' rules.
    room = width + 1 if width is not None else sum(wants.values()) + RULED * len(wants)
    return fit_columns(TERMINAL_COLUMNS, room, RULED, wants, of)


def tables_fit_beside(report: ScenarioReport, width: int) -> bool:
    """Whether the eager and the compiled table, side by side in ``width`` cells, each show every name whole and
    every column: else one goes above the other."""
    half = (width - 2) // 2  # the grid pads each table one cell on its inner side
    for title, mode in (("Eager", report.eager), ("Compiled", report.compiled)):
        of = TableOf(title.lower(), mode, report.is_preview, marks=True)
        rows = _rows(mode, of)
        plan = _plan(of, rows, half)
        if plan.left_out or any(len(name) > plan.name_width for name, _ in rows):
            return False
    return True


LAUNCH_LEFT_OUT_FIRST = ("threads", "block", "per thread")
"""What a narrow launches table leaves out before it cuts a name: the threads are grid × block, and the block
and elements per thread follow from the grid for a known size."""
ROOFLINE_LEFT_OUT_FIRST = ("GFLOP/s", "GB/s", "FLOPs", "FLOP/B")
"""What a narrow roofline table leaves out before it cuts a name: the rates first (a kernel's time says as much),
then the FLOPs, then the intensity, keeping the side of the ridge it puts the kernel on: at 80 columns the CPU's
``aten::_scaled_dot_product_flash_attention_for…`` (lesson 33) leaves room for one figure."""


def launch_table(report: ScenarioReport, width: int | None = None) -> Table | None:
    """How each kernel was launched, where that is known: grid × block and warps on a GPU (or in the preview),
    the OpenMP threads on a CPU, and the elements each thread handles; None when no kernel's launch is known.
    Within ``width`` cells the names stay whole and figures go first (``LAUNCH_LEFT_OUT_FIRST``)."""
    rows = known_launches(report)
    if not rows:
        return None
    names = [f"  {kernel.short_name}" for _, kernel, _ in rows]
    cells = [dict(zip(LAUNCH_HEADERS, launch_cells(launch))) for _, _, launch in rows]
    widest = {header: max([len(header), *(len(row[header]) for row in cells)]) for header in LAUNCH_HEADERS}
    kept = columns_kept(max([len("kernel"), *map(len, names)]), widest, LAUNCH_LEFT_OUT_FIRST, width)
    table = Table(title="Launches", title_justify="left", expand=True, pad_edge=False)
    table.add_column("kernel", overflow="ellipsis", no_wrap=True, ratio=3, min_width=12)
    for column in kept:
        table.add_column(column, justify="right", no_wrap=True)
    shown_mode = None
    for (mode, _, _), name, row in zip(rows, names, cells):
        if mode != shown_mode:  # a heading row per mode leaves the names the width a column would take
            table.add_row(Text(mode, style="bold"), *[""] * len(kept))
            shown_mode = mode
        table.add_row(name, *(row[column] for column in kept))
    return table


def roofline_table(report: ScenarioReport, width: int | None = None) -> Table:
    """Per kernel of both modes: FLOPs, intensity, achieved GB/s and GFLOP/s, and the side of the ridge. Within
    ``width`` cells the names stay whole and figures go first (``ROOFLINE_LEFT_OUT_FIRST``)."""
    rows = [
        (label, name, dict(zip(ROOFLINE_HEADERS, roofline_cells(report, kernel))))
        for label in MODES
        if (mode := report.mode(label)) is not None
        for kernel, name in zip(mode.kernels, nested_names(mode.kernels))
    ]
    widest = {"mode": max([len("mode"), *(len(label) for label, _, _ in rows)])}
    widest |= {header: max([len(header), *(len(cells[header]) for _, _, cells in rows)]) for header in ROOFLINE_HEADERS}
    name_width = max([len("kernel"), *(len(name) for _, name, _ in rows)])
    kept = columns_kept(name_width, widest, ROOFLINE_LEFT_OUT_FIRST, width)
    table = Table(title="compute or memory (roofline)", title_justify="left", expand=True, pad_edge=False)
    table.add_column("mode")
    table.add_column("kernel", overflow="ellipsis", no_wrap=True, ratio=3, min_width=12)
    figures = [column for column in kept if column != "mode"]
    for column in figures:
        table.add_column(column, justify="left" if column == "bound" else "right")
    for label, name, cells in rows:
        table.add_row(label, name, *(cells[column] for column in figures))
    return table


def variants_table(report: ScenarioReport) -> Table:
    """Eager, compiled and each compile variant in a row of its own, narrow enough for 80 columns: kernels,
    bytes, time with its spread, the speedup over eager from the shared rounds, compile time, graph breaks and
    recompiles. What a variant's arguments were, and why one has no numbers, follow under the table."""
    table = Table(
        title="compile variants (speedup over eager, same timing rounds)", title_justify="left", pad_edge=False
    )
    table.add_column("column", overflow="ellipsis", no_wrap=True, max_width=16)
    for column in VARIANT_HEADERS:
        table.add_column(column, justify="right", no_wrap=True)
    for name, cells in variant_rows(report):
        if cells is None:
            table.add_row(name, Text("not measured", style="red"), *[""] * (len(VARIANT_HEADERS) - 1))
        else:
            table.add_row(name, *cells)
    return table


def variant_lines(report: ScenarioReport) -> list[Text]:
    """Per variant: the arguments it was compiled with, and its note or error."""
    lines = []
    for name, variant in report.variants.items():
        lines.append(Text(f"{name}: {describe_arguments(variant.options)}", style="dim"))
        if variant.note:
            lines.append(Text(f"  note: {variant.note}", style="yellow"))
        if variant.error is not None:
            lines.append(Text(f"  error: {variant.error.one_line(first_line_only=True)}", style="bold red"))
        lines.extend(Text(line) for line in autotune_lines(name, variant, report.device))
    return lines


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


CLAIM_STYLES = {True: "green", False: "bold red", None: "yellow"}
"""Held, failed, and not measured (the sweep it needs was cut short)."""


def claims_text(report: ScenarioReport) -> Text:
    text = Text()
    for key, check in report.expect.items():
        text.append(claim_line(key, check) + "  ", style=CLAIM_STYLES[check.ok])
    return text


SIDE_BY_SIDE_WIDTH = 100


def by_line_view(report: ScenarioReport) -> RenderableType:
    """``run --by-line``: the scenario's code, each line with the kernels it launched eager and compiled."""
    if report.source is None:
        return Text("by line: the scenario's text could not be read", style="dim")
    if report.eager is None:
        return Text("by line: nothing was measured, so no kernel has a line", style="dim")
    return Group(
        Text("By line", style="bold"), *(Text(line) for line in annotated_lines(report.source, report)), Text("")
    )


def scenario_view(report: ScenarioReport, width: int = 120, order: str = AS_LAUNCHED) -> RenderableType:
    """``kernel-tui run``'s view of one report, its kernel tables in ``order`` (``kernel_order``, ``--sort``)."""
    parts: list[RenderableType] = [
        Text(report.title, style="bold"),
        Text(f"{report.scenario} · {device_line(report)}", style="dim"),
    ]
    if report.signature:
        parts.append(Text(f"shapes: {report.signature}"))
    for line in verdict_lines(report):
        parts.append(Text(line, style="yellow" if line.startswith(CONTRADICTION_MARK) else "bold"))
    if report.eager is not None:
        beside = width >= SIDE_BY_SIDE_WIDTH and tables_fit_beside(report, width)
        table_width = (width - 2) // 2 if beside else width
        eager = kernel_table("Eager", report.eager, report.is_preview, table_width, order)
        compiled = kernel_table("Compiled", report.compiled, report.is_preview, table_width, order)
        if beside:
            sides = Table.grid(expand=True, padding=(0, 1))
            sides.add_column(ratio=1)
            sides.add_column(ratio=1)
            sides.add_row(eager, compiled)
            parts.append(sides)
        else:
            parts.extend((eager, compiled))
        parts.append(Text(summary_line(report)))
        parts.extend(Text(line) for line in hotspot_lines(report, width))
        parts.extend(Text(line) for line in (*split_lines(report), *cuda_graph_lines(report), *compile_lines(report)))
        parts.extend(Text(line) for line in boundary_lines(report.compiled))
        modules = module_table_view(report, width)
        if modules is not None:
            parts.append(modules)
        if report.variants:
            parts.append(variants_table(report))
            parts.extend(variant_lines(report))
        parts.extend(Text(line) for line in recompile_lines(report))
        if report.eager.is_training:
            parts.append(Text(training_line(report)))
        memory = memory_line(report)
        if memory is not None:
            parts.append(Text(memory))
        launches = launch_table(report, width)
        if launches is not None:
            parts.append(launches)
        parts.append(roofline_table(report, width))
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


def baseline_view(comparison: BaselineComparison | None, scenario: str, source: str) -> RenderableType:
    """A run against its baseline in ``source``: per mode the totals, then each kernel added (``+``), removed
    (``-``) or changed (``~``); lines, not side-by-side tables, so that it reads at 80 columns."""
    if comparison is None:
        return Text(f"baseline: no report of {Path(scenario).name} in {safe_line(source)}\n", style="yellow")
    parts: list[RenderableType] = [Text(f"Against the baseline: {heading_text(comparison, source)}", style="bold")]
    for mode in comparison.modes:
        parts.append(Text(totals_text(mode), style="bold red" if mode.launches_grew or mode.bytes_grew else ""))
        if time := time_text(mode.time):
            parts.append(Text(f"  {time}"))
        rows = Table.grid(padding=(0, 2))
        rows.add_column(no_wrap=True)
        rows.add_column(overflow="ellipsis", no_wrap=True, max_width=36)
        for _ in range(3):
            rows.add_column(justify="right", no_wrap=True)
        for change in mode.differences:
            rows.add_row(*kernel_cells(change), style=MARK_STYLES[change.status])
        if unchanged := unchanged_text(mode):
            rows.add_row("", Text(unchanged, style="dim"), "", "", "")
        parts.append(Padding(rows, (0, 0, 0, 2), expand=False))
    for note in comparison.notes:
        parts.append(Text(f"note: {note}", style="yellow"))
    parts.append(Text(verdict_text(comparison), style="bold red" if comparison.grew else "green"))
    parts.append(Text(""))
    return Group(*parts)
