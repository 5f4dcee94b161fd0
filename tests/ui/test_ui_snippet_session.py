"""The snippet session on its own, without an App: open, edit, save, reload, restore and quit.

Each test builds a ``Catalog`` of real scenario files and a ``DraftStore`` in a temporary folder, calls the
session and checks the files, the list and the effects it hands the screen.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel_tui.ui.state.course.catalog import Catalog, load_catalog
from kernel_tui.ui.state.snippets.drafts import TEMPLATE, DraftStore
from kernel_tui.ui.state.snippets.session_effects import RestoreDecision, Shown
from kernel_tui.ui.state.snippets.snippet_doc import DRAFT_MARK
from kernel_tui.ui.state.snippets.snippet_session import SnippetSession, parse_size, size_text

SCENARIO = '''"""Mine

My own lesson.
"""
import torch


def fn(a):
    return a.exp()


def inputs(size, device):
    return (torch.randn(size, device=device),)
'''


@pytest.fixture
def mine(tmp_path: Path) -> Path:
    path = tmp_path / "mine.py"
    path.write_text(SCENARIO)
    return path


@pytest.fixture
def session(tmp_path: Path, mine: Path) -> SnippetSession:
    return SnippetSession(Catalog(load_catalog([mine], course=None)), DraftStore(tmp_path / "drafts"))


def test_a_new_snippet_is_listed_selected_and_shown_in_the_editor(session: SnippetSession) -> None:
    session.new()
    document = session.document
    assert document is not None and document.text == TEMPLATE and document.path.read_text() == TEMPLATE
    assert session.catalog.current.path == document.path and session.catalog.index == 1
    assert session.catalog.current.title.startswith(DRAFT_MARK)
    effects = session.take_effects()
    assert effects.shown is Shown.EVERYTHING and effects.fill_editor and effects.focus_editor
    assert session.take_effects().shown is Shown.NOTHING, "effects are handed over once"


def test_edits_reach_the_draft_when_written_and_the_title_follows(session: SnippetSession) -> None:
    session.new()
    session.take_effects()
    assert session.edited('"""Renamed"""\na.relu()\n', (1, 0))
    assert not session.edited('"""Renamed"""\na.relu()\n', (1, 3)), "a cursor move is not an edit"
    assert session.document is not None and session.document.cursor == (1, 3)
    assert session.document.path.read_text() == TEMPLATE, "nothing is written before the draft is"
    session.write_draft()
    assert session.document.path.read_text() == '"""Renamed"""\na.relu()\n'
    assert session.catalog.current.title == DRAFT_MARK + "Renamed"
    assert session.take_effects().shown is Shown.SCENARIO


def test_editing_the_learners_file_takes_its_place_in_the_list(session: SnippetSession, mine: Path) -> None:
    session.edit_current()
    document = session.document
    assert document is not None and document.origin == mine.resolve()
    assert session.catalog.paths() == [document.path], "the list holds the file once: as its draft"
    session.edited(SCENARIO.replace("exp", "sin"), (0, 0))
    session.save()
    assert mine.read_text() == SCENARIO.replace("exp", "sin") and not document.unsaved
    assert [notice.message for notice in session.take_effects().notices] == [f"Saved {mine}"]


def test_saving_a_copy_somewhere_new_makes_it_the_file_it_edits(session: SnippetSession, tmp_path: Path) -> None:
    session.copy_current()
    document = session.document
    assert document is not None and document.origin is None and not session.save()
    target = tmp_path / "saved" / "copy.py"
    session.save_to(target)
    assert target.read_text() == SCENARIO and document.origin == target.resolve()


def test_a_change_on_disk_reloads_unless_it_would_lose_edits(session: SnippetSession, mine: Path) -> None:
    session.edit_current()
    session.take_effects()
    document = session.document
    assert document is not None and document.watch is not None
    mine.write_text(SCENARIO.replace("exp", "cos"))
    # The watch compares mtimes: the same second would go unseen. (An instance's method replaced on purpose.)
    document.watch.poll = lambda: True  # type: ignore[method-assign]
    assert not session.poll_origin()
    assert document.text == SCENARIO.replace("exp", "cos") and session.take_effects().fill_editor
    session.edited(SCENARIO.replace("exp", "tan"), (0, 0))
    mine.write_text(SCENARIO.replace("exp", "abs"))
    assert session.poll_origin(), "the file changed under unsaved edits: the titles say so"
    assert document.text == SCENARIO.replace("exp", "tan"), "the edits are kept"
    assert session.take_effects().notices[0].severity == "warning"


def test_quitting_keeps_only_the_drafts_with_something_unsaved(session: SnippetSession, tmp_path: Path) -> None:
    session.new()
    untouched = session.document
    session.new()
    typed = session.document
    assert untouched is not None and typed is not None
    session.edited("a.sigmoid()\n", (0, 0))
    session.close()
    assert not untouched.path.exists() and typed.path.read_text() == "a.sigmoid()\n"

    later = SnippetSession(Catalog(load_catalog([tmp_path / "mine.py"], course=None)), session.drafts)
    assert later.start(), "the unsaved draft is offered back"
    assert typed.path in later.catalog.paths()
    (choice,) = later.restore_choices()
    later.restore(RestoreDecision(discard=[choice.path]))
    assert not typed.path.exists() and later.catalog.paths() == [tmp_path / "mine.py"]
    assert later.take_effects().dropped == [typed.path]


def test_sizes_are_read_as_typed_and_said_per_document(session: SnippetSession) -> None:
    assert size_text(None) == "size: each scenario's own"
    assert size_text(parse_size("2**12")) == "size 4,096" and parse_size(" ") is None
    session.new()
    assert size_text(None, session.document) == "size 1,048,576", "the snippet's own SIZE (the default)"
    with pytest.raises(ValueError, match="at most"):
        parse_size("2**40")
