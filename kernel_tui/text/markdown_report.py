"""A Markdown lab report of measured scenarios: ``kernel-tui run --export report.md``."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING

from kernel_tui.model.report.compile_variants import describe_arguments
from kernel_tui.model.report.launch import launch_text
from kernel_tui.model.report.report import known_launches
from kernel_tui.model.report.report_keys import MODES
from kernel_tui.text.by_line import annotated_lines
from kernel_tui.text.call_split import cuda_graph_lines, split_lines
from kernel_tui.text.formatting import (
    VARIANT_HEADERS,
    claim_line,
    device_line,
    format_gbs,
    format_size,
    format_speedup,
    format_time_us,
    summary_line,
    variant_rows,
)
from kernel_tui.text.kernel_columns import MARKDOWN_COLUMNS, NAME, TIME, TableOf
from kernel_tui.text.parts.boundary_text import boundary_lines
from kernel_tui.text.parts.library_text import kernel_lines
from kernel_tui.text.parts.memory_text import memory_line
from kernel_tui.text.parts.roofline_text import (
    ceilings_line,
    roofline_cells,
    roofline_summary,
)

if TYPE_CHECKING:
    from kernel_tui.model.report.mode_result import ModeResult
    from kernel_tui.model.report.report import ScenarioReport


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _kernel_table(title: str, mode: ModeResult | None, mode_name: str, preview: bool = False) -> list[str]:
    lines = [f"#### {title}", ""]
    if mode is None:
        return lines + ["Not measured.", ""]
    if not mode.kernels:
        return lines + ["No kernels.", ""]
    of = TableOf(mode_name, mode, preview)
    lines += [
        "| " + " | ".join(column.header(of) for column in MARKDOWN_COLUMNS) + " |",
        "| " + " | ".join("---:" if column.numeric else "---" for column in MARKDOWN_COLUMNS) + " |",
    ]
    for kernel in mode.kernels:
        cells = (_cell(column.cell(kernel, of)) for column in MARKDOWN_COLUMNS)
        lines.append(
            "| "
            + " | ".join(f"`{cell}`" if column is NAME else cell for column, cell in zip(MARKDOWN_COLUMNS, cells))
            + " |"
        )
        for name, time in kernel_lines(kernel, preview):  # the kernels inside a library call, under its row
            inside = {NAME.key: f"`{_cell(name.strip())}`", TIME.key: time}
            lines.append("| " + " | ".join(inside.get(column.key, "") for column in MARKDOWN_COLUMNS) + " |")
    return lines + [""]


def _variants_table(report: ScenarioReport) -> list[str]:
    """Eager, compiled and each compile variant, measured in the same timing rounds, and what each was asked."""
    lines = [
        "#### Compile variants",
        "",
        "| column | " + " | ".join(VARIANT_HEADERS) + " |",
        "| --- |" + " ---: |" * len(VARIANT_HEADERS),
    ]
    for name, cells in variant_rows(report):
        shown = cells if cells is not None else ("not measured", *[""] * (len(VARIANT_HEADERS) - 1))
        lines.append(f"| {_cell(name)} | " + " | ".join(_cell(cell) for cell in shown) + " |")
    lines.append("")
    for name, variant in report.variants.items():
        said = f"`{_cell(name)}`: {_cell(describe_arguments(variant.options))}"
        if variant.note:
            said += f"; {_cell(variant.note)}"
        if variant.error is not None:
            said += f"; error: {_cell(variant.error.one_line(first_line_only=True))}"
        lines += [f"- {said}"]
    return lines + [""]


def _roofline_table(report: ScenarioReport) -> list[str]:
    """The roofline as a table: each kernel's intensity and achieved rates against the two ceilings."""
    lines = ["#### Compute or memory (roofline)", ""]
    if not report.is_preview:
        lines += [ceilings_line(report.ceilings).replace("ceilings: ", "Ceilings: ", 1) + ".", ""]
    lines += [f"{roofline_summary(report)}.", ""]
    lines += [
        "| mode | kernel | FLOPs | FLOP/B | GB/s | GFLOP/s | bound |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for label in MODES:
        mode = report.mode(label)
        for kernel in mode.kernels if mode is not None else ():
            lines.append(f"| {label} | `{_cell(kernel.short_name)}` | {' | '.join(roofline_cells(report, kernel))} |")
    return lines + [""]


def _launch_table(report: ScenarioReport) -> list[str]:
    """How each kernel was launched, where that is known, with the notes on what a GPU would decide."""
    rows = known_launches(report)
    if not rows:
        return []
    lines = ["#### Launches", "", "| mode | kernel | launch |", "| --- | --- | --- |"]
    for mode, kernel, launch in rows:
        lines.append(f"| {mode} | `{_cell(kernel.short_name)}` | {_cell(launch_text(launch) or '')} |")
    notes = dict.fromkeys(launch.note for _, _, launch in rows if launch.note)
    unknown: dict[str, list[str]] = {}  # why a kernel's launch is not known (a library call in a preview)
    for mode in MODES:
        result = report.mode(mode)
        for kernel in result.kernels if result is not None else ():
            if kernel.launch is not None and not kernel.launch.is_known and kernel.launch.note:
                unknown.setdefault(kernel.launch.note, []).append(f"`{_cell(kernel.short_name)}`")
    bullets = [f"- {_cell(note)}" for note in notes]
    bullets += [f"- {', '.join(dict.fromkeys(names))}: {_cell(note)}" for note, names in unknown.items()]
    return lines + [""] + bullets + ([""] if bullets else [])


def scenario_markdown(report: ScenarioReport) -> str:
    lines = [f"## {report.title}", "", f"`{report.scenario}` · {device_line(report)}", ""]
    if report.bandwidth_ceiling_gbs:
        lines += [f"Copy bandwidth of this device (the ceiling): {format_gbs(report.bandwidth_ceiling_gbs)} GB/s.", ""]
    if report.eager is not None:
        lines += [summary_line(report), ""]
        lines += [f"- {_cell(line)}" for line in (*split_lines(report), *cuda_graph_lines(report))]
        lines += [""] if split_lines(report) or cuda_graph_lines(report) else []
        lines += [f"- {line}" for line in boundary_lines(report.compiled, inductor=True)]
        lines += [""] if report.compiled is not None and report.compiled.boundaries else []
        memory = memory_line(report)
        if memory is not None:
            lines += [memory, ""]
    for mode_name in MODES:
        lines += _kernel_table(mode_name.capitalize(), report.mode(mode_name), mode_name, report.is_preview)
    if report.source is not None and report.eager is not None:
        lines += ["#### By line", "", "```", *annotated_lines(report.source, report), "```", ""]
    if report.variants:
        lines += _variants_table(report)
    lines += _launch_table(report)
    if report.eager is not None:
        lines += _roofline_table(report)
    if report.sweep:
        lines += [
            "#### Runtime against size",
            "",
            "| size | eager | compiled | speedup | note |",
            "| ---: | ---: | ---: | ---: | --- |",
        ]
        for point in report.sweep:
            lines.append(
                f"| {format_size(point.size)} | {format_time_us(point.eager_us)} | "
                f"{format_time_us(point.compiled_us)} | {format_speedup(point)} | {_cell(point.note or '')} |"
            )
        lines.append("")
        if report.sweep_strategy:
            lines += [f"Sweep: {report.sweep_strategy}.", ""]
    if report.expect:
        lines += ["#### Claims", ""]
        for key, check in report.expect.items():
            lines.append(f"- {claim_line(key, check)}")
        lines.append("")
    if report.assumptions:
        lines += [f"#### Preview for sm_{report.arch}: assumptions", ""]
        lines += [f"- {assumption}" for assumption in report.assumptions] + [""]
    if report.error is not None:
        lines += [f"**Error:** {_cell(report.error.one_line())}", ""]
        if report.error.details:
            lines += ["```", report.error.details.rstrip(), "```", ""]
    return "\n".join(lines)


def lab_report(reports: list[ScenarioReport]) -> str:
    today = datetime.date.today().isoformat()
    head = f"# kernel-tui lab report\n\n{len(reports)} scenario(s), measured {today}.\n\n"
    return head + "\n".join(scenario_markdown(report) for report in reports)
