"""The snippet editor's files, driven by keys (Pilot): save, open, reload a file changed on disk, and restore
the drafts that keep every unsaved edit, after a crash too. The engine is the stand-in of ``snippet_support``;
drafts and saved snippets go to the temporary folders ``conftest`` gives every test."""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from support.snippet_support import (
    SMALL,
    WIDE,
    answer_prompt,
    crashed_draft,
    editor,
    new_snippet,
    note,
    notifications,
    open_document,
    snippet_link,
    text_area,
    type_text,
)
from support.snippet_support import quick_timers as quick_timers  # autouse: faster autosave and file polling here too
from support.ui_support import ADD_RELU, DATA, explorer, make_app, shown_text, tab_shown, wait_for
from textual.pilot import Pilot
from textual.widgets import Input, OptionList

from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.screens.dialogs.prompt import PromptScreen
from kernel_tui.ui.screens.dialogs.quit_anyway import QuitAnywayScreen
from kernel_tui.ui.screens.dialogs.restore_drafts import RestoreDraftsScreen
from kernel_tui.ui.screens.explorer import ExplorerScreen
from kernel_tui.ui.screens.snippets import SnippetWorkbench
from kernel_tui.ui.state.snippets import drafts, rescue
from kernel_tui.ui.state.snippets.drafts import TEMPLATE, DraftStore, snippets_dir
from kernel_tui.ui.state.snippets.rescue import RESCUE_FOLDER
from kernel_tui.ui.widgets.scenario_list import ScenarioList
from kernel_tui.ui.widgets.snippet_text import SnippetTextArea


@asynccontextmanager
async def editing_own_file(tmp_path: Path) -> AsyncIterator[tuple[Path, KernelTuiApp, Pilot[None]]]:
    """The learner's own file ``mine.py`` (``a.relu()``), opened in the editor with e."""
    mine = tmp_path / "mine.py"
    mine.write_text("a.relu()\n")
    app = make_app(snippet_link(), paths=(mine,))
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("e")
        await wait_for(pilot, lambda: text_area(app).text == "a.relu()\n")
        yield mine, app, pilot


class TestSave:
    """ctrl+s asks where (the snippets folder by default) the first time, then saves in place."""

    async def test_save_writes_the_text_to_the_suggested_file(self) -> None:
        app = make_app(snippet_link())
        async with app.run_test(size=WIDE) as pilot:
            await new_snippet(pilot, "(x * 2).exp()\n")
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
            suggested = app.screen.query_one(Input).value
            assert suggested.endswith("snippet.py")
            await pilot.press("enter")
            saved = snippets_dir() / "snippet.py"
            await wait_for(pilot, lambda: saved.exists())
            assert saved.read_text() == "(x * 2).exp()\n"
            assert open_document(app).origin == saved.resolve()
            assert "unsaved" not in note(app)
            # Saving again goes to the same file without asking.
            await pilot.press("end")
            await type_text(pilot, "y")
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert not isinstance(app.screen, PromptScreen)
            assert saved.read_text() == "(x * 2).exp()\ny"

    async def test_save_to_a_typed_path_and_confirm_before_replacing(self, tmp_path: Path) -> None:
        target = tmp_path / "mine" / "relu.py"
        target.parent.mkdir()
        target.write_text("old\n")
        app = make_app(snippet_link())
        async with app.run_test(size=WIDE) as pilot:
            await new_snippet(pilot, "a.relu()\n")
            await pilot.press("ctrl+s")
            await answer_prompt(pilot, str(tmp_path / "mine" / "relu.txt"))
            assert "ends in .py" in shown_text(app.screen.query_one("#prompt-problem"))
            await answer_prompt(pilot, str(target))
            assert "exists" in shown_text(app.screen.query_one("#prompt-problem"))
            assert target.read_text() == "old\n"
            await pilot.press("enter")
            await wait_for(pilot, lambda: target.read_text() == "a.relu()\n")
            assert isinstance(app.screen, ExplorerScreen)
            await pilot.pause()
            assert editor(app).border_title == "Editor: relu.py", "the pane names the file it now edits"

    async def test_escape_cancels_the_save(self) -> None:
        app = make_app(snippet_link())
        async with app.run_test(size=WIDE) as pilot:
            await new_snippet(pilot, "a.relu()\n")
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
            await pilot.press("escape")
            assert isinstance(app.screen, ExplorerScreen)
            assert not snippets_dir().exists() or not any(snippets_dir().iterdir())
            assert text_area(app).text == "a.relu()\n"


