"""Issue 36's small items on the learner's screen, each where its cause was: Textual's own toasts said in plain
words, ``view`` naming no engine, the lesson pane showing the helpers the gutter cites, Esc out of the editor."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.snippet_support import (
    SMALL,
    TYPO,
    answer_prompt,
    new_snippet,
    notifications,
    open_document,
    run_done,
    snippet_link,
)
from support.snippet_support import quick_timers as quick_timers  # autouse: faster autosave
from support.ui_support import explorer, make_app, shown_text, tab_shown, wait_for
from test_ui_code_links import which_line_app
from textual.widgets import Tabs

from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.storage.results_file import read_results
from kernel_tui.ui.app.view_app import build_view_app
from kernel_tui.ui.link.view_link import saved_reports
from kernel_tui.ui.state.course.catalog import load_catalog
from kernel_tui.ui.state.course.source import SNIPPET_PIECE, scenario_source
from kernel_tui.ui.view.describe import SAVED_ENGINE_LINE
from kernel_tui.ui.widgets.lesson_view import LessonView
from kernel_tui.ui.widgets.snippet_editor import SnippetEditor

GELU_LINEAR = Path("tests/data/gelu_linear.py")
"""``fn`` calls the helper ``project`` (lines 7-8), whose Linear the gutter cites from line 13 (``with L8``)."""
SAVED = Path("tests/data/gelu_linear_report.json")
"""``kernel-tui run --json`` of ``gelu_linear.py`` on CPU."""

pytestmark = pytest.mark.usefixtures("from_the_repository")


async def test_ctrl_c_says_which_key_quits_in_plain_words() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: explorer(app).hello is not None)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert "Press q to quit the app" in notifications(app), notifications(app)


async def test_a_saved_screenshot_is_said_in_plain_words(tmp_path: Path) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: explorer(app).hello is not None)
        app.deliver_screenshot(path=str(tmp_path))
        await wait_for(pilot, lambda: any("screenshot" in said for said in notifications(app)), what="the toast")
        (said,) = [said for said in notifications(app) if "screenshot" in said]
        assert "[" not in said and str(tmp_path) in said, said


def saved_results(tmp_path: Path) -> Path:
    results = tmp_path / "results.jsonl"
    results.write_text(json.dumps(json.loads(SAVED.read_text())) + "\n")
    return results


async def test_view_names_no_engine_since_none_runs(tmp_path: Path) -> None:
    results = saved_results(tmp_path)
    app = build_view_app(saved_reports(read_results(results), results), clock=lambda: 1000.0)
    async with app.run_test(size=(120, 36)) as pilot:
        summary = explorer(app).query_one("#summary")
        for _ in range(3):  # the first frame, and after the saved link's hello has come
            said = shown_text(summary)
            assert "engine ready" not in said and "starting" not in said, said
            await pilot.pause(0.1)
        await wait_for(pilot, lambda: SAVED_ENGINE_LINE in shown_text(summary), what="the engine line")


def test_the_lesson_code_shows_the_helpers_fn_calls() -> None:
    pieces = scenario_source(GELU_LINEAR.read_text())
    assert [(piece.name, piece.first_line) for piece in pieces] == [("project", 7), ("fn", 11), ("inputs", 16)]


async def test_the_lesson_pane_shows_the_helper_line_the_gutter_cites(tmp_path: Path) -> None:
    (entry,) = load_catalog([GELU_LINEAR], None)
    app = make_app(paths=(GELU_LINEAR,))
    async with app.run_test(size=(120, 36)) as pilot:
        lesson = explorer(app).query_one("#lesson", LessonView)
        await wait_for(pilot, lambda: bool(lesson.query("#lesson-text")), what="the Markdown")
        lesson.show(entry)
        await pilot.pause()
        code = shown_text(lesson.query_one("#lesson-source"))
        assert "8     return F.linear(x, w)" in code, code


@pytest.mark.parametrize("size", [(120, 36), (80, 24)], ids=["120x36", "80x24"])
async def test_esc_leaves_the_editor_for_the_scenario_list_or_the_tab_bar_never_the_chart(
    size: tuple[int, int],
) -> None:
    app = which_line_app()
    async with app.run_test(size=size) as pilot:
        screen = explorer(app)
        await wait_for(pilot, lambda: screen.hello is not None)
        await pilot.press("e")
        await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "snippet-text", what="the editor")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.focused is not None and app.focused.id != "snippet-text", what="Esc")
        await pilot.pause()
        if screen.wide:
            assert app.focused is screen.query_one("#scenarios"), app.focused
            assert screen.query_one(SnippetEditor).display, "the editor still shown"
        else:
            assert isinstance(app.focused, Tabs), app.focused
            assert tab_shown(app) == "editor"


def test_a_bare_snippets_code_is_its_set_up_and_measured_line() -> None:
    text = '"""doc"""\nimport torch\n\nw = torch.ones(3)\n(a + w).relu()\n'
    assert [(piece.name, piece.first_line, piece.code) for piece in scenario_source(text)] == [
        (SNIPPET_PIECE, 4, "w = torch.ones(3)\n(a + w).relu()")
    ]


async def test_a_saved_bare_snippets_lesson_shows_its_code_under_the_path_it_was_saved_to(tmp_path: Path) -> None:
    saved = tmp_path / "mine.py"
    app = make_app(snippet_link())
    async with app.run_test(size=SMALL) as pilot:
        await new_snippet(pilot, "(x * 2).exp()\n")
        await pilot.press("ctrl+s")
        await answer_prompt(pilot, str(saved))
        await wait_for(pilot, lambda: saved.exists(), what="the save")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: run_done(app), what="the run")
        await pilot.press("escape", "2")
        lesson = explorer(app).query_one("#lesson", LessonView)
        await wait_for(pilot, lambda: lesson.size.height > 0, what="the lesson tab")
        await pilot.pause()
        code = shown_text(lesson.query_one("#lesson-source"))
        assert "(x * 2).exp()" in code and "no fn" not in code, code
        assert str(saved) in lesson.lesson and open_document(app).path.name not in lesson.lesson, lesson.lesson


async def test_a_failed_snippet_run_says_its_lines_were_not_measured_and_nothing_of_the_load() -> None:
    app = make_app(snippet_link(plays="snippets/ui_snippet_typo.py"))
    async with app.run_test(size=(120, 36)) as pilot:
        await new_snippet(pilot, "t = x * 2\n\nt + q")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: run_done(app), what="the failed run")
        await pilot.pause()
        said = shown_text(explorer(app).query_one("#kernel-name"))
        assert "launches nothing" not in said and "line 3: not measured, the run failed" in said, said


def test_a_run_that_measured_nothing_says_nothing_of_the_machines_load() -> None:
    from dataclasses import replace

    from support.replay import Recording

    from kernel_tui.model.meaning.machine_load import MachineLoad
    from kernel_tui.text.formatting import report_notes
    from kernel_tui.transport.protocol import Done
    from kernel_tui.ui.view.shown import SummaryShown
    from kernel_tui.ui.view.summary_lines import RETRY_KEYS, summary_lines

    (done,) = [m for m in Recording.load(TYPO).messages if isinstance(m, Done)]
    busy = MachineLoad(load_avg=18.0, cores=2)
    assert busy.busy
    failed = replace(done.report, machine_load=busy)
    assert failed.eager is None and failed.error is not None
    assert not any("busy" in note for note in report_notes(failed))
    shown = SummaryShown(failed, {}, failed.error, "", None, False, "")
    assert RETRY_KEYS not in [line.plain for line in summary_lines(shown)]
    measured = replace(load_busy_report(), machine_load=busy)
    assert any("busy" in note for note in report_notes(measured)), "a measured run still says it"


def load_busy_report() -> ScenarioReport:
    return ScenarioReport.from_dict(json.loads(SAVED.read_text()))
