"""The snippet editor driven by keys (Pilot): type, run, see errors on their line, the size and the keys; saving,
opening, reloading and restoring are in ``test_ui_snippet_files``.

The engine is a stand-in that records what it was asked to run (the file's path, its text at that moment,
and the size) and replays a real recording for it: add+relu for a snippet that works, the engine's own
report of a NameError or a syntax error for the others. Drafts and saved snippets go to the temporary
folders ``conftest`` gives every test (``KERNEL_TUI_STATE_DIR``, ``KERNEL_TUI_SNIPPETS_DIR``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from support.replay import ReplayGate
from support.snippet_support import (
    ADD_RELU_RECORDING,
    SMALL,
    SYNTAX,
    TYPO,
    WIDE,
    SnippetLink,
    answer_prompt,
    editor,
    new_snippet,
    note,
    open_document,
    replace_text,
    run_a_syntax_error,
    run_done,
    snippet_link,
    text_area,
    type_text,
)
from support.snippet_support import quick_timers as quick_timers  # autouse: faster autosave and file polling here too
from support.ui_support import ADD_RELU, DATA, RECORDINGS, explorer, make_app, shown_text, status, tab_shown, wait_for
from textual.widgets import Tabs

from kernel_tui.transport.protocol import Done, Partial
from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.link.engine_link import CompileVariants
from kernel_tui.ui.link.run_lifecycle import RunMessages
from kernel_tui.ui.screens.dialogs.details import DetailsScreen
from kernel_tui.ui.screens.dialogs.help import HelpScreen
from kernel_tui.ui.screens.snippets import SnippetWorkbench
from kernel_tui.ui.state.course.catalog import load_catalog
from kernel_tui.ui.state.run_state import RunStatus
from kernel_tui.ui.state.snippets.drafts import TEMPLATE, DraftStore
from kernel_tui.ui.state.snippets.snippet_session import parse_size
from kernel_tui.ui.widgets.kernel_table import KernelTable
from kernel_tui.ui.widgets.scenario_list import ScenarioList
from kernel_tui.ui.widgets.snippet_text import SnippetTextArea


class TestEditor:
    """One key opens the editor on a template; the snippet joins the list as the learner's own."""

    async def test_ctrl_n_opens_a_new_snippet_from_the_template(self) -> None:
        app = make_app(snippet_link(), course=DATA)  # the two scenarios are the course, the snippet is yours
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("ctrl+n")
            await wait_for(pilot, lambda: isinstance(app.focused, SnippetTextArea))
            assert text_area(app).text == TEMPLATE
            assert text_area(app).cursor_location == (3, 0), "the cursor waits on the expression"
            screen = explorer(app)
            assert screen.has_class("-editing"), "the editor takes the lesson's place"
            assert open_document(app).path.parent == DraftStore().folder
            listed = str(screen.query_one(ScenarioList).get_option_at_index(2).prompt)
            assert "✎ (a + b).relu()" in listed and "(yours)" in listed
            assert screen.entry.path == open_document(app).path

    async def test_a_typed_bare_expression_runs_as_a_file_at_the_chosen_size(self) -> None:
        link = snippet_link()
        app = make_app(link)
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("z")
            await answer_prompt(pilot, "2**12")
            assert explorer(app).run_size == 4096
            assert "size 4,096" in (explorer(app).title or "")
            await new_snippet(pilot, "(a + b).relu()")
            await pilot.press("ctrl+r")
            await wait_for(pilot, lambda: run_done(app), what="the snippet's run")
            path, size, text = link.asked[-1]
            assert (path, size, text) == (open_document(app).path, 4096, "(a + b).relu()")
            eager = explorer(app).query_one("#eager", KernelTable)
            assert [kernel.short_name for kernel in eager.kernels] == ["aten::add", "aten::relu"]
            assert "✓ done" in status(app)
            assert text_area(app).text == "(a + b).relu()"
            assert text_area(app).error_line is None

    async def test_enter_keeps_the_indent_and_indents_after_a_colon(self) -> None:
        app = make_app(snippet_link())
        async with app.run_test(size=WIDE) as pilot:
            await new_snippet(pilot, "")
            await type_text(pilot, "def f(t):\nu = t * 2\nreturn u.relu()\n")
            assert text_area(app).text == "def f(t):\n    u = t * 2\n    return u.relu()\n    "
            await pilot.press("backspace", "backspace", "backspace", "backspace")
            await type_text(pilot, "f(x)")
            assert text_area(app).text.endswith("\nf(x)")

    async def test_the_editor_says_which_line_is_measured_and_that_the_lines_above_are_set_up(self) -> None:
        app = make_app(snippet_link())
        async with app.run_test(size=WIDE) as pilot:
            await new_snippet(pilot, "(a + b).relu()")
            assert "measured" not in note(app), "one line: nothing to explain"
            await type_text(pilot, "\nx @ y")
            assert "measured: line 2; lines above run once as set-up" in note(app)

    @pytest.mark.parametrize("size", [WIDE, SMALL])
    async def test_the_tables_header_says_the_shapes_in_and_out(self, size: tuple[int, int]) -> None:
        link = snippet_link()
        signed = "x: (1048576,) float32, y: (1048576,) float32 → () float32"
        recording = link.recordings[ADD_RELU_RECORDING]
        messages = tuple(
            replace(message, report=replace(message.report, signature=signed))
            if isinstance(message, (Partial, Done))
            else message
            for message in recording.messages
        )
        link.recordings[ADD_RELU_RECORDING] = replace(recording, messages=messages)
        app = make_app(link)
        async with app.run_test(size=size) as pilot:
            await new_snippet(pilot, "x @ y")
            await pilot.press("ctrl+r")
            await wait_for(pilot, lambda: run_done(app), what="the snippet's run")
            if size == SMALL:
                await pilot.press("escape", "3")  # the Kernels tab
            await pilot.pause()
            header = explorer(app).query_one("#signature")
            assert header.display
            assert f"shapes: {signed}" in shown_text(header)

    async def test_leaving_the_editor_and_coming_back_keeps_the_text(self) -> None:
        app = make_app(snippet_link())
        async with app.run_test(size=WIDE) as pilot:
            await new_snippet(pilot, "x.sin()")
            await pilot.press("escape")
            assert not isinstance(app.focused, SnippetTextArea)
            await pilot.press("1", "p")  # another scenario: the lesson comes back
            assert not explorer(app).has_class("-editing")
            await pilot.press("5")
            await wait_for(pilot, lambda: isinstance(app.focused, SnippetTextArea))
            assert text_area(app).text == "x.sin()"
            assert explorer(app).has_class("-editing")


