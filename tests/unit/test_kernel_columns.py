"""The one kernel-column registry (``text/kernel_columns``): the tables of ``kernel-tui run``, of the Markdown lab
report and of the explorer are all drawn from it, so a column defined there (header, cell, width, priority)
reaches every table that lists it and nothing else has to change; and ``fit_columns`` gives the name its
width before any figure column. The reports are real: a recorded CPU run of add+relu, and the course's CUDA
preview."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console
from support.locations import DATA
from support.replay import Recording
from support.ui_support import explorer, finished, wait_for

from kernel_tui.model.report.kernel import nested_names
from kernel_tui.model.report.launch import LAUNCH_HEADERS
from kernel_tui.model.report.report import ScenarioReport, known_launches
from kernel_tui.model.storage.results_file import read_results
from kernel_tui.text import kernel_columns, markdown_report, render
from kernel_tui.text.formatting import format_count
from kernel_tui.text.kernel_columns import KernelColumn
from kernel_tui.text.names_beside_figures import columns_kept
from kernel_tui.text.parts.roofline_text import ROOFLINE_HEADERS
from kernel_tui.transport.protocol import Done
from kernel_tui.ui.app.view_app import build_view_app
from kernel_tui.ui.link.view_link import saved_reports
from kernel_tui.ui.widgets import kernel_table
from kernel_tui.ui.widgets.kernel_table import KernelTable

SAVED = DATA / "results_unversioned.jsonl"
PREVIEW = DATA / "preview" / "course_sm90.jsonl"
LAUNCH_THREADS = KernelColumn(
    "threads",
    lambda table: "threads",
    lambda kernel, table: str(kernel.launch.threads) if kernel.launch and kernel.launch.threads else "—",
    width=7,
    priority=3,
)
"""A column no table has: how many threads each kernel ran on."""


@pytest.fixture(scope="module")
def report() -> ScenarioReport:
    (saved,) = read_results(SAVED)
    return saved


def terminal_text(report: ScenarioReport, width: int = 160, order: str = "launch") -> str:
    console = Console(width=width, record=True, file=open("/dev/null", "w"), markup=False, highlight=False)
    console.print(render.scenario_view(report, width, order))
    return console.export_text()


def test_run_sort_orders_a_training_steps_kernels_within_each_section() -> None:
    """``kernel-tui run --sort bytes`` on lesson 21's recorded training step: across the step threshold_backward
    (32,772 bytes) would stand above relu (32,768); each section is sorted on its own, its column marked."""
    recording = Recording.load(DATA / "ui_train_add_relu_messages.json")
    report = next(message.report for message in reversed(recording.messages) if isinstance(message, Done))
    text = terminal_text(report, 80, order="bytes").split("Eager")[1].split("Compiled")[0]
    names = ("forward", "aten::add", "aten::relu", "aten::sum", "backward", "aten::threshold_backward", "aten::copy_")
    assert sorted(names, key=text.index) == list(names)
    assert "bytes ▼" in text
    by_time = terminal_text(report, 80, order="time").split("Eager")[1].split("Compiled")[0]
    assert by_time.index("aten::sum") < by_time.index("aten::add") < by_time.index("aten::relu")


def test_the_terminal_table_is_its_columns(report: ScenarioReport) -> None:
    table = render.kernel_table("Compiled", report.compiled)
    headers = [str(column.header) for column in table.columns]
    of = kernel_columns.TableOf("compiled", report.compiled, marks=True)
    assert headers == [column.header(of) for column in kernel_columns.TERMINAL_COLUMNS]
    assert report.compiled is not None
    (kernel,) = report.compiled.kernels
    assert kernel_columns.CALLS.cell(kernel, of) == format_count(kernel.calls) == "1"


def test_the_markdown_table_is_its_columns(report: ScenarioReport) -> None:
    text = markdown_report.scenario_markdown(report)
    of = kernel_columns.TableOf("eager", report.eager)
    header = "| " + " | ".join(column.header(of) for column in kernel_columns.MARKDOWN_COLUMNS) + " |"
    assert header == "| kernel | calls | time | bytes | bandwidth | fused into |" and header in text
    assert "| `aten::add` | 1 |" in text


async def test_a_column_defined_once_reaches_all_three_tables(
    report: ScenarioReport, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert report.compiled is not None and report.compiled.kernels[0].launch is not None
    threads = str(report.compiled.kernels[0].launch.threads)
    monkeypatch.setattr(render, "TERMINAL_COLUMNS", (*kernel_columns.TERMINAL_COLUMNS, LAUNCH_THREADS))
    monkeypatch.setattr(markdown_report, "MARKDOWN_COLUMNS", (*kernel_columns.MARKDOWN_COLUMNS, LAUNCH_THREADS))
    monkeypatch.setattr(kernel_table, "EXPLORER_COLUMNS", (*kernel_columns.EXPLORER_COLUMNS, LAUNCH_THREADS))
    shown = terminal_text(report)
    assert " threads┃" in shown and f" {threads}│" in shown
    text = markdown_report.scenario_markdown(report)
    assert "| bandwidth | replaces | threads |" in text and "| --- | ---: |" in text
    assert f"| {threads} |" in text
    saved = tmp_path / "saved.jsonl"
    data = json.loads(SAVED.read_text())
    data["scenario"] = str(tmp_path / "add_relu.py")
    (tmp_path / "add_relu.py").write_text((DATA / "add_relu.py").read_text())
    saved.write_text(json.dumps(data) + "\n")
    app = build_view_app(saved_reports(read_results(saved), saved), clock=lambda: 1000.0)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("r")
        await wait_for(pilot, lambda: finished(app, tmp_path / "add_relu.py"), what="the saved run to be shown")
        compiled = explorer(app).query_one("#compiled", KernelTable)
        assert compiled.plan is not None and compiled.plan.keys[-1] == "threads"
        assert compiled.get_row_at(0)[-1].plain == threads


def test_the_cli_puts_the_tables_one_above_the_other_before_it_cuts_a_name() -> None:
    """Lesson 21's compiled names (previewed for sm_90) do not fit beside the eager table at 120 columns: the
    tables are stacked and every name is whole; lesson 2's fit side by side, whole."""
    reports = {Path(report.scenario).name[:2]: report for report in read_results(PREVIEW)}
    for lesson, beside in (("21", False), ("02", True)):
        report = reports[lesson]
        assert render.tables_fit_beside(report, 120) is beside
        text = terminal_text(report, 120)
        for mode in (report.eager, report.compiled):
            assert mode is not None
            for name in nested_names(mode.kernels):
                assert f"│{name} " in text or f"│  {name} " in text, (lesson, name)


