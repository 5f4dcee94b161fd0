"""The explorer's launch line under the highlighted kernel, at 80x24, from a real preview report.

The report is the CUDA preview of lesson 25 that ``tests/data/preview/course_sm90.jsonl`` records (real engine
output), opened as saved results, so nothing runs and no torch is imported."""

from __future__ import annotations

import json
from pathlib import Path

from support.locations import REPO
from support.ui_support import explorer, finished, shown_text, wait_for

from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.storage.results_file import read_results
from kernel_tui.text.markdown_report import scenario_markdown
from kernel_tui.ui.app.view_app import build_view_app
from kernel_tui.ui.link.view_link import saved_reports
from kernel_tui.ui.widgets.kernel_name import KernelNameLine
from kernel_tui.ui.widgets.kernel_table import KernelTable

LESSON = REPO / "scenarios" / "25_threads_and_warps.py"
RECORDED = REPO / "tests" / "data" / "preview" / "course_sm90.jsonl"
SMALL = (80, 24)
MILLION = "grid 1,024 × block 128 = 131,072 threads · 4 warps · 8 elements/thread"


def _saved_preview(tmp_path: Path) -> tuple[Path, Path]:
    """The recorded preview as a results file, and the scenario it names: a copy of the lesson outside the
    course (a course lesson would first ask for a prediction)."""
    (line,) = [line for line in RECORDED.read_text().splitlines() if LESSON.name in json.loads(line)["scenario"]]
    scenario = tmp_path / "threads.py"
    scenario.write_text(LESSON.read_text())
    data = json.loads(line)
    data["scenario"] = str(scenario)
    target = tmp_path / "preview.jsonl"
    target.write_text(json.dumps(data) + "\n")
    return target, scenario


async def test_the_highlighted_kernels_launch_is_a_line_of_its_own_at_80x24(tmp_path: Path) -> None:
    path, scenario = _saved_preview(tmp_path)
    app = build_view_app(saved_reports(read_results(path), path), clock=lambda: 1000.0)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("r")
        await wait_for(pilot, lambda: finished(app, scenario), what="the saved preview to be shown")
        await pilot.press("3")
        compiled = explorer(app).query_one("#compiled", KernelTable)
        compiled.focus()
        await pilot.pause()
        line = explorer(app).query_one(KernelNameLine)
        shown = " ".join(shown_text(line).split())
        assert f"launch {MILLION}" in shown, shown
        assert all(len(row) <= SMALL[0] for row in shown_text(line).splitlines())
        await pilot.press("down")
        shown = " ".join(shown_text(line).split())
        assert "launch grid 1 × block 32 = 32 threads · 1 warp · 8 elements on 32 threads" in shown, shown
        explorer(app).query_one("#eager", KernelTable).focus()
        await pilot.pause()
        assert "launch ATen's CUDA kernels choose their grid and block at run time" in " ".join(
            shown_text(line).split()
        )


def test_the_lab_report_and_the_run_table_list_the_launches(tmp_path: Path) -> None:
    from rich.console import Console

    from kernel_tui.text.render import scenario_view

    report = ScenarioReport.from_dict(json.loads(_saved_preview(tmp_path)[0].read_text()))
    markdown = scenario_markdown(report)
    assert "#### Launches" in markdown and f"| compiled | `triton_poi_fused_add_0` | {MILLION} |" in markdown
    assert "- `aten::add`: ATen's CUDA kernels choose their grid and block at run time" in markdown
    console = Console(width=80, record=True)
    console.print(scenario_view(report, width=80))
    text = console.export_text()
    assert "Launches" in text
    assert any("1,024" in row and "131,072" in row and row.rstrip().endswith("8│") for row in text.splitlines())
