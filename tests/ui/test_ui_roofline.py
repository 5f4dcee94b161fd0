"""The roofline in the app: ``b`` cycles runtime → bandwidth → roofline, the roofline draws both measured
ceilings and the kernels as points, marks the highlighted row, and stays readable at 80×24 (Pilot, on a
replayed recording whose report carries FLOPs and ceilings)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.replay import ReplayEngineLink
from support.ui_support import ADD_RELU, DATA, RECORDINGS, make_app, shown_text, wait_for
from textual.pilot import Pilot
from textual.widgets import Static

from kernel_tui.model.meaning.roofline import MEMORY_BOUND, achieved_gflops, bound, dominant_bound, intensity
from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.widgets.charts.roofline_plot import (
    COMPUTE_ROOF,
    HIGHLIGHT,
    MEMORY_ROOF,
    RooflinePoint,
    labelled,
    point_label,
    roof_lines,
)
from kernel_tui.ui.widgets.charts.runtime_chart import RuntimeChart
from kernel_tui.ui.widgets.charts.runtime_plot import RuntimePlot
from kernel_tui.ui.widgets.kernel_table import KernelTable

BANDWIDTH_GBS, MATMUL_GFLOPS = 12.0, 48.0  # a ridge of 4 FLOPs per byte
ELEMENTS = 2**20
FLOPS = {"aten::add": ELEMENTS, "aten::relu": ELEMENTS, "cpp_fused_add_relu_0": 2 * ELEMENTS}
"""One operation per element per elementwise op (the counting rule), at the recording's size."""


def with_roofline(report: dict[str, Any]) -> None:
    """Give a recorded report what a roofline-aware engine sends: FLOPs per kernel and the two ceilings."""
    ridge = MATMUL_GFLOPS / BANDWIDTH_GBS
    report["ceilings"] = {"bandwidth_gbs": BANDWIDTH_GBS, "matmul_gflops": MATMUL_GFLOPS, "dtype": "float32"}
    for mode in ("eager", "compiled"):
        for kernel in (report.get(mode) or {}).get("kernels", ()):
            flops = FLOPS[kernel["short_name"]]
            moved = (kernel["bytes_read"] or 0) + (kernel["bytes_written"] or 0)
            kernel["flops"], kernel["intensity"] = flops, intensity(flops, moved)
            kernel["gflops"] = achieved_gflops(flops, kernel["time_us"])
            kernel["bound"] = bound(kernel["intensity"], ridge)
        if report.get(mode):
            side = dominant_bound((k["bound"], k["time_us"]) for k in report[mode]["kernels"])
            report[mode]["bound"], report[mode]["bound_share"] = side if side else (None, None)


@pytest.fixture
def roofline_app(tmp_path: Path) -> KernelTuiApp:
    data = json.loads((DATA / "ui_add_relu_messages.json").read_text())
    for message in data["messages"]:
        if "report" in message:
            with_roofline(message["report"])
    recording = tmp_path / "ui_add_relu_messages.json"
    recording.write_text(json.dumps(data))
    return make_app(ReplayEngineLink.from_files(recording, *RECORDINGS[1:]))


async def show_roofline(pilot: Pilot[None]) -> tuple[RuntimeChart, RuntimePlot]:
    await pilot.press("s")  # with the sweep, so that runtime mode has lines to come back to
    assert isinstance(pilot.app, KernelTuiApp)
    explorer = pilot.app.get_explorer()
    assert explorer is not None
    await wait_for(pilot, lambda: explorer.runs.get(ADD_RELU) is not None and not explorer.runs[ADD_RELU].running)
    await pilot.press("b", "b")
    chart = explorer.query_one(RuntimeChart)
    await wait_for(pilot, lambda: bool(chart.query("RuntimePlot")))
    plot = chart.query_one("RuntimePlot", RuntimePlot)
    await wait_for(pilot, lambda: MEMORY_ROOF in plot.drawn, what="the roofline")
    return chart, plot