class TestOpen:
    """e edits the scenario on screen: the learner's own file in place, a course scenario as a copy."""

    async def test_e_on_your_own_file_edits_it_in_place(self, tmp_path: Path) -> None:
        mine = tmp_path / "mine.py"
        mine.write_text("(x + y).sigmoid()\n")
        app = make_app(snippet_link(), paths=(ADD_RELU, mine), course=DATA)
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("n", "e")
            await wait_for(pilot, lambda: isinstance(app.focused, SnippetTextArea))
            assert text_area(app).text == "(x + y).sigmoid()\n"
            assert open_document(app).origin == mine.resolve()
            await pilot.press("end")
            await type_text(pilot, " * 2")
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: mine.read_text() == "(x + y).sigmoid() * 2\n")

    async def test_your_own_file_is_listed_once_while_edited_and_its_title_follows_the_saved_text(
        self, tmp_path: Path
    ) -> None:
        mine = tmp_path / "mysnip.py"
        mine.write_text("(x + y).sigmoid()\n")
        app = make_app(snippet_link(), paths=(ADD_RELU, mine), course=DATA)
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("n", "e")
            await wait_for(pilot, lambda: isinstance(app.focused, SnippetTextArea))
            await pilot.press("end")
            await type_text(pilot, " * 2")
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: mine.read_text() == "(x + y).sigmoid() * 2\n")
            await pilot.pause()
            screen = explorer(app)
            assert len(screen.catalog) == 2, [entry.path.name for entry in screen.catalog.entries]
            assert screen.catalog.index == 1 and screen.entry.path == open_document(app).path
            listed = [str(option.prompt) for option in screen.query_one(ScenarioList).options]
            assert len(listed) == 2 and "(x + y).sigmoid() * 2" in listed[1], listed
            assert not any("mysnip-2" in text for text in listed)
            await pilot.press("escape", "p", "n", "e")  # away and back: still the one entry, the same draft
            await wait_for(pilot, lambda: isinstance(app.focused, SnippetTextArea))
            assert len(screen.catalog) == 2 and text_area(app).text == "(x + y).sigmoid() * 2\n"

    async def test_e_on_a_course_scenario_edits_a_copy(self) -> None:
        app = make_app(snippet_link(), course=DATA)
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("e")
            await wait_for(pilot, lambda: isinstance(app.focused, SnippetTextArea))
            document = open_document(app)
            assert text_area(app).text == ADD_RELU.read_text()
            assert document.origin is None and document.draft.based_on == ADD_RELU.resolve()
            assert explorer(app).catalog.entries[-1].title == "✎ Add, then ReLU"
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
            assert app.screen.query_one(Input).value.endswith("ui_add_relu.py")
            assert ADD_RELU.read_text() == document.text, "the course file is never written"

    async def test_ctrl_o_opens_a_file_by_its_path(self, tmp_path: Path) -> None:
        other = tmp_path / "other.py"
        other.write_text("z.cos()\n")
        app = make_app(snippet_link())
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("ctrl+o")
            await answer_prompt(pilot, str(tmp_path / "missing.py"))
            assert "no such file" in shown_text(app.screen.query_one("#prompt-problem"))
            await answer_prompt(pilot, str(other))
            await wait_for(pilot, lambda: isinstance(app.focused, SnippetTextArea))
            assert text_area(app).text == "z.cos()\n"
            assert open_document(app).origin == other.resolve()


class TestChangesOnDisk:
    """A file open in the editor is watched: a change made elsewhere comes in, unless edits would be lost."""

    async def test_the_editor_reloads_a_file_changed_on_disk(self, tmp_path: Path) -> None:
        async with editing_own_file(tmp_path) as (mine, app, pilot):
            mine.write_text("a.relu() + b.sigmoid()\n")
            await wait_for(pilot, lambda: text_area(app).text == "a.relu() + b.sigmoid()\n", what="the reload")
            assert any("Reloaded" in message for message in notifications(app))
            assert open_document(app).path.read_text() == "a.relu() + b.sigmoid()\n", "the draft follows"

    async def test_unsaved_edits_are_not_clobbered(self, tmp_path: Path) -> None:
        async with editing_own_file(tmp_path) as (mine, app, pilot):
            await pilot.press("end")
            await type_text(pilot, " * 3")
            mine.write_text("something else entirely\n")
            await wait_for(pilot, lambda: any("changed on disk" in m for m in notifications(app)))
            assert text_area(app).text == "a.relu() * 3\n"
            assert mine.read_text() == "something else entirely\n"


