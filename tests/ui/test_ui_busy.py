"""A busy machine in the app (issue 24): where and why the sweep ended, a claim it left unmeasured, and how busy
the machine was, with a retry offered; on a replayed recording whose report says so, as a loaded engine's would."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest
from rich.console import Group
from rich.text import Text
from support.replay import ReplayEngineLink
from support.ui_support import DATA, RECORDINGS, explorer, finished, make_app, wait_for

from kernel_tui.model.meaning.machine_load import MachineLoad
from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.view.summary_lines import RETRY_KEYS
from kernel_tui.ui.widgets.charts.runtime_chart import RuntimeChart
from kernel_tui.ui.widgets.kernel_table import KernelTable
from kernel_tui.ui.widgets.summary_strip import SummaryStrip

ENDED = (
    "sweep ended: this size would take about 103 s (the last took 12.3 s at 65,536 elements; "
    "the sweep's budget is 90 s)"
)
NOISY = "noisy: the profiled kernel times add up to 39.39 ms, more than the 6.53 ms (± 20 ms) a call takes"
BUSY = MachineLoad(load_avg=11.2, cores=2, steal_pct=0.0, disagreement=73.3)


def cut_short(report: dict[str, Any]) -> None:
    """The recording's report as a loaded engine sends it: the sweep cut after 2^16, its claim unmeasured."""
    for point in report.get("sweep", ()):
        if point["size"] > 2**16:
            point.update(eager_us=None, compiled_us=None, eager_iqr_us=None, compiled_iqr_us=None, note=ENDED)
    report["expect"]["sweep_compiles"] = {"claimed": 1, "measured": 1, "ok": None, "reason": ENDED}
    report["machine_load"] = BUSY.__dict__
    report["eager"]["notes"] = [*report["eager"]["notes"], NOISY]


@pytest.fixture
def busy_app(tmp_path: Path) -> KernelTuiApp:
    data = json.loads((DATA / "ui_add_relu_messages.json").read_text())
    for message in data["messages"]:
        if message["type"] == "done":
            cut_short(message["report"])
        if message["type"] == "sweep_point" and message["point"]["size"] > 2**16:
            message["point"].update(eager_us=None, compiled_us=None, note=ENDED)
    recording = tmp_path / "ui_add_relu_messages.json"
    recording.write_text(json.dumps(data))
    return make_app(ReplayEngineLink.from_files(recording, *RECORDINGS[1:]))


async def test_the_explorer_says_why_the_sweep_ended_and_that_the_machine_was_busy(busy_app: KernelTuiApp) -> None:
    async with busy_app.run_test(size=(120, 36)) as pilot:
        await pilot.press("s")
        await wait_for(pilot, lambda: finished(busy_app), what="the sweep")
        screen = explorer(busy_app)
        chart = screen.query_one(RuntimeChart)
        assert chart.border_subtitle is not None
        assert chart.border_subtitle.startswith("ended before 2^18: about 103 s, budget 90 s")
        summary = screen.query_one(SummaryStrip)
        assert isinstance(summary.content, Group)
        lines = [cast(Text, line).plain for line in summary.content.renderables]  # the strip's lines are Text
        assert f"⚠ {ENDED}" in lines
        assert any(
            line.startswith("EXPECT ") and f"? sweep_compiles: claimed 1, not measured: {ENDED}" in line
            for line in lines
        )
        assert f"⚠ {BUSY.sentence()}" in lines and RETRY_KEYS in lines
        assert "✗" not in " ".join(lines)
        eager_subtitle = screen.query_one("#eager", KernelTable).border_subtitle
        compiled_subtitle = screen.query_one("#compiled", KernelTable).border_subtitle
        assert eager_subtitle is not None and compiled_subtitle is not None
        assert "times ⚠ noisy" in eager_subtitle
        assert "noisy" not in compiled_subtitle