class TestErrors:
    """An error shows under the text and marks the snippet's own line; the text is left exactly as typed."""

    async def test_an_unknown_name_marks_its_line(self) -> None:
        typed = "t = x * 2\n\nt + q"
        app = make_app(snippet_link(plays="snippets/ui_snippet_typo.py"))
        async with app.run_test(size=WIDE) as pilot:
            await new_snippet(pilot, typed)
            await pilot.press("ctrl+r")
            await wait_for(pilot, lambda: run_done(app))
            assert explorer(app).runs[open_document(app).path].status is RunStatus.FAILED
            assert text_area(app).text == typed
            assert text_area(app).error_line == 3
            assert text_area(app).cursor_location == (2, 0)
            assert "▶3  t + q" in shown_text(text_area(app)), "the line is marked in the gutter, beside its number"
            assert "✗ ^t details · line 3: eager: NameError: name 'q'" in note(app)
            assert ":3: eager: NameError" in status(app)
            # The app goes on: editing clears the mark, the note stays until the next run.
            await pilot.press("end")
            await type_text(pilot, " + x")
            assert text_area(app).text == typed + " + x"
            assert text_area(app).error_line is None
            assert "NameError" in note(app)

    async def test_a_syntax_error_marks_its_line(self) -> None:
        app = make_app(snippet_link(plays="snippets/ui_snippet_syntax.py"))
        async with app.run_test(size=WIDE) as pilot:
            typed = await run_a_syntax_error(app, pilot)
            assert text_area(app).text == typed
            assert text_area(app).error_line == 1
            assert "line 1: load: syntax error: '(' was never" in note(app)

    async def test_a_file_the_engine_could_not_read_names_no_size(self) -> None:
        """Without a size asked for, the engine cannot read SIZE from a file with a syntax error and reports
        size 0: the device line read "size 0", as if it had run on empty arrays."""
        link = snippet_link(plays="snippets/ui_snippet_syntax.py")
        recording = link.recordings[link.plays]
        unread = tuple(
            replace(message, report=replace(message.report, size=0))
            if isinstance(message, (Done, Partial))
            else message
            for message in recording.messages
        )
        link.recordings[link.plays] = replace(recording, messages=unread)
        app = make_app(link)
        async with app.run_test(size=WIDE) as pilot:
            await run_a_syntax_error(app, pilot)
            shown = shown_text(explorer(app).query_one("SummaryStrip"))
            assert "torch" in shown and "size 0" not in shown, shown

    async def test_the_details_of_a_snippet_error_show_its_own_output_not_an_earlier_runs(self) -> None:
        """The engine's output is one stream for the session: the details showed warnings another lesson's
        run had left (dynamo's, about a graph break the snippet never had)."""

        @dataclass
        class PrintingLink(SnippetLink):
            printed: list[str] = field(default_factory=list)

            def run(
                self, path: Path, *, sweep: bool, size: int | None = None, variants: CompileVariants | None = None
            ) -> RunMessages:
                self.printed.append(f"printed while running {Path(path).name}\n")
                return super().run(path, sweep=sweep, size=size, variants=variants)

            def output(self, since: int = 0, until: int | None = None) -> str:
                return "".join(self.printed[since:until])

            def output_mark(self) -> int:
                return len(self.printed)

        link = PrintingLink.from_files(*RECORDINGS, TYPO, SYNTAX, plays="snippets/ui_snippet_syntax.py")
        link.printed.append("W1201 torch._dynamo: Graph break from lesson 15, an earlier run\n")
        app = make_app(link)
        async with app.run_test(size=WIDE) as pilot:
            await run_a_syntax_error(app, pilot)
            await pilot.press("ctrl+t")
            await wait_for(pilot, lambda: isinstance(app.screen, DetailsScreen), what="the details")
            await pilot.pause()
            body = str(app.screen.query_one("#details-body Static").render())
            assert "syntax error" in body and "printed while running" in body
            assert "Graph break from lesson 15" not in body

    async def test_the_details_key_the_note_names_works_in_the_editor(self) -> None:
        app = make_app(snippet_link(plays="snippets/ui_snippet_syntax.py"))
        async with app.run_test(size=WIDE) as pilot:
            typed = await run_a_syntax_error(app, pilot)
            assert "✗ ^t details · line 1: load" in note(app)
            assert isinstance(app.focused, SnippetTextArea)
            await pilot.press("ctrl+t")
            await wait_for(pilot, lambda: isinstance(app.screen, DetailsScreen), what="the details")
            await pilot.press("escape")
            assert text_area(app).text == typed, "the key typed nothing"

    async def test_a_long_run_says_for_how_long_and_esc_esc_stops_it(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(SnippetWorkbench, "RUNNING_NOTE_INTERVAL_S", 0.05)
        now = [1000.0]
        link = SnippetLink.from_files(*RECORDINGS, TYPO, SYNTAX, gate=ReplayGate())  # never answers
        app = make_app(link, clock=lambda: now[0])
        async with app.run_test(size=WIDE) as pilot:
            await new_snippet(pilot, "while True:\n    pass\n(a + b).relu()")
            await pilot.press("ctrl+r")
            await wait_for(pilot, lambda: "running" in note(app), what="the running note")
            assert "esc twice stops it" in note(app)
            now[0] += 12
            await wait_for(pilot, lambda: "still running: 12 s" in note(app), what="the seconds counted")
            now[0] += 1
            await wait_for(pilot, lambda: "still running: 13 s" in note(app), what="every second")
            await pilot.press("escape", "escape")
            await wait_for(pilot, lambda: run_done(app), what="the run stopped")
            await pilot.pause(0.2)
            assert "running" not in note(app)
            assert "cancelled" in note(app)

    async def test_a_good_run_after_an_error_clears_it(self) -> None:
        link = snippet_link(plays="snippets/ui_snippet_typo.py")
        app = make_app(link)
        async with app.run_test(size=WIDE) as pilot:
            await new_snippet(pilot, "t = x * 2\n\nt + q")
            await pilot.press("ctrl+r")
            await wait_for(pilot, lambda: run_done(app))
            link.plays = ADD_RELU_RECORDING
            await replace_text(pilot, "(a + b).relu()")
            await pilot.press("ctrl+r")
            await wait_for(pilot, lambda: run_done(app) and open_document(app).error is None)
            assert text_area(app).error_line is None
            assert "NameError" not in note(app)


class TestSmallTerminal:
    """80x24: the editor is a tab of its own (5); the run's results are in the kernels tab."""

    async def test_editor_tab_run_and_layout_switch_keep_the_text(self) -> None:
        link = snippet_link()
        app = make_app(link)
        async with app.run_test(size=SMALL) as pilot:
            await new_snippet(pilot, "(a + b).relu()")
            assert tab_shown(app) == "editor"
            await pilot.press("ctrl+r")
            await wait_for(pilot, lambda: run_done(app))
            assert tab_shown(app) == "editor", "the editor stays in front; the status line says how it went"
            assert "✓ done" in status(app)
            await pilot.resize_terminal(*WIDE)
            await wait_for(pilot, lambda: tab_shown(app) is None)
            await wait_for(pilot, lambda: text_area(app).text == "(a + b).relu()")
            assert explorer(app).has_class("-editing")
            await pilot.resize_terminal(*SMALL)
            await wait_for(pilot, lambda: tab_shown(app) == "editor")
            await wait_for(pilot, lambda: bool(explorer(app).query("#snippet-text")))
            assert text_area(app).text == "(a + b).relu()"

    async def test_the_editor_tab_says_how_to_open_a_snippet(self) -> None:
        app = make_app(snippet_link())
        async with app.run_test(size=SMALL) as pilot:
            await pilot.pause()
            await pilot.click(explorer(app).query_one("#tab-editor"))  # the tab itself, as a learner clicks it
            await wait_for(pilot, lambda: tab_shown(app) == "editor", what="the editor tab")
            assert isinstance(app.focused, Tabs), "a click shows the pane and leaves the focus on the tab bar"
            await wait_for(pilot, lambda: bool(explorer(app).query("#editor-empty")))
            await pilot.pause()
            assert "ctrl+n" in shown_text(editor(app).query_one("#editor-empty"))


class TestSizeAndKeys:
    """z sets the size every run uses; help and the command palette list the editor's keys and actions."""

    async def test_size_prompt_checks_what_is_typed(self) -> None:
        link = snippet_link()
        app = make_app(link)
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("z")
            await answer_prompt(pilot, "lots")
            assert "not a size" in shown_text(app.screen.query_one("#prompt-problem"))
            await answer_prompt(pilot, "0")
            assert "at least 1" in shown_text(app.screen.query_one("#prompt-problem"))
            await answer_prompt(pilot, "65_536")
            assert explorer(app).run_size == 65536
            await pilot.press("r")  # any scenario's run gets the size
            await wait_for(pilot, lambda: bool(link.sizes))
            assert link.sizes == [65536]
            await pilot.press("z")
            await answer_prompt(pilot, "")
            assert explorer(app).run_size is None
            assert explorer(app).title is None

    async def test_help_and_palette_list_the_editor(self) -> None:
        app = make_app(snippet_link())
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("question_mark")
            assert isinstance(app.screen, HelpScreen)
            text = "".join(shown_text(static) for static in app.screen.query("Static"))
            for key in ("e ", "ctrl+n", "ctrl+r", "ctrl+s", "ctrl+o", "z ", "5 "):
                assert key in text, key
            await pilot.press("escape")
            titles = [command.title for command in app.get_system_commands(app.screen)]
            for title in ("New snippet", "Edit scenario", "Open file in the editor", "Save snippet", "Set size"):
                assert title in titles
            new = next(c for c in app.get_system_commands(app.screen) if c.title == "New snippet")
            await new.callback()
            await wait_for(pilot, lambda: explorer(app).session.document is not None)

    async def test_footer_offers_the_editor_keys_only_when_they_apply(self) -> None:
        app = make_app(snippet_link())
        async with app.run_test(size=WIDE) as pilot:
            await pilot.pause()
            assert app.screen.check_action("run_snippet", (False,)) is False
            assert app.screen.check_action("new_snippet", ()) is True
            await new_snippet(pilot, "a.exp()")
            assert app.screen.check_action("run_snippet", (False,)) is True
            shown = {binding.key for _, binding, enabled, _ in app.active_bindings.values() if enabled}
            assert {"ctrl+r", "ctrl+s", "ctrl+n"} <= shown
            assert "r" not in shown, "letters are typed in the editor: their bindings step aside"


def test_parse_size_reads_what_a_learner_types() -> None:
    assert parse_size("4096") == 4096
    assert parse_size("1_048_576") == 2**20
    assert parse_size("2**12") == 4096
    assert parse_size(" ") is None
    for bad in ("-1", "1.5", "abc", "2**40", "True"):
        with pytest.raises(ValueError):
            parse_size(bad)


@pytest.mark.engine
@pytest.mark.slow
async def test_the_real_engine_marks_the_line_of_a_typed_snippet() -> None:
    """No stand-in: the real engine (on CPU) runs the draft at the chosen size and names the typed line.
    The snippet fails in eager, before any compile, so this costs one engine start."""
    app = KernelTuiApp(load_catalog([ADD_RELU], course=None), device="cpu")
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("z")
        await answer_prompt(pilot, "4096")
        await new_snippet(pilot, "t = x * 2\n\nt + q")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: run_done(app), timeout=300, what="the real engine's report")
        run = explorer(app).runs[open_document(app).path]
        assert run.status is RunStatus.FAILED and run.record.error is not None, run
        assert (run.record.error.stage, run.record.error.line) == ("eager", 3), run.record.error
        assert run.record.report is not None and run.record.report.size == 4096
        assert text_area(app).text == "t = x * 2\n\nt + q"
        assert text_area(app).error_line == 3


async def test_in_the_editor_the_footer_and_the_status_line_name_keys_that_work_there() -> None:
    """Letters are typed in the editor: the footer offered "? Help" and the status line "r runs this
    scenario · s ... · d details", and each of those keys typed a letter instead."""
    app = make_app(snippet_link())
    async with app.run_test(size=SMALL) as pilot:
        await new_snippet(pilot, "x.relu()")
        await pilot.pause()
        footer = {binding.key for _, binding, enabled, _ in app.active_bindings.values() if enabled}
        assert "question_mark" not in footer and "f1" in footer, footer
        line = status(app)
        assert "ctrl+r runs" in line and "F1 lists every key" in line and "s runs" not in line, line
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="help from the editor")
        await pilot.press("escape")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: run_done(app))
        line = status(app)
        assert "ctrl+t details" in line and "s adds" not in line and " d details" not in line, line
        await pilot.press("escape")  # leaves the editor: the explorer's own keys again
        await pilot.pause()
        assert "d details" in status(app) and "s adds the size sweep" in status(app)