class TestDrafts:
    """Nothing typed is lost: the draft is written as one types, and offered back on the next start."""

    async def test_typing_writes_the_draft_after_a_pause(self) -> None:
        app = make_app(snippet_link())
        async with app.run_test(size=WIDE) as pilot:
            await new_snippet(pilot, "(b - c).abs()")
            draft = open_document(app).path
            await wait_for(pilot, lambda: draft.read_text() == "(b - c).abs()", what="the autosave")

    async def test_quitting_from_the_editor_writes_what_was_just_typed(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(SnippetWorkbench, "AUTOSAVE_DELAY_S", 60.0)  # no autosave: only the quit writes
        app = make_app(snippet_link())
        async with app.run_test(size=WIDE) as pilot:
            await new_snippet(pilot, "(a - b).square()")
            draft = open_document(app).path
            assert draft.read_text() == TEMPLATE
            await pilot.press("ctrl+q")
        assert draft.read_text() == "(a - b).square()"
        assert DraftStore().left_behind()[0][0].path == draft

    async def test_a_draft_left_by_a_quit_is_offered_back_and_restored(self) -> None:
        app = make_app(snippet_link())
        async with app.run_test(size=WIDE) as pilot:
            await new_snippet(pilot, "(a * b).sum()")
            draft = open_document(app).path
            await pilot.press("escape", "q")
        assert draft.read_text() == "(a * b).sum()"
        app = make_app(snippet_link())
        async with app.run_test(size=WIDE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, RestoreDraftsScreen), what="the offer")
            offered = app.screen.query_one("#restore-list", OptionList)
            assert offered.option_count == 1 and "(a * b).sum()" in str(offered.get_option_at_index(0).prompt)
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.focused, SnippetTextArea))
            assert text_area(app).text == "(a * b).sum()"
            assert open_document(app).path == draft

    async def test_a_draft_left_by_a_crash_is_offered_back(self) -> None:
        draft = crashed_draft("x.tanh()\n")
        app = make_app(snippet_link())
        async with app.run_test(size=SMALL) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, RestoreDraftsScreen))
            await pilot.press("escape")  # later: it stays in the list
            titles = [entry.title for entry in explorer(app).catalog.entries]
            assert "✎ x.tanh()" in titles
            await pilot.press("end", "e")
            await wait_for(pilot, lambda: explorer(app).session.document is not None)
            assert open_document(app).path == draft.path
            assert tab_shown(app) == "editor"

    async def test_x_discards_a_draft_for_good(self) -> None:
        draft = crashed_draft("x.tanh()\n")
        app = make_app(snippet_link())
        async with app.run_test(size=WIDE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, RestoreDraftsScreen))
            await pilot.press("x")
            await wait_for(pilot, lambda: isinstance(app.screen, ExplorerScreen))
            assert not draft.path.exists()
            assert len(explorer(app).catalog.entries) == 2

    async def test_an_untouched_template_leaves_nothing_behind(self) -> None:
        app = make_app(snippet_link())
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("ctrl+n")
            await wait_for(pilot, lambda: explorer(app).session.document is not None)
        assert DraftStore().drafts() == []
        app = make_app(snippet_link())
        async with app.run_test(size=WIDE) as pilot:
            await pilot.pause(0.2)
            assert isinstance(app.screen, ExplorerScreen)

    async def test_a_saved_snippet_is_not_offered_back(self) -> None:
        app = make_app(snippet_link())
        async with app.run_test(size=WIDE) as pilot:
            await new_snippet(pilot, "y.exp()\n")
            await pilot.press("ctrl+s")
            await answer_prompt(pilot, None)
            await wait_for(pilot, lambda: (snippets_dir() / "snippet.py").exists())
        assert DraftStore().drafts() == []


def no_space(path: Path, data: str | bytes) -> None:
    """The state folder's disk is full: every write there fails as a full disk does."""
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))


