"""The explorer's snippet workbench: the learner's own code, edited, run, saved and never lost.

The logic (which document is open, its draft, saving, restoring) is the ``SnippetSession``'s; this is its
Textual side: the prompts, the timers (the draft is written a second after typing stops; a file open in
the editor is watched for changes on disk), and the editor pane. Running writes the text to the draft
and runs that file through the explorer's own run path, so the results fill the same tables, summary and
chart as any scenario. Errors come back naming the draft and the learner's own line: the line is marked
in the editor, the text left exactly as it was.

The workbench is a plain object the explorer screen builds and calls: it reaches the screen only through
``SnippetHost``, the few things it needs from it.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from rich.text import Text
from textual.screen import Screen
from textual.timer import Timer

from kernel_tui.model.names.safe_text import safe_line, safe_text
from kernel_tui.ui.state.run_state import RunBook, RunStatus, ScenarioRun
from kernel_tui.ui.state.snippets.drafts import read_text, shown_path, snippets_dir
from kernel_tui.ui.state.snippets.snippet_session import SnippetSession, parse_size, size_text
from kernel_tui.ui.widgets.snippet_editor import DETAILS_KEY_SHOWN, SnippetEditor

if TYPE_CHECKING:
    from kernel_tui.model.report.report import ScenarioError
    from kernel_tui.ui.state.snippets.session_effects import Effects, RestoreDecision
    from kernel_tui.ui.state.snippets.snippet_doc import SnippetDocument

# The dialogs (and Textual's Input) are imported when first needed: the first frame does without them.


T = TypeVar("T")


class SnippetHost(Protocol):
    """What the workbench needs from the screen it works on."""

    run_size: int | None
    """The size every run asks for; None: each scenario's own SIZE."""

    def notify(self, message: str, *, severity: Any = ..., timeout: float | None = ...) -> None: ...

    def set_timer(self, delay: float, callback: Callable[[], object]) -> Timer: ...

    def set_interval(self, interval: float, callback: Callable[[], object]) -> Timer: ...

    def call_after_refresh(self, callback: Callable[[], object]) -> bool: ...

    def push_dialog(self, dialog: Screen[Any], answered: Callable[[Any], None] | None = None) -> None:
        """Show a dialog over the screen; ``answered`` gets its result."""

    def editor_pane(self) -> SnippetEditor | None:
        """The editor, once its pane is mounted."""

    def session_changed(self, effects: Effects) -> None:
        """Show what a session call changed (the list, the scenario on screen) and tell the learner."""

    def show_editor_pane(self) -> None:
        """Show and focus the editor's pane."""

    def keys_wait_for(self, widget_id: str) -> None:
        """Keys pressed from now on go to the widget ``widget_id`` of a dialog about to open, once it has the focus."""

    def run_scenario(self, sweep: bool) -> None:
        """Run the scenario on screen, as r (or s) does."""


