"""The kernel tables of ``kernel-tui run`` and of the Markdown lab report are drawn from one list of columns
(``text/kernel_columns``): a column defined there, header and cell, reaches a table that lists it, and nothing
else has to change. The reports are real: a recorded CPU run of add+relu."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from kernel_tui.model.report import ScenarioReport
from kernel_tui.model.results_file import read_results
from kernel_tui.text import kernel_columns, markdown_report, render
from kernel_tui.text.formatting import format_count
from kernel_tui.text.kernel_columns import KernelColumn

SAVED = Path(__file__).parent / "data" / "results_unversioned.jsonl"
LAUNCH_THREADS = KernelColumn(
    lambda table: "threads",
    lambda kernel, table: str(kernel.launch.threads) if kernel.launch and kernel.launch.threads else "—",
)
"""A column neither table has: how many threads each kernel ran on."""


@pytest.fixture(scope="module")
def report() -> ScenarioReport:
    (saved,) = read_results(SAVED)
    return saved


def terminal_text(report: ScenarioReport) -> str:
    console = Console(width=160, record=True, file=open("/dev/null", "w"), markup=False, highlight=False)
    console.print(render.kernel_table("Compiled", report.compiled))
    return console.export_text()


def test_the_terminal_table_is_its_columns(report: ScenarioReport) -> None:
    table = render.kernel_table("Compiled", report.compiled)
    headers = [str(column.header) for column in table.columns]
    of = kernel_columns.TableOf("compiled", report.compiled, marks=True)
    assert headers == ["kernel", *(column.header(of) for column in kernel_columns.TERMINAL_COLUMNS)]
    assert report.compiled is not None
    (kernel,) = report.compiled.kernels
    assert kernel_columns.CALLS.cell(kernel, of) == format_count(kernel.calls) == "1"


def test_the_markdown_table_is_its_columns(report: ScenarioReport) -> None:
    text = markdown_report.scenario_markdown(report)
    of = kernel_columns.TableOf("eager", report.eager)
    header = "| kernel | " + " | ".join(column.header(of) for column in kernel_columns.MARKDOWN_COLUMNS) + " |"
    assert header == "| kernel | calls | time | bytes | bandwidth | fused into |" and header in text


def test_a_column_defined_once_reaches_both_tables(report: ScenarioReport, monkeypatch: pytest.MonkeyPatch) -> None:
    assert report.compiled is not None and report.compiled.kernels[0].launch is not None
    threads = str(report.compiled.kernels[0].launch.threads)
    monkeypatch.setattr(render, "TERMINAL_COLUMNS", (*kernel_columns.TERMINAL_COLUMNS, LAUNCH_THREADS))
    monkeypatch.setattr(markdown_report, "MARKDOWN_COLUMNS", (*kernel_columns.MARKDOWN_COLUMNS, LAUNCH_THREADS))
    shown = terminal_text(report)
    assert " threads┃" in shown and f" {threads}│" in shown
    text = markdown_report.scenario_markdown(report)
    assert "| bandwidth | replaces | threads |" in text and "| --- | ---: |" in text
    assert f"| {threads} |" in text
