"""``kernel-tui view``: saved ``kernel-tui run --json`` results in the explorer, with no engine and no torch.

The results are real: one ``kernel-tui run --json`` of ``tests/data/add_relu.py`` at a small size, sweep
included, made once for the module through the command line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from support.locations import REPO
from support.ui_support import explorer, finished, shown_text, status, wait_for

from kernel_tui.commands.cli import main
from kernel_tui.commands.exits import EXIT_USAGE
from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.scenario.scenario_file import read_scenario
from kernel_tui.model.storage.results_file import FORMAT_FIELD, RESULTS_FORMAT, read_results
from kernel_tui.transport.engine_died import EngineDied
from kernel_tui.ui.app.view_app import SavedResultsApp, build_view_app
from kernel_tui.ui.link.view_link import VIEW_MODE_REFUSAL, SavedResultsLink, saved_reports
from kernel_tui.ui.screens.dialogs.details import DetailsScreen
from kernel_tui.ui.screens.dialogs.kernel_code import KernelCodeScreen
from kernel_tui.ui.widgets.charts.runtime_chart import RuntimeChart
from kernel_tui.ui.widgets.kernel_table import KernelTable
from kernel_tui.ui.widgets.lesson_view import LessonView

SCENARIO = REPO / "tests" / "data" / "add_relu.py"
SWEEP_SIZES = (1024, 4096)
WIDE = (160, 48)
ELSEWHERE = "/gpu-box/home/learner/kernel-tui/add_relu.py"
"""A path the scenario had on the machine that measured it, and that this machine does not have."""


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What ``kernel-tui run --json`` wrote for add+relu, with a two-size sweep."""
    target = tmp_path_factory.mktemp("view") / "results.jsonl"
    sizes = ",".join(str(size) for size in SWEEP_SIZES)
    command = [
        sys.executable,
        "-m",
        "kernel_tui",
        "run",
        str(SCENARIO),
        "--size",
        "4096",
        "--sizes",
        sizes,
    ]
    with target.open("w") as out:
        subprocess.run([*command, "--json"], stdout=out, stderr=subprocess.DEVNULL, cwd=REPO, timeout=600, check=True)
    return target


def saved_object(results: Path) -> dict[str, Any]:
    (line,) = results.read_text().splitlines()
    saved: dict[str, Any] = json.loads(line)
    return saved


def rewritten(results: Path, tmp_path: Path, **changes: Any) -> Path:
    """The results with some fields changed (None removes one), as another machine's file might hold them."""
    data = saved_object(results)
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    target = tmp_path / "changed.jsonl"
    target.write_text(json.dumps(data) + "\n")
    return target


def view_app(path: Path) -> SavedResultsApp:
    """The app as ``kernel-tui view PATH`` builds it."""
    return build_view_app(saved_reports(read_results(path), path), clock=lambda: 1000.0)