class SnippetWorkbench:
    """The editor's prompts, timers and pane, over a ``SnippetSession``."""

    AUTOSAVE_DELAY_S = 1.0
    """Seconds after the last keystroke before the draft is written."""
    WATCH_INTERVAL_S = 1.0
    """How often a file open in the editor is checked for changes on disk."""
    STILL_RUNNING_S = 3.0
    """Seconds after which the note under a running snippet says it is still running."""
    RUNNING_NOTE_INTERVAL_S = 1.0
    """How often the note under a running snippet counts its seconds."""

    def __init__(self, host: SnippetHost, session: SnippetSession, runs: RunBook, clock: Callable[[], float]) -> None:
        self.host = host
        self.session = session
        self.runs = runs
        self.clock = clock
        self._autosave: Timer | None = None
        self._watching: Timer | None = None
        self._filled_with: SnippetDocument | None = None
        """The document whose text the editor was last filled with: what its text area holds, typed on since."""

    @property
    def document(self) -> SnippetDocument | None:
        return self.session.document

    def start(self, *, offer_drafts: bool = True) -> None:
        """On mount: offer back the drafts an earlier session left unsaved (not where nothing can run them)."""
        self.host.set_interval(self.RUNNING_NOTE_INTERVAL_S, self._show_running)
        offer = self.session.start()
        self._apply()
        if offer and offer_drafts:
            # Keys typed before the offer is on screen are its: it is the first thing the learner sees.
            self.host.keys_wait_for("restore-list")
            self.host.call_after_refresh(self.restore_drafts)

    def close(self) -> None:
        """Quitting: the draft is written and the drafts holding nothing unsaved removed."""
        self._catch_up()
        self._stop_autosave()
        self.session.close()

    def text_at_risk(self) -> str | None:
        """Before quitting: the draft is written now; what quitting would lose (text no file holds), else None."""
        self._write_draft()
        document = self.document
        if document is None or not document.only_in_memory:
            return None
        return f"The snippet's draft cannot be written ({document.unwritable}), nor a copy of it: it is only in memory."

    def kept_elsewhere(self) -> str | None:
        """After quitting: where the text went, when it is not in its draft (said on the terminal once the app ends)."""
        document = self.document
        if document is None or document.kept_at is None or not document.needs_writing:
            return None
        return (
            f"kernel-tui: the draft could not be written ({document.unwritable}); your snippet is in {document.kept_at}"
        )

    def _change(self, change: Callable[[], T]) -> T:
        """A session call that changes the document: the pending autosave is dropped first, the effects shown
        after."""
        self._catch_up()
        self._stop_autosave()
        result = change()
        self._apply()
        return result

    def _apply(self) -> None:
        """After a session call: show what changed, and keep the file the editor edits watched."""
        effects = self.session.take_effects()
        document = self.document
        if document is not None and document.origin is not None and self._watching is None:
            self._watching = self.host.set_interval(self.WATCH_INTERVAL_S, self._poll_origin)
        self.host.session_changed(effects)
        if effects.fill_editor:
            self.fill_editor()
        if effects.focus_editor:
            self.host.show_editor_pane()

    def enabled(self, action: str) -> bool | None:
        """Whether one of the editor's actions can run now; None: not one of them."""
        if action in ("run_snippet", "save_snippet", "save_snippet_as"):
            return self.document is not None
        if action == "restore_drafts":
            return any(self.session.restorable())
        return None

    def run_ended(self, run: ScenarioRun) -> None:
        """A run of the editor's draft ended: its error (if any) goes under the text, its line marked."""
        self._catch_up()
        if self.session.run_ended(run):
            cancelled = Text("○ cancelled: the engine was stopped · ^r runs it again", style="dim")
            self.fill_editor(note=cancelled if run.status is RunStatus.CANCELLED else None)

    # -- actions -----------------------------------------------------------------------------------

    def new_snippet(self) -> None:
        self._change(self.session.new)

    def edit_scenario(self) -> None:
        self._change(self.session.edit_current)

    def copy_scenario(self) -> None:
        self._change(self.session.copy_current)

    def open_file(self) -> None:
        """Ask for a scenario file's path, then edit it."""
        from kernel_tui.ui.screens.dialogs.prompt import PromptScreen

        def check(value: str) -> str | None:
            if not value:
                return "type the path of a scenario file"
            path = _typed_path(value)
            if path.is_dir():
                return f"{value} is a folder: type a file's path"
            if not path.is_file():
                return f"no such file: {value}"
            if read_text(path) is None:
                return f"cannot read {value} as text"
            return None

        def opened(value: str | None) -> None:
            if value:
                self._change(partial(self.session.open_file, _typed_path(value)))

        folder = snippets_dir()
        self.host.push_dialog(
            PromptScreen(
                "Open a scenario file in the editor",
                shown_path(folder) + os.sep if folder.is_dir() else "",
                help="A scenario file (fn and inputs) or a snippet (a bare expression). ~ is your home.",
                placeholder="path/to/scenario.py",
                check=check,
            ),
            opened,
        )

    def run_snippet(self, sweep: bool) -> None:
        """Write the editor's text to its draft and run that, as r (or s) runs any scenario."""
        self._catch_up()
        self._stop_autosave()
        if self.session.prepare_run() is None:
            return
        self._apply()
        self.host.run_scenario(sweep)
        self.fill_editor(note=self._running_note())

    def save_snippet(self) -> None:
        """Save to the file the editor edits; the first time, ask where."""
        saved = self._change(self.session.save)
        if not saved:
            self.save_snippet_as()

    def save_snippet_as(self) -> None:
        """Ask for a path (the snippets folder by default) and save there."""
        from kernel_tui.ui.screens.dialogs.prompt import PromptScreen

        document = self.document
        if document is None:
            return

        def check(value: str) -> str | None:
            if not value:
                return "type a path to save to"
            path = _typed_path(value)
            if path.is_dir():
                return f"{value} is a folder: add a file name ending in .py"
            if path.suffix != ".py":
                return "a scenario file's name ends in .py"
            return None

        def confirm(value: str) -> str | None:
            path = _typed_path(value)
            if path.exists() and path != document.origin:
                return f"{value} exists: saving replaces it"
            return None

        def chosen(value: str | None) -> None:
            if value:
                self._save_to(_typed_path(value))

        self.host.push_dialog(
            PromptScreen(
                "Save the snippet as a scenario file",
                shown_path(self.session.default_save_path(document)),
                help=f"Default folder: {shown_path(snippets_dir())} (set KERNEL_TUI_SNIPPETS_DIR to change it).",
                check=check,
                confirm=confirm,
            ),
            chosen,
        )

    def ask_size(self, chosen: Callable[[int | None], None]) -> None:
        """Ask for the size every run uses (empty: each scenario's own SIZE); ``chosen`` gets it."""
        from kernel_tui.ui.screens.dialogs.prompt import PromptScreen

        def check(value: str) -> str | None:
            try:
                parse_size(value)
            except ValueError as error:
                return str(error)
            return None

        def answered(value: str | None) -> None:
            if value is not None:
                chosen(parse_size(value))

        size = self.host.run_size
        self.host.push_dialog(
            PromptScreen(
                "Size for every run",
                "" if size is None else str(size),
                help="Elements per input tensor, e.g. 4096 or 2**20. Empty: each scenario's own SIZE "
                "(2**20 unless it says otherwise).",
                placeholder="each scenario's own SIZE",
                check=check,
            ),
            answered,
        )

    def show_editor(self) -> None:
        """Show the editor and focus it; with nothing open, a new snippet."""
        if self.session.show_open():
            self._apply()
        else:
            self.new_snippet()

    def restore_drafts(self) -> None:
        """Offer the unsaved drafts from before (and this session's, other than the open one)."""
        from kernel_tui.ui.screens.dialogs.restore_drafts import RestoreDraftsScreen

        choices = self.session.restore_choices()
        if choices:
            self.host.push_dialog(RestoreDraftsScreen(choices), self._restore_decided)

    def _restore_decided(self, decision: RestoreDecision | None) -> None:
        if decision is not None:
            self._change(partial(self.session.restore, decision))

    # -- messages from the editor ------------------------------------------------------------------

    def edited(self, text: str, cursor: tuple[int, int]) -> None:
        if (shown := self._text_shown()) is not None and shown[0] != text:
            return  # older than the text on screen, which a message of its own follows, or _catch_up took already
        if self.session.edited(text, cursor):
            self._write_draft_soon()

    def entered(self) -> None:
        self.session.entered()
        self._apply()

    def left(self) -> None:
        self._write_draft()

    def _catch_up(self) -> None:
        """The session takes the text on screen before it acts. A key reaches the text area at once but the
        session only two messages later: a timer (the autosave) or a key bound elsewhere (^r) can come between,
        and filling the editor from the session then would undo the key, running it would miss it."""
        if (shown := self._text_shown()) is not None and self.session.edited(*shown):
            self._write_draft_soon()

    def _write_draft_soon(self) -> None:
        """The text changed: the draft is written once the keys pause; the titles say at once that it changed."""
        self._stop_autosave()
        self._autosave = self.host.set_timer(self.AUTOSAVE_DELAY_S, self._write_draft)
        self.show_titles()

    def _text_shown(self) -> tuple[str, tuple[int, int]] | None:
        """The text and cursor of the open document as the text area holds them; None while it holds none, or
        another's (one just opened, not shown yet)."""
        editor = self.host.editor_pane()
        text_area = editor.text_area if editor is not None else None
        if self.document is None or self._filled_with is not self.document or text_area is None:
            return None
        return text_area.text, text_area.cursor_location

    def _write_draft(self) -> None:
        self._change(self.session.write_draft)

    def _stop_autosave(self) -> None:
        if self._autosave is not None:
            self._autosave.stop()
            self._autosave = None

    def _save_to(self, path: Path) -> None:
        self._change(partial(self.session.save_to, path))

    def _poll_origin(self) -> None:
        self._catch_up()  # edits still on their way count as unsaved: the file on disk must not replace them
        titles = self.session.poll_origin()
        if titles:
            self.show_titles()
        self._apply()

    # -- the editor pane ---------------------------------------------------------------------------

    def _titles(self, document: SnippetDocument) -> tuple[str, str]:
        unsaved = " ●" if document.unsaved else ""
        # The file it edits, once saved (ctrl+s to a new path named the draft still); else the draft.
        title = f"Editor: {safe_line((document.origin or document.path).name)}{unsaved}"
        subtitle = f"{size_text(self.host.run_size, document)} · ^r run · ^s save · esc leaves"
        return title, subtitle

    def show_titles(self) -> None:
        editor = self.host.editor_pane()
        if editor is None:
            return
        if self.document is None:
            editor.set_titles("Editor", f"ctrl+n new snippet · {size_text(self.host.run_size)}")
        else:
            editor.set_titles(*self._titles(self.document))
            if not self.document.error:
                editor.show_note(_saved_note(self.document))

    def fill_editor(self, note: Text | None = None) -> None:
        """Show the document (or the keys to open one) in the editor pane, if it is mounted."""
        editor = self.host.editor_pane()
        if editor is None:
            return
        document = self._filled_with = self.document
        if document is None:
            editor.show_empty(f"ctrl+n new snippet · {size_text(self.host.run_size)}")
            return
        error = document.error
        if note is None:
            note = error_note(error, document.path) if error is not None else _saved_note(document)
        title, subtitle = self._titles(document)
        editor.show_document(document.text, cursor=document.cursor, title=title, subtitle=subtitle, note=note)
        line = error.line if error is not None and _names(error.file, document.path) else None
        editor.mark_error(line)

    def _running_note(self) -> Text | None:
        """While the editor's snippet runs: that it does, for how long, and how to stop it."""
        document = self.document
        run = self.runs.get(document.path) if document is not None else None
        if run is None or not run.running:
            return None
        elapsed = run.elapsed(self.clock())
        stage = f" ({run.record.stage})" if run.record.stage else ""
        # Esc in the editor first leaves it: the second one reaches the explorer, which stops the engine.
        if elapsed < self.STILL_RUNNING_S:
            return Text(f"● running…{stage} · esc twice stops it", style="cyan")
        return Text(f"● still running: {elapsed:.0f} s{stage} · esc twice stops it", style="bold cyan")

    def _show_running(self) -> None:
        note = self._running_note()
        editor = self.host.editor_pane()
        if note is not None and editor is not None:
            editor.show_note(note)