def test_names_come_before_every_figure_column() -> None:
    """The name takes its whole width first; figures join by priority, and the first that does not fit ends
    the list (a narrower column after it does not slip in out of order)."""
    columns = kernel_columns.EXPLORER_COLUMNS
    eager = kernel_columns.TableOf("eager", None)
    wants = {"kernel": 40, "link": 30}
    wide = kernel_columns.fit_columns(columns, 200, 2, wants, eager)
    assert wide.keys == ("kernel", "calls", "time", "bytes", "gbs", "share", "link")
    assert (wide.name_width, wide.left_out) == (40, 0)
    dropped = [column.key for column in sorted(columns, key=lambda column: -column.priority) if column.key != "roof"]
    for room in range(200, 10, -1):
        plan = kernel_columns.fit_columns(columns, room, 2, wants, eager)
        assert plan.name_width >= min(40, room - 2), "the name is cut only where it alone is wider than the table"
        shown = [key for key in dropped if key in plan.keys]
        assert shown == dropped[len(dropped) - len(shown) :], (room, plan.keys)
        assert sum(plan.widths[key] + 2 for key in plan.keys) == room, "the table fills its width"


def test_the_sorted_by_mark_is_the_headers_and_the_fitting_makes_room_for_it() -> None:
    """The rows sorted by launches: the calls column's header says so (``calls ▼``), and the column is fitted as
    wide as that header, not its five-cell figures, in every table drawn from the registry."""
    columns = kernel_columns.EXPLORER_COLUMNS
    by_launches = kernel_columns.TableOf("eager", None, sorted_by="calls")
    assert kernel_columns.CALLS.header(by_launches) == "calls ▼"
    assert kernel_columns.TIME.header(by_launches) == "time"
    assert kernel_columns.CALLS.header(kernel_columns.TableOf("eager", None)) == "calls"
    plan = kernel_columns.fit_columns(columns, 200, 2, {"kernel": 40}, by_launches)
    assert plan.widths["calls"] == len("calls ▼") > 5 == kernel_columns.CALLS.width
    unsorted = kernel_columns.fit_columns(columns, 200, 2, {"kernel": 40}, kernel_columns.TableOf("eager", None))
    assert unsorted.widths["calls"] == 5 and unsorted.widths["time"] == plan.widths["time"] == 9


