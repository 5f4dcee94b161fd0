"""Shared set-up for the snippet editor's tests (no tests here): a stand-in engine that notes what it was asked
to run and replays a real recording for it, faster timers, and the keys a learner presses in the editor."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widgets import Input

from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.link.engine_link import CompileVariants
from kernel_tui.ui.link.run_lifecycle import RunMessages
from kernel_tui.ui.screens.dialogs.prompt import PromptScreen
from kernel_tui.ui.screens.snippets import SnippetWorkbench
from kernel_tui.ui.state.snippets.drafts import Draft, DraftStore
from kernel_tui.ui.state.snippets.snippet_doc import SnippetDocument
from kernel_tui.ui.widgets.snippet_editor import SnippetEditor
from kernel_tui.ui.widgets.snippet_text import SnippetTextArea
from support.replay import ReplayEngineLink
from support.ui_support import DATA, RECORDINGS, explorer, shown_text, wait_for

WIDE = (160, 48)
SMALL = (80, 24)
TYPO = DATA / "ui_snippet_typo_messages.json"
SYNTAX = DATA / "ui_snippet_syntax_messages.json"
ADD_RELU_RECORDING = "ui_add_relu.py"


@dataclass
class SnippetLink(ReplayEngineLink):
    """Replays the recording named by ``plays`` for any file, and notes (path, size, text) of each run."""

    plays: str = ADD_RELU_RECORDING
    asked: list[tuple[Path, int | None, str]] = field(default_factory=list)

    def run(
        self, path: Path, *, sweep: bool, size: int | None = None, variants: CompileVariants | None = None
    ) -> RunMessages:
        path = Path(path)
        self.asked.append((path, size, path.read_text(encoding="utf-8")))
        self.recordings[path.name] = self.recordings[self.plays]
        return super().run(path, sweep=sweep, size=size, variants=variants)


def snippet_link(plays: str = ADD_RELU_RECORDING) -> SnippetLink:
    return SnippetLink.from_files(*RECORDINGS, TYPO, SYNTAX, plays=plays)


@pytest.fixture(autouse=True)
def quick_timers(monkeypatch: pytest.MonkeyPatch) -> None:
    # The same debounce and polling, only faster, so the tests need not wait whole seconds.
    monkeypatch.setattr(SnippetWorkbench, "AUTOSAVE_DELAY_S", 0.05)
    monkeypatch.setattr(SnippetWorkbench, "WATCH_INTERVAL_S", 0.05)


def editor(app: KernelTuiApp) -> SnippetEditor:
    return explorer(app).query_one("#editor", SnippetEditor)


def text_area(app: KernelTuiApp) -> SnippetTextArea:
    return explorer(app).query_one("#snippet-text", SnippetTextArea)


def note(app: KernelTuiApp) -> str:
    return shown_text(editor(app).query_one("#editor-note"))


async def type_text(pilot: Pilot[None], text: str) -> None:
    await pilot.press(*("enter" if char == "\n" else char for char in text))


async def paste_text(pilot: Pilot[None], text: str) -> None:
    """Paste ``text`` as a terminal's bracketed paste delivers it: one event, through the app to the focused widget.
    Tests about typing itself (indents, drafts, keys in flight) type key by key; the rest paste, as most code
    reaches an editor, at a key's CPU (Textual lays the whole screen out again as a line grows) once."""
    if text:
        pilot.app.post_message(events.Paste(text))
    await pilot.pause()


async def replace_text(pilot: Pilot[None], text: str) -> None:
    """Select everything in the editor (f7) and paste ``text`` over it."""
    await pilot.press("f7", "delete")
    await paste_text(pilot, text)


async def new_snippet(pilot: Pilot[None], text: str) -> None:
    """A new snippet (ctrl+n) holding ``text`` alone, pasted over the template."""
    await pilot.press("ctrl+n")
    await wait_for(pilot, lambda: isinstance(pilot.app.focused, SnippetTextArea), what="the editor focused")
    await replace_text(pilot, text)


def open_document(app: KernelTuiApp) -> SnippetDocument:
    """The document open in the editor, which the test expects there is."""
    shown = explorer(app).session.document
    assert shown is not None, "no document is open in the editor"
    return shown


def run_done(app: KernelTuiApp) -> bool:
    document = explorer(app).session.document
    run = explorer(app).runs.get(document.path) if document is not None else None
    return run is not None and not run.running


async def answer_prompt(pilot: Pilot[None], value: str | None) -> None:
    """Type ``value`` over what the prompt suggests and press enter (None: accept the suggestion)."""
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, PromptScreen), what="the prompt")
    if value is not None:
        pilot.app.screen.query_one(Input).value = value  # typing it key by key is Textual's business
    await pilot.press("enter")


def notifications(app: KernelTuiApp) -> list[str]:
    return [notification.message for notification in app._notifications]


def crashed_draft(text: str) -> Draft:
    """What a crash leaves: a draft held by a process that no longer exists."""
    store = DraftStore()
    draft = store.create(text)
    store._write_meta(type(draft)(draft.path, pid=dead_pid()))
    return draft


def dead_pid() -> int:
    """The id of a process that has exited."""
    process = subprocess.Popen([sys.executable, "-c", ""])
    process.wait()
    return process.pid


async def run_a_syntax_error(app: KernelTuiApp, pilot: Pilot[None]) -> str:
    """Type a snippet with an unclosed parenthesis on line 1 and run it; returns what was typed."""
    typed = "t = (a + b\nt.relu()"
    await new_snippet(pilot, typed)
    await pilot.press("ctrl+r")
    await wait_for(pilot, lambda: run_done(app))
    return typed
