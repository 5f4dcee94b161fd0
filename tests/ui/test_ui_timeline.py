"""One call's timeline in the app: ``b`` reaches it after the roofline; eager and compiled lanes on one time
axis, the gaps between spans visible, the highlighted kernel marked, readable at 80×24. The timelines are a real
engine's (``ui_add_relu.py`` measured on this machine's CPU), put into the replayed recording the app runs on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import measure
from support.replay import ReplayEngineLink
from support.ui_support import ADD_RELU, DATA, RECORDINGS, make_app, shown_text, wait_for
from textual.pilot import Pilot

from kernel_tui.model.report.call_breakdown import TimelineSpan
from kernel_tui.transport.client import EngineClient
from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.widgets.charts.runtime_chart import RuntimeChart
from kernel_tui.ui.widgets.charts.runtime_plot import RuntimePlot
from kernel_tui.ui.widgets.charts.timeline_plot import HIGHLIGHT, busy_columns, row_label
from kernel_tui.ui.widgets.kernel_table import KernelTable


@pytest.fixture(scope="module")
def breakdowns(engine: EngineClient) -> dict[str, Any]:
    """Each mode's ``call_breakdown`` as the engine sends it, for the recording's scenario at 8 elements."""
    report = measure(engine, ADD_RELU, size=8).to_dict()
    return {mode: report[mode]["call_breakdown"] for mode in ("eager", "compiled")}


@pytest.fixture
def timeline_app(tmp_path: Path, breakdowns: dict[str, Any]) -> KernelTuiApp:
    data = json.loads((DATA / "ui_add_relu_messages.json").read_text())
    for message in data["messages"]:
        for mode, breakdown in breakdowns.items():
            if (message.get("report") or {}).get(mode):
                message["report"][mode]["call_breakdown"] = breakdown
    recording = tmp_path / "ui_add_relu_messages.json"
    recording.write_text(json.dumps(data))
    return make_app(ReplayEngineLink.from_files(recording, *RECORDINGS[1:]))


async def show_timeline(pilot: Pilot[None]) -> tuple[RuntimeChart, RuntimePlot]:
    await pilot.press("r")
    assert isinstance(pilot.app, KernelTuiApp)
    explorer = pilot.app.get_explorer()
    assert explorer is not None
    await wait_for(pilot, lambda: explorer.runs.get(ADD_RELU) is not None and not explorer.runs[ADD_RELU].running)
    await pilot.press("b", "b", "b", "b")  # runtime → bandwidth → roofline → memory → timeline
    chart = explorer.query_one(RuntimeChart)
    await wait_for(pilot, lambda: bool(chart.query("RuntimePlot")))
    plot = chart.query_one("RuntimePlot", RuntimePlot)
    await wait_for(pilot, lambda: row_label("compiled", "device") in plot.drawn, what="the timeline")
    return chart, plot


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
async def test_b_reaches_one_calls_timeline_eager_above_compiled(
    timeline_app: KernelTuiApp, size: tuple[int, int]
) -> None:
    async with timeline_app.run_test(size=size) as pilot:
        if size == (80, 24):
            await pilot.press("4")  # the chart's tab
        chart, plot = await show_timeline(pilot)
        assert chart.mode == "timeline" and chart.border_title == "One call's timeline"
        labels = list(plot.drawn)
        assert labels.index(row_label("eager", "device")) < labels.index(row_label("compiled", "framework"))
        eager_y = plot.drawn[row_label("eager", "device")][1][0]
        assert all(ys[0] < eager_y for label, (_, ys) in plot.drawn.items() if label.startswith("compiled"))
        # At 8 elements the compiled kernel is a sliver of its call: its lane is mostly gap.
        kernels = plot.drawn[row_label("compiled", "device")][0]
        guards = plot.drawn[row_label("compiled", "framework")][0]
        assert 0 < len(kernels) < len(guards)
        assert "kernels" in (chart.border_subtitle or "") and "compiled" in (chart.border_subtitle or "")
        text = shown_text(plot)
        assert "compiled guards" in text and "eager kernels" in text
        legend = shown_text(chart.query_one("#chart-legend"))
        assert "guards" in legend and "kernels" in legend


async def test_the_highlighted_kernel_is_marked_in_its_lane(timeline_app: KernelTuiApp) -> None:
    async with timeline_app.run_test(size=(160, 48)) as pilot:
        chart, plot = await show_timeline(pilot)
        assert isinstance(pilot.app, KernelTuiApp)
        explorer = pilot.app.get_explorer()
        assert explorer is not None
        compiled = explorer.query_one("#compiled", KernelTable)
        compiled.focus()
        compiled.move_cursor(row=0)
        lane = row_label("compiled", "device")
        await wait_for(pilot, lambda: plot.drawn.get(HIGHLIGHT, ([], []))[0] == plot.drawn[lane][0], what="marked")
        assert "cpp_fused_add_relu_0" in shown_text(chart.query_one("#chart-legend"))


def test_a_span_shorter_than_a_column_still_marks_its_column_and_gaps_stay_empty() -> None:
    spans = [TimelineSpan("device", "k", 10.0, 10.2), TimelineSpan("device", "k", 60.0, 80.0)]
    assert busy_columns(spans, 100.0, 10) == [1, 6, 7]
    assert busy_columns([], 100.0, 10) == [] and busy_columns(spans, 0.0, 10) == []


async def test_b_held_down_and_a_resize_leave_the_timeline_drawn(timeline_app: KernelTuiApp) -> None:
    async with timeline_app.run_test(size=(160, 48)) as pilot:
        await show_timeline(pilot)
        await pilot.press(*["b"] * 15)  # three times round the five modes
        await pilot.resize_terminal(80, 24)
        await pilot.resize_terminal(160, 48)
        assert isinstance(pilot.app, KernelTuiApp)
        explorer = pilot.app.get_explorer()
        assert explorer is not None

        def drawn_again() -> bool:  # a resize mounts the panes anew: ask for them again
            charts = list(explorer.query(RuntimeChart))
            plots = list(explorer.query(RuntimePlot))
            return (
                bool(charts and plots) and charts[0].mode == "timeline" and "compiled kernels" in shown_text(plots[0])
            )

        await wait_for(pilot, drawn_again, what="the timeline after the resize")