@pytest.fixture
def no_engine(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every engine process the client would start, refused and recorded: view mode must start none."""
    started: list[Any] = []

    def refuse(*args: Any, **kwargs: Any) -> None:
        started.append(args)
        raise AssertionError("view mode started an engine process")

    monkeypatch.setattr(subprocess, "Popen", refuse)  # the module the engine client starts processes with
    return started


def kernel_names(app: SavedResultsApp, mode: str) -> list[str]:
    return [kernel.name for kernel in explorer(app).query_one(f"#{mode}", KernelTable).kernels]


class TestTheSavedReport:
    def test_run_json_carries_the_scenario_files_text(self, results: Path) -> None:
        assert saved_object(results)["source"] == SCENARIO.read_text()

    def test_run_json_leads_each_line_with_its_results_format(self, results: Path) -> None:
        assert next(iter(saved_object(results).items())) == (FORMAT_FIELD, RESULTS_FORMAT)

    def test_results_saved_before_the_source_was_carried_still_load(self, results: Path) -> None:
        data = saved_object(results)
        del data["source"]
        assert ScenarioReport.from_dict(data).source is None


class TestViewingSavedResults:
    async def test_r_shows_the_saved_run_tables_chart_code_and_details_and_nothing_runs(
        self, results: Path, no_engine: list[Any]
    ) -> None:
        saved = saved_object(results)
        app = view_app(results)
        assert isinstance(app.link, SavedResultsLink)
        async with app.run_test(size=WIDE) as pilot:
            assert "saved results from cpu" in status(app) and "r shows them" in status(app)
            await pilot.press("r")
            await wait_for(pilot, lambda: finished(app, SCENARIO), what="the saved run to be shown")
            assert kernel_names(app, "eager") == [kernel["name"] for kernel in saved["eager"]["kernels"]]
            assert kernel_names(app, "compiled") == [kernel["name"] for kernel in saved["compiled"]["kernels"]]
            line = status(app)
            assert f"torch {saved['torch_version']}" in line and "nothing is measured" in line
            chart = explorer(app).query_one("#chart", RuntimeChart)
            assert [point.size for point in chart.points] == list(SWEEP_SIZES)
            assert all(point.eager_us and point.compiled_us for point in chart.points)

            explorer(app).query_one("#compiled", KernelTable).focus()
            await pilot.press("g")
            await wait_for(pilot, lambda: isinstance(app.screen, KernelCodeScreen), what="the code view")
            assert shown_text(app.screen.query_one("#code-source")).strip()
            assert isinstance(app.screen, KernelCodeScreen)
            assert app.screen.kernel.code == saved["compiled"]["kernels"][0]["code"]
            await pilot.press("escape", "d")
            await wait_for(pilot, lambda: isinstance(app.screen, DetailsScreen), what="the details")
        assert app.link.runs == [SCENARIO]
        assert no_engine == []

    async def test_a_scenario_missing_here_is_shown_from_its_carried_source(
        self, results: Path, tmp_path: Path, no_engine: list[Any]
    ) -> None:
        app = view_app(rewritten(results, tmp_path, scenario=ELSEWHERE))
        async with app.run_test(size=WIDE) as pilot:
            (entry,) = explorer(app).catalog.entries
            assert entry.path == Path(ELSEWHERE) and entry.title == "Add, then ReLU"
            assert entry.claims_for("cpu") == read_scenario(SCENARIO).claims_for("cpu") != {}
            lesson = explorer(app).query_one("#lesson", LessonView)
            await wait_for(pilot, lambda: "def fn(a, b)" in shown_text(lesson.query_one("#lesson-source")))
            await pilot.press("r")
            await wait_for(pilot, lambda: finished(app, Path(ELSEWHERE)), what="the saved run to be shown")
            assert kernel_names(app, "compiled") == [k["name"] for k in saved_object(results)["compiled"]["kernels"]]
        assert no_engine == []

    async def test_old_results_without_source_for_a_missing_file_say_so_and_still_show(
        self, results: Path, tmp_path: Path, no_engine: list[Any]
    ) -> None:
        app = view_app(rewritten(results, tmp_path, scenario=ELSEWHERE, source=None))
        async with app.run_test(size=WIDE) as pilot:
            (entry,) = explorer(app).catalog.entries
            assert entry.read_error is not None and "carry no source" in str(entry.read_error)
            await pilot.press("r")
            await wait_for(pilot, lambda: finished(app, Path(ELSEWHERE)), what="the saved run to be shown")
            assert kernel_names(app, "eager") == [k["name"] for k in saved_object(results)["eager"]["kernels"]]

    async def test_a_new_snippet_or_a_run_of_anything_unsaved_says_nothing_runs_here(
        self, results: Path, no_engine: list[Any]
    ) -> None:
        app = view_app(results)
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("ctrl+n")
            await pilot.pause()
            assert any(notice.message == VIEW_MODE_REFUSAL for notice in app._notifications)
            assert explorer(app).session.document is None
        with pytest.raises(EngineDied, match="view mode: nothing runs here"):
            list(app.link.run(REPO / "elsewhere.py", sweep=False))
        assert no_engine == []


async def test_view_offers_no_sweep_to_run_and_no_drafts_to_restore(results: Path, tmp_path: Path) -> None:
    """Nothing can run in view mode: the footer offered s and the chart said "Not swept yet. s runs the
    scenario", and a draft an earlier session left opened the "Unsaved snippets" dialog."""
    from support.snippet_support import crashed_draft

    crashed_draft("x.tanh()\n")
    unswept = rewritten(results, tmp_path, sweep=[])
    app = view_app(unswept)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.pause(0.3)
        assert isinstance(app.screen, type(explorer(app))), "no dialog over the saved results"
        footer_keys = {binding.key for _, binding, enabled, _ in app.active_bindings.values() if enabled}
        assert "r" in footer_keys and "s" not in footer_keys
        chart = explorer(app).query_one("#chart", RuntimeChart)
        assert "s runs" not in chart.hint and "r shows" in chart.hint
        assert "s runs" not in shown_text(explorer(app).query_one("#summary"))
        await pilot.press("r")
        await wait_for(pilot, lambda: finished(app, SCENARIO), what="the saved run to be shown")
        assert "no size sweep" in chart.hint and "Not swept yet" not in chart.hint


def test_a_pretty_printed_list_of_reports_opens_too(results: Path, tmp_path: Path) -> None:
    pretty = tmp_path / "results.json"
    pretty.write_text(json.dumps([saved_object(results)], indent=2))
    (entry,) = view_app(pretty).entries
    assert entry.path == SCENARIO and entry.source == SCENARIO.read_text()


class TestBadInput:
    def test_a_missing_file(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        missing = tmp_path / "nothing.jsonl"
        assert main(["view", str(missing)]) == EXIT_USAGE
        (line,) = capsys.readouterr().err.splitlines()
        assert str(missing) in line and "cannot read it" in line

    def test_a_line_that_is_not_json(self, results: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        broken = tmp_path / "broken.jsonl"
        broken.write_text(results.read_text() + "{not json\n")
        assert main(["view", str(broken)]) == EXIT_USAGE
        (line,) = capsys.readouterr().err.splitlines()
        assert f"{broken}: line 2 is not JSON" in line

    def test_a_line_that_is_not_a_report(
        self, results: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        other = tmp_path / "other.jsonl"
        other.write_text(results.read_text() + '{"hello": "world"}\n')
        assert main(["view", str(other)]) == EXIT_USAGE
        (line,) = capsys.readouterr().err.splitlines()
        assert f"{other}: line 2: not a kernel-tui report" in line


@pytest.mark.engine
def test_kernel_tui_view_does_not_import_torch(results: Path) -> None:
    # A fresh interpreter through the command line's own path, headless, until the first frame is painted.
    code = textwrap.dedent(
        f"""
        import sys

        from kernel_tui.commands import cli
        from kernel_tui.ui.app.view_app import SavedResultsApp

        run = SavedResultsApp.run
        SavedResultsApp.run = lambda self: run(self, headless=True)
        assert cli.main(["view", {str(results)!r}]) == 0
        heavy = sorted(name for name in sys.modules if name.split(".")[0] in ("torch", "triton"))
        print(",".join(heavy))
        """
    )
    env = {**os.environ, "KERNEL_TUI_EXIT_AFTER_FIRST_FRAME": "1"}
    command = [sys.executable, "-c", code]
    result = subprocess.run(command, capture_output=True, text=True, cwd=REPO, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"kernel-tui view imported: {result.stdout.strip()}"