# 160x50: at 160x48 the verdict's line above the results leaves the chart a row short of room for both eager labels.
@pytest.mark.parametrize("size", [(160, 50), (80, 24)])
async def test_b_reaches_the_roofline_with_both_ceilings_and_the_kernels(
    roofline_app: KernelTuiApp, size: tuple[int, int]
) -> None:
    async with roofline_app.run_test(size=size) as pilot:
        chart, plot = await show_roofline(pilot)
        assert chart.mode == plot.mode == "roofline" and chart.border_title == "Roofline"
        (low, ridge), (slanted_low, peak) = plot.drawn[MEMORY_ROOF]
        assert ridge == 4.0 and peak == MATMUL_GFLOPS and slanted_low == pytest.approx(BANDWIDTH_GBS * low)
        assert plot.drawn[COMPUTE_ROOF][1] == [MATMUL_GFLOPS, MATMUL_GFLOPS]
        eager_x, eager_y = plot.drawn["eager"]
        assert eager_x == pytest.approx([ELEMENTS / 12582912, ELEMENTS / 8388608])  # add, relu: FLOPs per byte
        assert eager_y[0] == pytest.approx(ELEMENTS / 1755.908 / 1e3)
        assert plot.drawn["compiled"][0] == pytest.approx([2 * ELEMENTS / 12582912])
        assert chart.border_subtitle is not None
        assert "ridge 4.00 FLOP/B" in chart.border_subtitle and "b memory" in chart.border_subtitle
        text = shown_text(plot)
        assert "ridge 4.00" in text and "cpp…d_relu_0" in text
        assert "aten::relu" in text or size == (80, 24), "at 80x24 eager's two points sit too close to name"
        assert "copy GB/s" in shown_text(chart.query_one("#chart-legend"))
        await pilot.press("b", "b", "b")  # through peak memory and the timeline, back to runtime
        await wait_for(pilot, lambda: MEMORY_ROOF not in plot.drawn and "eager" in plot.drawn)
        assert chart.mode == "time"


async def test_the_highlighted_row_is_marked_on_the_roofline(roofline_app: KernelTuiApp) -> None:
    async with roofline_app.run_test(size=(160, 48)) as pilot:
        chart, plot = await show_roofline(pilot)
        assert isinstance(pilot.app, KernelTuiApp)
        explorer = pilot.app.get_explorer()
        assert explorer is not None
        eager = explorer.query_one("#eager", KernelTable)
        eager.focus()
        eager.move_cursor(row=1)
        await wait_for(
            pilot, lambda: plot.drawn.get(HIGHLIGHT, ([], []))[0] == plot.drawn["eager"][0][1:], what="relu marked"
        )
        assert chart.highlight[1] is not None and chart.highlight[1].short_name == "aten::relu"
        assert chart.highlight[1].bound == MEMORY_BOUND
        compiled = explorer.query_one("#compiled", KernelTable)
        compiled.focus()
        await wait_for(pilot, lambda: plot.drawn.get(HIGHLIGHT, ([], []))[0] == plot.drawn["compiled"][0])


async def test_without_flops_the_roofline_says_why_instead_of_drawing() -> None:
    app = make_app()  # the plain recording: an engine that sent no FLOPs
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("r")
        explorer = app.get_explorer()
        assert explorer is not None
        await wait_for(pilot, lambda: explorer.runs.get(ADD_RELU) is not None and not explorer.runs[ADD_RELU].running)
        await pilot.press("b", "b")
        assert explorer is not None
        chart = explorer.query_one(RuntimeChart)
        await wait_for(pilot, lambda: chart.mode == "roofline")
        assert "nothing to place" in str(chart.query_one("#chart-hint", Static).content)


def test_the_roof_bends_at_the_ridge() -> None:
    from kernel_tui.model.report.report import Ceilings, ScenarioReport

    report = ScenarioReport("s.py", "s", "cpu", "EPYC", "2.14", 64, ceilings=Ceilings(10.0, 100.0))
    lines = roof_lines(report, 0.1, 1000.0)
    assert lines[MEMORY_ROOF] == ([0.1, 10.0], [1.0, 100.0])
    assert lines[COMPUTE_ROOF] == ([10.0, 1000.0], [100.0, 100.0])
    assert roof_lines(report, 20.0, 1000.0) == {COMPUTE_ROOF: ([20.0, 1000.0], [100.0, 100.0])}