def test_a_crafted_name_does_not_push_every_figure_out() -> None:
    """A results file may hold a 5,000-character name: past ``MAX_NAME_WIDTH`` it is cut, and the launch count,
    time and bytes keep their columns."""
    columns = kernel_columns.EXPLORER_COLUMNS
    eager = kernel_columns.TableOf("eager", None)
    plan = kernel_columns.fit_columns(columns, 120, 2, {"kernel": 5_000, "link": 20}, eager)
    assert plan.keys[:4] == ("kernel", "calls", "time", "bytes")
    assert kernel_columns.MAX_NAME_WIDTH <= plan.name_width < 120


@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("recorded", [PREVIEW, DATA / "course_cpu.jsonl"], ids=["sm90", "cpu"])
def test_the_launches_and_roofline_tables_keep_every_course_name_whole(recorded: Path, width: int) -> None:
    """The two tables built from fixed headers follow the registry's rule too: at 80 columns a figure column
    goes before a name is cut (lesson 25's two compiled kernels read ``triton_poi_fused_a…`` twice before)."""
    left_out = 0
    for report in read_results(recorded):
        launched = [f"  {kernel.short_name}" for _, kernel, _ in known_launches(report)]
        roofline = [name for mode in (report.eager, report.compiled) if mode for name in nested_names(mode.kernels)]
        tables = [(render.roofline_table(report, width), roofline, ROOFLINE_HEADERS, 2)]
        if (launches := render.launch_table(report, width)) is not None:
            tables.append((launches, launched, LAUNCH_HEADERS, 1))
        for table, names, figures, not_figures in tables:
            console = Console(width=width, record=True, file=open("/dev/null", "w"), markup=False, highlight=False)
            console.print(table)
            text = console.export_text()
            assert max(map(len, text.splitlines())) <= width
            for name in names:
                assert f"│{name} " in text or f"│ {name} " in text, (report.scenario, width, table.title, name)
            left_out += len(figures) - (len(table.columns) - not_figures)
    assert (left_out > 0) is (width == 80), "at 120 columns every figure fits beside the names"


def test_a_figure_goes_only_when_the_names_need_its_room() -> None:
    others = {"mode": 8, "FLOPs": 6, "FLOP/B": 6, "GB/s": 7, "GFLOP/s": 7, "bound": 7}
    order = render.ROOFLINE_LEFT_OUT_FIRST
    full = 22 + sum(others.values()) + 3 * 7 - 1
    assert columns_kept(22, others, order, full) == tuple(others)
    assert columns_kept(22, others, order, full - 1) == ("mode", "FLOPs", "FLOP/B", "GB/s", "bound")
    assert columns_kept(22, others, order, None) == tuple(others)
    assert columns_kept(200, others, order, 40) == ("mode", "bound"), "what is not listed always stays"
    intensity = 40 + 8 + 6 + 7 + 3 * 4 - 1  # the last figure to go: names, mode, FLOP/B, bound and their rules
    assert columns_kept(40, others, order, intensity) == ("mode", "FLOP/B", "bound")
    assert columns_kept(40, others, order, intensity - 1) == ("mode", "bound")