def _saved_note(document: SnippetDocument) -> Text:
    if (kept := document.where_kept()) is not None:
        return Text(f"✗ {kept}", style="bold red")
    saving = "" if document.origin is not None else " · ctrl+s saves it"
    measured = measured_hint(document.text)
    return Text(f"{measured + ' · ' if measured else ''}{document.describe()}{saving}", style="dim")


def measured_hint(text: str) -> str | None:
    """For a snippet with set-up lines: which line is measured (the rest runs once, unmeasured)."""
    from kernel_tui.model.scenario.snippet import is_snippet, measured_lines

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    if not is_snippet(tree):
        return None
    first, last, has_setup = measured_lines(tree)
    if not has_setup:
        return None
    where = f"line {first}" if first == last else f"lines {first}-{last}"
    return f"measured: {where}; lines above run once as set-up"


def error_note(error: ScenarioError, path: Path) -> Text:
    """A run's error as the line under the editor: the line typed, the stage and the message."""
    # The key first: a long message is cut at the pane's edge, and the key is what gets the rest of it.
    if error.line is not None and _names(error.file, path):
        said = error.one_line(f"line {error.line}", first_line_only=True)
    else:
        said = error.short_line()
    return Text(f"✗ {DETAILS_KEY_SHOWN} details · {said}", style="bold red")


def _typed_path(value: str) -> Path:
    path = Path(os.path.expanduser(value.strip()))
    return (path if path.is_absolute() else Path.cwd() / path).resolve()


def _names(file: str | None, path: Path) -> bool:
    """Whether an error's ``file`` is ``path``. The engine names files by absolute path, as shown (``safe_text``:
    every string it sends is), so it is the shown form of ``path`` that it is compared with: the real name of a
    file holding U+202E never matched it, and the error's line was never marked."""
    if not file:
        return False
    try:
        resolved = path.resolve()
        return file in (safe_text(str(resolved)), safe_text(str(path))) or Path(file).resolve() == resolved
    except OSError:
        return False