async def test_each_row_says_which_side_of_the_ridge_it_sits(roofline_app: KernelTuiApp) -> None:
    # Wide enough for the roofline column beside whole names and attributions: at 200 columns the two tables
    # side by side have 84 cells each, and the roofline column gives way to the whole attribution.
    async with roofline_app.run_test(size=(240, 50)) as pilot:
        await show_roofline(pilot)
        assert isinstance(pilot.app, KernelTuiApp)
        explorer = pilot.app.get_explorer()
        assert explorer is not None
        eager = explorer.query_one("#eager", KernelTable)
        assert eager.plan is not None
        assert "roof" in eager.plan.keys
        cells = [
            dict(zip(eager.plan.keys, (getattr(v, "plain", str(v)) for v in eager.get_row_at(row)))) for row in range(2)
        ]
        assert [cell["roof"] for cell in cells] == ["0.083 memory", "0.12 memory"]  # ridge 4 FLOP/B
        assert eager.border_subtitle is not None
        assert "memory-bound 100%" in eager.border_subtitle


def test_the_roofline_column_goes_right_after_the_share_column() -> None:
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.mode_result import ModeResult
    from kernel_tui.text.kernel_columns import EXPLORER_COLUMNS, TableOf, fit_columns

    counted = Kernel("aten::add", "aten::add", 1, 1.0, flops=ELEMENTS)
    with_flops = TableOf("eager", ModeResult(1, (counted,), None, None))
    without = TableOf("eager", ModeResult(1, (Kernel("aten::add", "aten::add", 1, 1.0),), None, None))

    def keys(room: int, table: TableOf) -> tuple[str, ...]:
        return fit_columns(EXPLORER_COLUMNS, room, 2, {"kernel": 20, "link": 20}, table).keys

    assert keys(150, with_flops)[-2:] == ("roof", "link") and "share" in keys(150, with_flops)
    assert "share" not in keys(100, with_flops) and "roof" in keys(100, with_flops)
    assert keys(70, with_flops) == keys(70, without)
    assert "roof" not in keys(150, without)  # no FLOPs counted: no column


def test_labels_a_row_apart_are_not_drawn_over_each_other_and_the_highlighted_kernel_names_its_point() -> None:
    """plotext rounds rows its own way: two labels on neighbouring rows overlapped (``aten::aaten::relu``);
    an eager and a compiled kernel at one spot showed the eager name beside the highlighted compiled one."""
    matmul = RooflinePoint("eager", 0, "aten::matmul", 17.0, 15.0)
    mm = RooflinePoint("compiled", 0, "aten::mm", 17.0, 15.1)
    add = RooflinePoint("eager", 1, "aten::add", 0.08, 1.0)
    relu = RooflinePoint("eager", 2, "aten::relu", 0.09, 1.05)  # a row above add's, a few columns right
    ranges = ((0.01, 1000.0), (0.1, 100.0))
    named = labelled([matmul, mm, add, relu], *ranges, (60, 14), first=mm)
    assert mm in named and matmul not in named, "the highlighted kernel names the spot it shares"
    assert not (add in named and relu in named), "labels a row apart would overlap"
    assert point_label(RooflinePoint("compiled", 1, "cpp_fused_add_relu_10", 1.0, 1.0)) == "cpp…_relu_10"


@pytest.mark.parametrize("size", [(120, 36), (80, 24)])
async def test_the_legend_is_a_line_of_its_own_over_no_line_of_the_plot(
    roofline_app: KernelTuiApp, size: tuple[int, int]
) -> None:
    async with roofline_app.run_test(size=size) as pilot:
        if size == (80, 24):
            await pilot.press("4")
        chart, plot = await show_roofline(pilot)
        legend = shown_text(chart.query_one("#chart-legend"))
        assert "copy GB/s" in legend and "matmul peak" in legend and "eager" in legend and "compiled" in legend
        assert "eager" not in shown_text(plot) and "copy GB/s" not in shown_text(plot), "no legend inside the plot"
        await pilot.press("b", "b", "b")  # through peak memory and the timeline, back to the runtime lines
        await wait_for(pilot, lambda: MEMORY_ROOF not in plot.drawn and "eager" in plot.drawn)
        await pilot.pause()
        assert shown_text(chart.query_one("#chart-legend")).split() == ["━", "eager", "━", "compiled"]
        assert "eager" not in shown_text(plot)