class TestDiskFull:
    """The draft cannot be written while the learner types: told at once, the text kept in a file named on screen;
    with no file at all, quitting asks first. (The writes fail by the app's own file IO raising ``ENOSPC``: a full
    disk cannot be made unprivileged here.)"""

    async def test_the_text_goes_to_a_file_in_tmpdir_named_on_screen_and_back_to_its_draft_when_there_is_room(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))  # $TMPDIR, read once by tempfile
        app = make_app(snippet_link())
        async with app.run_test(size=WIDE) as pilot:
            await new_snippet(pilot, "a.exp()\n")
            draft = open_document(app).path
            await wait_for(pilot, lambda: draft.read_text() == "a.exp()\n", what="the draft written")
            kept = tmp_path / "tmp" / RESCUE_FOLDER / f"{os.getpid()}-{draft.name}"
            with pytest.MonkeyPatch.context() as full:
                full.setattr(drafts, "write_atomic", no_space)
                await type_text(pilot, "(b)")
                await wait_for(pilot, lambda: kept.exists(), what="the text kept in $TMPDIR")
                said = f"Your text is kept in {kept}: the draft cannot be written (No space left on device)"
                assert said in notifications(app), "told at once, naming the file"
                assert note(app).strip().startswith("✗ your text is kept in")  # the path, as far as the pane shows it
                assert kept.read_text() == text_area(app).text == "a.exp()\n(b)"
                assert draft.read_text() == "a.exp()\n"
                await type_text(pilot, "c")
                await wait_for(pilot, lambda: kept.read_text() == "a.exp()\n(b)c", what="the copy kept up")
                assert notifications(app).count(said) == 1, "said once, not at every autosave"
            await type_text(pilot, "d")
            await wait_for(pilot, lambda: draft.read_text() == "a.exp()\n(b)cd", what="the draft written again")
            assert any(message.startswith("The draft is written again") for message in notifications(app))
            assert "✗" not in note(app)
            with pytest.MonkeyPatch.context() as full:
                full.setattr(drafts, "write_atomic", no_space)
                await type_text(pilot, "e")
                await wait_for(pilot, lambda: kept.read_text() == "a.exp()\n(b)cde", what="the copy")
                await pilot.press("ctrl+q")
                await pilot.pause(0.2)
        assert app.return_code == 0
        assert kept.read_text() == "a.exp()\n(b)cde", "quitting kept the text where the screen said"
        assert str(kept) in capsys.readouterr().err.replace("\n", ""), "and the terminal says where"

    async def test_with_no_file_to_hold_the_text_ctrl_q_asks_before_losing_it(self, tmp_path: Path) -> None:
        app = make_app(snippet_link())
        async with app.run_test(size=WIDE) as pilot:
            await new_snippet(pilot, "a.exp()\n")
            with pytest.MonkeyPatch.context() as full:
                full.setattr(drafts, "write_atomic", no_space)
                full.setattr(rescue, "write_atomic", no_space)  # $TMPDIR full too
                await type_text(pilot, "(b)")
                await wait_for(pilot, lambda: any("only here" in said for said in notifications(app)), what="told")
                assert note(app).strip().startswith("✗ your text is only here: no file can be written (No space")
                typed = text_area(app).text
                assert "(b)" in typed
                await pilot.press("ctrl+q")
                await wait_for(pilot, lambda: isinstance(app.screen, QuitAnywayScreen), what="the question")
                await pilot.press("escape")
                await wait_for(pilot, lambda: isinstance(app.screen, ExplorerScreen), what="back in the editor")
                assert app.return_code is None and text_area(app).text == typed
                await pilot.press("escape", "q")  # out of the text, the explorer's own quit key asks too
                await wait_for(pilot, lambda: isinstance(app.screen, QuitAnywayScreen), what="the question again")
                await pilot.press("enter")
                await pilot.pause(0.2)
        assert app.return_code == 0


class TestKeysOnTheirWay:
    """A key reaches the text area at once and the snippet session two messages later. Whatever acts in between
    (the autosave's timer, a run, a file reloaded) acts on the text on screen, key included. Each test puts the
    key in the text area and acts before yielding to the event loop: the moment a busy box stretches."""

    async def test_a_failing_autosave_in_between_keeps_the_key(self) -> None:
        app = make_app(snippet_link())
        async with app.run_test(size=WIDE) as pilot:
            await new_snippet(pilot, "a.exp()\n")
            with pytest.MonkeyPatch.context() as full:
                full.setattr(drafts, "write_atomic", no_space)
                full.setattr(rescue, "write_atomic", no_space)
                text_area(app).insert("(")
                explorer(app).snippets._write_draft()  # as its timer does; it fills the editor to say why
                await wait_for(pilot, lambda: "only here" in note(app), what="told")
                await type_text(pilot, "b)")
                assert text_area(app).text == open_document(app).text == "a.exp()\n(b)"

    async def test_a_run_in_between_runs_the_key_and_writes_it_to_the_draft_later(self) -> None:
        app = make_app(snippet_link())
        async with app.run_test(size=WIDE) as pilot:
            await new_snippet(pilot, "a.exp()\n")
            await wait_for(pilot, lambda: open_document(app).path.read_text() == "a.exp()\n", what="the draft")
            text_area(app).insert("b")
            explorer(app).snippets.run_snippet(False)
            assert open_document(app).path.read_text() == "a.exp()\nb", "the run's file holds the key"
            text_area(app).insert("c")
            explorer(app).snippets.run_ended(explorer(app).runs[open_document(app).path])
            await wait_for(pilot, lambda: open_document(app).path.read_text() == "a.exp()\nbc", what="autosaved")
            assert text_area(app).text == "a.exp()\nbc"

    async def test_a_file_changed_on_disk_in_between_does_not_replace_the_key(self, tmp_path: Path) -> None:
        async with editing_own_file(tmp_path) as (mine, app, pilot):
            await pilot.pause(0.2)  # every message of the opening is in: the session has the text the area has
            text_area(app).insert("b")
            mine.write_text("something else entirely\n")
            explorer(app).snippets._poll_origin()  # as its timer does
            await wait_for(pilot, lambda: any("changed on disk" in m for m in notifications(app)))
            assert text_area(app).text == open_document(app).text == "ba.relu()\n"
