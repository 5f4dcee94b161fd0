"""Drafts, the folders they live in, and noticing a file change on disk: no app, no Textual."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kernel_tui.ui.link.state_folder import STATE_DIR_ENV, state_dir
from kernel_tui.ui.state.snippets.drafts import (
    SNIPPETS_DIR_ENV,
    TEMPLATE,
    Draft,
    DraftStore,
    drafts_dir,
    snippets_dir,
)
from kernel_tui.ui.state.snippets.file_watch import FileWatch
from kernel_tui.ui.state.snippets.snippet_doc import SnippetDocument


def test_folders_follow_the_environment_and_default_to_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))
    monkeypatch.setenv(SNIPPETS_DIR_ENV, str(tmp_path / "snips"))
    assert drafts_dir() == tmp_path / "state" / "drafts"
    assert snippets_dir() == tmp_path / "snips"
    monkeypatch.delenv(STATE_DIR_ENV)
    monkeypatch.delenv(SNIPPETS_DIR_ENV)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    assert snippets_dir() == tmp_path / "home" / "kernel-tui"
    assert state_dir() == tmp_path / "home" / ".local" / "state" / "kernel-tui"
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert state_dir() == tmp_path / "xdg" / "kernel-tui"


def test_drafts_are_numbered_after_what_they_come_from(tmp_path: Path) -> None:
    store = DraftStore(tmp_path / "drafts")
    first = store.create(TEMPLATE)
    second = store.create("x\n", based_on=Path("scenarios/02_add_relu.py"))
    assert first.path.name == "snippet-1.py" and second.path.name == "02_add_relu-2.py"
    assert first.path.read_text() == TEMPLATE
    assert [draft.path for draft in store.drafts()] == [first.path, second.path]
    assert store.drafts()[1].based_on == Path("scenarios/02_add_relu.py").resolve()
    store.write(first, "changed\n")
    assert first.path.read_text() == "changed\n"
    store.discard(first)
    assert not first.path.exists() and not first.meta_path.exists()


def test_unsaved_means_text_no_file_holds(tmp_path: Path) -> None:
    mine = tmp_path / "mine.py"
    mine.write_text("a.relu()\n")
    assert not Draft(tmp_path / "d.py").unsaved(TEMPLATE), "the template untouched is nothing typed"
    assert not Draft(tmp_path / "d.py").unsaved("  \n")
    assert Draft(tmp_path / "d.py").unsaved("a.exp()\n")
    assert not Draft(tmp_path / "d.py", origin=mine).unsaved("a.relu()\n")
    assert Draft(tmp_path / "d.py", origin=mine).unsaved("a.relu() * 2\n")
    assert not Draft(tmp_path / "d.py", based_on=mine).unsaved("a.relu()\n")


def test_left_behind_skips_drafts_a_live_process_holds(tmp_path: Path) -> None:
    store = DraftStore(tmp_path)
    ours = store.create("ours()\n")
    clean = store.create(TEMPLATE)
    held = store.create("held()\n")
    store._write_meta(Draft(held.path, pid=os.getppid()))  # the test runner's parent: alive
    crashed = store.create("crashed()\n")
    process = subprocess.Popen([sys.executable, "-c", ""])
    process.wait()
    store._write_meta(Draft(crashed.path, pid=process.pid))
    unsaved, left_clean = store.left_behind()
    assert [draft.path for draft in unsaved] == [ours.path, crashed.path]
    assert [draft.path for draft in left_clean] == [clean.path]
    assert store.claim(unsaved[1]).pid == os.getpid()


def test_a_document_lists_as_a_draft_and_knows_what_is_saved(tmp_path: Path) -> None:
    mine = tmp_path / "mine.py"
    mine.write_text('"""Mine"""\ndef fn(a):\n    return a\n')
    store = DraftStore(tmp_path / "drafts")
    draft = store.create(mine.read_text(), origin=mine)
    document = SnippetDocument.opened(draft, mine.read_text())
    assert document.entry().title == "✎ Mine" and document.entry().user_file
    assert not document.unsaved and not document.needs_writing
    document.text += "# more\n"
    assert document.unsaved and document.needs_writing
    document.text = "t = (\n"
    assert document.entry().read_error is not None, "a draft that does not parse still lists, with why"


def test_file_watch_reports_each_change_once(tmp_path: Path) -> None:
    path = tmp_path / "watched.py"
    path.write_text("one\n")
    watch = FileWatch(path)
    assert not watch.poll()
    path.write_text("two, longer\n")
    assert watch.poll()
    assert not watch.poll()
    path.write_text("three, ours\n")
    watch.seen()
    assert not watch.poll()
    path.unlink()
    assert not watch.poll(), "a removed file is not a change to load"


def test_a_write_that_fails_leaves_no_partial_file(tmp_path: Path) -> None:
    """A draft's write that fails (here its rename, onto a folder in the way) takes its partial file with it: on a
    full disk that file would hold the very room the next try needs."""
    from kernel_tui.model.storage.atomic_write import write_atomic

    target = tmp_path / "snippet-1.py"
    (target / "in the way").mkdir(parents=True)
    with pytest.raises(OSError):
        write_atomic(target, "a.exp()\n")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["snippet-1.py"]
