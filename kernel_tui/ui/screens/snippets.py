"""The explorer's snippet workbench: the learner's own code, edited, run, saved and never lost.

``SnippetWorkbench`` is mixed into ``ExplorerScreen``, which owns the data; this is the part of it that
deals with the editor. The editor holds one document at a time (``SnippetDocument``), always backed by a
draft file (``kernel_tui.ui.drafts``): running writes the text there and runs that file through the
explorer's own run path, so the results fill the same tables, summary and chart as any scenario, and the
draft appears in the scenario list as the learner's own (marked ✎). Errors come back naming the draft
and the learner's own line: the line is marked in the editor, the text left exactly as it was.

The draft is written a second after typing stops, when focus leaves the editor, before each run and on
quit; drafts with unsaved edits are offered back on the next start. A document that edits a file (opened,
or saved once) watches it: a change on disk reloads the editor, unless it has unsaved edits, which are
kept (a notification says so).

The explorer calls four hooks: ``_start_snippets`` (mounted), ``_show_snippet_pane`` (the scenario on
screen changed), ``_snippet_run_ended`` (a run finished or failed) and ``check_action`` (via ``super()``).
"""

from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.binding import Binding
from textual.timer import Timer

from kernel_tui.report import ScenarioError
from kernel_tui.scenario_file import constant_value
from kernel_tui.ui.catalog import ScenarioEntry
from kernel_tui.ui.describe import error_line
from kernel_tui.ui.drafts import (
    TEMPLATE,
    Draft,
    DraftStore,
    read_text,
    shown_path,
    snippets_dir,
    write_text_atomic,
)
from kernel_tui.ui.run_state import RunStatus, ScenarioRun
from kernel_tui.ui.snippet_doc import SnippetDocument
from kernel_tui.ui.widgets.snippet_editor import DETAILS_KEY_SHOWN, SnippetEditor

if TYPE_CHECKING:
    from kernel_tui.ui.screens.restore_drafts import RestoreDecision

# The dialogs (and Textual's Input) are imported when first needed: the first frame does without them.

MAX_SIZE = 2**31
"""Elements per tensor the size prompt accepts at most (8 GiB per float32 tensor)."""

SNIPPET_BINDINGS = [
    Binding("e", "edit_scenario", "Edit", tooltip="Edit this scenario in the editor (a course scenario: a copy)"),
    Binding("ctrl+n", "new_snippet", "New", show=False, tooltip="A new snippet in the editor: (a + b).relu()"),
    # Shown in the footer by the editor itself (its own ctrl+r and ctrl+s), here for the other panes and help.
    Binding("ctrl+r", "run_snippet(False)", "Run snippet", show=False, tooltip="Run the editor's snippet"),
    Binding("ctrl+s", "save_snippet", "Save", show=False, tooltip="Save the editor's snippet (asks where at first)"),
    Binding("ctrl+o", "open_file", "Open", show=False, tooltip="Open a scenario file in the editor (asks its path)"),
    Binding("z", "set_size", "Size", show=False, tooltip="Set the size (elements per tensor) of every run"),
    Binding("5", "show_editor", "Editor", show=False, tooltip="Show the snippet editor (a new snippet if none)"),
]
"""The explorer's keys for the editor; ctrl keys work inside the editor too (letters there are typed)."""

SNIPPET_PALETTE_ACTIONS = (
    ("New snippet", "A new snippet in the editor, from a template", "new_snippet"),
    ("Edit scenario", "Edit the scenario on screen (a course scenario: a copy of it)", "edit_scenario"),
    ("Copy scenario to a new snippet", "The scenario's code in the editor, saved nowhere yet", "copy_scenario"),
    ("Open file in the editor", "Open a scenario file by its path", "open_file"),
    ("Run snippet", "Run the editor's snippet: kernel tables", "run_snippet(False)"),
    ("Run snippet with sweep", "Run the editor's snippet and sweep its runtime against size", "run_snippet(True)"),
    ("Save snippet", "Save the editor's snippet to its file (asks where the first time)", "save_snippet"),
    ("Save snippet as", "Save the editor's snippet to a file of your choice", "save_snippet_as"),
    ("Set size", "The size (elements per tensor) every run uses", "set_size"),
    ("Restore drafts", "Unsaved snippets from earlier sessions", "restore_drafts"),
)
"""Command palette entries for the editor: (title, help, explorer action)."""

_NEEDS_DOCUMENT = frozenset({"run_snippet", "save_snippet", "save_snippet_as"})


def parse_size(text: str) -> int | None:
    """A size as typed: ``4096``, ``1_000_000`` or ``2**20``; empty means each scenario's own SIZE.

    Raises ValueError with a message for the learner.
    """
    text = text.strip()
    if not text:
        return None
    try:
        value = constant_value(ast.parse(text.replace("_", ""), mode="eval").body)
    except (SyntaxError, ValueError, TypeError, ZeroDivisionError, OverflowError) as error:
        raise ValueError(f"not a size: {text!r} (write 4096 or 2**20)") from error
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"a size is a whole number of elements, at least 1, not {text!r}")
    if value > MAX_SIZE:
        raise ValueError(f"at most 2**31 elements ({MAX_SIZE:,}) per tensor")
    return value


class SnippetWorkbench:
    """Editor state and actions for ``ExplorerScreen`` (a mixin: the explorer's data is ``self``'s)."""

    AUTOSAVE_DELAY_S = 1.0
    """Seconds after the last keystroke before the draft is written."""
    WATCH_INTERVAL_S = 1.0
    """How often a file open in the editor is checked for changes on disk."""
    STILL_RUNNING_S = 3.0
    """Seconds after which the note under a running snippet says it is still running."""
    RUNNING_NOTE_INTERVAL_S = 1.0
    """How often the note under a running snippet counts its seconds."""

    # Provided by ExplorerScreen.
    entries: list[ScenarioEntry]
    index: int
    runs: dict[Path, ScenarioRun]
    wide: bool

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.document: SnippetDocument | None = None
        """What the editor holds."""
        self.run_size: int | None = None
        """The size every run asks for; None: each scenario's own SIZE."""
        self.drafts = DraftStore()
        self._known_drafts: dict[Path, Draft] = {}
        """Drafts in the list (this session's, and unsaved ones from before), by path."""
        self._autosave: Timer | None = None
        self._watching: Timer | None = None

    # -- hooks the explorer calls ------------------------------------------------------------------

    def _start_snippets(self) -> None:
        """On mount: remove clean drafts left behind, list the unsaved ones and offer them back."""
        self.set_interval(self.RUNNING_NOTE_INTERVAL_S, self._show_running)  # type: ignore[attr-defined]
        try:
            unsaved, clean = self.drafts.left_behind()
            for draft in clean:
                self.drafts.discard(draft)
            unsaved = [self.drafts.claim(draft) for draft in unsaved]
        except OSError as error:
            self.notify(f"Could not read the drafts folder: {error}", severity="warning")
            return
        for draft in unsaved:
            self._known_drafts[draft.path] = draft
            self._put_entry(self._entry_of(draft))
        if unsaved:
            self._show_everything()
            self.call_after_refresh(self.action_restore_drafts)

    def _show_snippet_pane(self) -> None:
        """Large terminals: the editor takes the lesson's place while its document is the scenario shown."""
        document = self.document
        self.set_class(document is not None and bool(self.entries) and self.entry.path == document.path, "-editing")

    def _snippet_run_ended(self, run: ScenarioRun) -> None:
        """A run of the editor's draft ended: its error (if any) goes under the text, its line marked."""
        document = self.document
        if document is None or run.path != document.path or run.status is RunStatus.RUNNING:
            return
        document.error = run.error if run.status is RunStatus.FAILED else None
        cancelled = Text("○ cancelled: the engine was stopped · ^r runs it again", style="dim")
        self._fill_editor(note=cancelled if run.status is RunStatus.CANCELLED else None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in _NEEDS_DOCUMENT:
            return self.document is not None
        if action == "restore_drafts":
            return any(self._restorable())
        return super().check_action(action, parameters)  # type: ignore[misc]

    # -- actions -----------------------------------------------------------------------------------

    def action_new_snippet(self) -> None:
        """A new snippet from the template, the cursor on its expression."""
        draft = self._create_draft(TEMPLATE)
        if draft is not None:
            last = len(TEMPLATE.splitlines()) - 1
            self._open_document(SnippetDocument.opened(draft, TEMPLATE), cursor=(last, 0))

    def action_edit_scenario(self) -> None:
        """Edit the scenario on screen: a draft reopens, the learner's own file is edited in place, a course
        scenario is copied (saving it asks where)."""
        if not self.entries:
            return
        entry = self.entry
        if self.document is not None and entry.path == self.document.path:
            self._focus_editor()
        elif entry.path in self._known_drafts:
            self._reopen_draft(self._known_drafts[entry.path])
        elif entry.user_file:
            self._open_file(entry.path)
        else:
            self.action_copy_scenario()

    def action_copy_scenario(self) -> None:
        """The scenario's code in a new snippet that edits no file yet."""
        if not self.entries:
            return
        entry = self.entry
        if entry.path in self._known_drafts:
            draft = self._known_drafts[entry.path]
            source = draft.origin or draft.based_on
        else:
            source = entry.path
        text = read_text(entry.path)
        if text is None:
            self.notify(f"Cannot read {entry.path}", severity="error")
            return
        draft = self._create_draft(text, based_on=source)
        if draft is not None:
            self._open_document(SnippetDocument.opened(draft, text))

    def action_open_file(self) -> None:
        """Ask for a scenario file's path, then edit it."""
        from kernel_tui.ui.screens.prompt import PromptScreen

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
                self._open_file(_typed_path(value))

        folder = snippets_dir()
        self.app.push_screen(
            PromptScreen(
                "Open a scenario file in the editor",
                shown_path(folder) + os.sep if folder.is_dir() else "",
                help="A scenario file (fn and inputs) or a snippet (a bare expression). ~ is your home.",
                placeholder="path/to/scenario.py",
                check=check,
            ),
            opened,
        )

    def action_run_snippet(self, sweep: bool) -> None:
        """Write the editor's text to its draft and run that, as r (or s) runs any scenario."""
        document = self.document
        if document is None:
            return
        self._write_draft()
        self._put_entry(document.entry(), select=True)
        document.error = None
        self.action_run(sweep)  # type: ignore[attr-defined]
        self._fill_editor(note=self._running_note())

    def action_save_snippet(self) -> None:
        """Save to the file the editor edits; the first time, ask where."""
        document = self.document
        if document is None:
            return
        if document.origin is None:
            self.action_save_snippet_as()
        else:
            self._save_to(document.origin)

    def action_save_snippet_as(self) -> None:
        """Ask for a path (the snippets folder by default) and save there."""
        from kernel_tui.ui.screens.prompt import PromptScreen

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

        self.app.push_screen(
            PromptScreen(
                "Save the snippet as a scenario file",
                shown_path(self._default_save_path(document)),
                help=f"Default folder: {shown_path(snippets_dir())} (set KERNEL_TUI_SNIPPETS_DIR to change it).",
                check=check,
                confirm=confirm,
            ),
            chosen,
        )

    def action_set_size(self) -> None:
        """Ask for the size every run uses (empty: each scenario's own SIZE)."""
        from kernel_tui.ui.screens.prompt import PromptScreen

        def check(value: str) -> str | None:
            try:
                parse_size(value)
            except ValueError as error:
                return str(error)
            return None

        def chosen(value: str | None) -> None:
            if value is not None:
                self._set_run_size(parse_size(value))

        self.app.push_screen(
            PromptScreen(
                "Size for every run",
                "" if self.run_size is None else str(self.run_size),
                help="Elements per input tensor, e.g. 4096 or 2**20. Empty: each scenario's own SIZE "
                "(2**20 unless it says otherwise).",
                placeholder="each scenario's own SIZE",
                check=check,
            ),
            chosen,
        )

    def action_show_editor(self) -> None:
        """Show the editor and focus it; with nothing open, a new snippet."""
        if self.document is None:
            self.action_new_snippet()
        else:
            self._put_entry(self.document.entry(), select=True)
            self._focus_editor()

    def action_restore_drafts(self) -> None:
        """Offer the unsaved drafts from before (and this session's, other than the open one)."""
        from kernel_tui.ui.screens.restore_drafts import DraftChoice, RestoreDraftsScreen

        drafts = self._restorable()
        if not drafts:
            return
        choices = [DraftChoice(d.path, self._entry_of(d).title, self._where(d)) for d in drafts]
        self.app.push_screen(RestoreDraftsScreen(choices), self._restore_decided)

    # -- messages from the editor ------------------------------------------------------------------

    def on_snippet_editor_ready(self, message: SnippetEditor.Ready) -> None:
        self._fill_editor()

    def on_snippet_editor_edited(self, message: SnippetEditor.Edited) -> None:
        document = self.document
        if document is None:
            return
        document.cursor = message.cursor
        if message.text == document.text:
            return
        document.text = message.text
        if self._autosave is not None:
            self._autosave.stop()
        self._autosave = self.set_timer(self.AUTOSAVE_DELAY_S, self._write_draft)  # type: ignore[attr-defined]
        self._show_titles()

    def on_snippet_editor_entered(self, message: SnippetEditor.Entered) -> None:
        # The editor's document is the scenario on screen while it is being edited: its results show.
        document = self.document
        if document is not None and self.entries and self.entry.path != document.path:
            self._put_entry(document.entry(), select=True)

    def on_snippet_editor_left(self, message: SnippetEditor.Left) -> None:
        self._write_draft()

    def on_unmount(self) -> None:
        """Quitting: write the draft; drop the drafts that hold nothing unsaved. (The widgets are going.)"""
        self._write_draft(show=False)
        for draft in list(self._known_drafts.values()):
            text = self.document.text if self.document and self.document.path == draft.path else None
            text = text if text is not None else read_text(draft.path)
            if text is None or not self._current_draft(draft).unsaved(text):
                self.drafts.discard(draft)

    # -- the document ------------------------------------------------------------------------------

    def _open_document(self, document: SnippetDocument, cursor: tuple[int, int] | None = None) -> None:
        """Put ``document`` in the editor (the one there is written first and stays in the list)."""
        self._write_draft()
        if cursor is not None:
            document.cursor = cursor
        self.document = document
        self._known_drafts[document.path] = document.draft
        self._put_entry(document.entry(), select=True)
        if document.origin is not None and self._watching is None:
            self._watching = self.set_interval(self.WATCH_INTERVAL_S, self._poll_origin)  # type: ignore[attr-defined]
        self._fill_editor()
        self._focus_editor()

    def _open_file(self, path: Path) -> None:
        """Edit ``path`` itself: saving writes there, and changes made there on disk come in."""
        path = path.expanduser().resolve()
        document = self.document
        if document is not None and document.origin == path:
            self._put_entry(document.entry(), select=True)
            self._focus_editor()
            return
        for draft in self._known_drafts.values():
            if draft.origin == path:
                self._reopen_draft(draft)
                return
        text = read_text(path)
        if text is None:
            self.notify(f"Cannot read {path}", severity="error")
            return
        draft = self._create_draft(text, origin=path)
        if draft is not None:
            self._open_document(SnippetDocument.opened(draft, text))

    def _reopen_draft(self, draft: Draft) -> None:
        text = read_text(draft.path)
        if text is None:
            self.notify(f"The draft {draft.path} is gone", severity="error")
            return
        document = SnippetDocument.opened(draft, text)
        lines = text.splitlines()
        self._open_document(document, cursor=(max(0, len(lines) - 1), len(lines[-1]) if lines else 0))

    def _create_draft(self, text: str, **sources: Path | None) -> Draft | None:
        try:
            return self.drafts.create(text, **sources)
        except OSError as error:
            self.notify(f"Cannot write a draft in {self.drafts.folder}: {error}", severity="error")
            return None

    def _write_draft(self, *, show: bool = True) -> None:
        """Bring the draft file up to the editor's text (and, if ``show``, the list's title up to the text)."""
        if self._autosave is not None:
            self._autosave.stop()
            self._autosave = None
        document = self.document
        if document is None or not document.needs_writing:
            return
        try:
            self.drafts.write(document.draft, document.text)
        except OSError as error:
            self.notify(f"Could not write the draft {document.path}: {error}", severity="error")
            return
        document.written = document.text
        if show:
            self._put_entry(document.entry())

    def _save_to(self, path: Path) -> None:
        document = self.document
        if document is None:
            return
        try:
            write_text_atomic(path, document.text)
        except OSError as error:
            self.notify(f"Could not save {shown_path(path)}: {error}", severity="error")
            return
        if document.origin != path.resolve():
            document.draft = self.drafts.set_origin(document.draft, path)
            self._known_drafts[document.path] = document.draft
        if self._watching is None:
            self._watching = self.set_interval(self.WATCH_INTERVAL_S, self._poll_origin)  # type: ignore[attr-defined]
        document.watch_origin()
        self._write_draft()
        self._put_entry(document.entry())
        self._fill_editor()
        self.notify(f"Saved {shown_path(path)}")

    def _poll_origin(self) -> None:
        """Check the file the editor edits: reload a change made elsewhere, unless it would lose edits."""
        document = self.document
        if document is None or document.watch is None or document.origin is None or not document.watch.poll():
            return
        shown = shown_path(document.origin)
        text = read_text(document.origin)
        if text is None:
            self.notify(f"{shown} was removed or cannot be read: ctrl+s writes it again", severity="warning")
            return
        if text == document.text:
            document.saved = text
        elif not document.unsaved:
            document.text = document.saved = text
            document.error = None
            self._write_draft()
            self._fill_editor()
            self.notify(f"Reloaded {shown}: it changed on disk")
        else:
            document.saved = text
            self._show_titles()
            self.notify(
                f"{shown} changed on disk. Your unsaved edits are kept in the editor: ctrl+s replaces the file "
                "with them.",
                severity="warning",
                timeout=10,
            )

    def _set_run_size(self, size: int | None) -> None:
        self.run_size = size
        self.title = None if size is None else f"{self.app.title} · size {size:,}"  # type: ignore[attr-defined]
        self._show_titles()
        self.notify("Runs use each scenario's own SIZE" if size is None else f"Runs use size {size:,}")

    def _restore_decided(self, decision: RestoreDecision | None) -> None:
        if decision is None:
            return
        for path in decision.discard:
            draft = self._known_drafts.pop(path, None)
            if draft is not None:
                self.drafts.discard(draft)
                self._drop_entry(path)
        if decision.restore is not None and decision.restore in self._known_drafts:
            self._reopen_draft(self._known_drafts[decision.restore])

    def _restorable(self) -> list[Draft]:
        open_path = self.document.path if self.document is not None else None
        return [draft for path, draft in self._known_drafts.items() if path != open_path and path.exists()]

    def _current_draft(self, draft: Draft) -> Draft:
        document = self.document
        return document.draft if document is not None and document.path == draft.path else draft

    # -- showing -----------------------------------------------------------------------------------

    def _entry_of(self, draft: Draft) -> ScenarioEntry:
        return SnippetDocument(draft, read_text(draft.path) or "", written="").entry()

    def _where(self, draft: Draft) -> str:
        if draft.origin is not None:
            return f"edits {shown_path(draft.origin)}"
        if draft.based_on is not None:
            return f"a copy of {draft.based_on.name}"
        return "never saved"

    def _put_entry(self, entry: ScenarioEntry, *, select: bool = False) -> None:
        """Add the entry to the scenario list, or replace the one with its path; show it if ``select``."""
        paths = [existing.path for existing in self.entries]
        edited = self._edited_entry(entry.path, paths)
        if edited is not None and entry.path in paths:
            self._drop_entry(paths[edited])  # saved over a listed file: the list keeps the one being edited
            paths = [existing.path for existing in self.entries]
        if entry.path in paths:
            index = paths.index(entry.path)
            changed = self.entries[index] != entry
            self.entries[index] = entry
        elif edited is not None:
            # The learner's own file, now edited: its draft takes its place, so the list holds it once and
            # its title follows the text.
            index, changed = edited, True
            self.entries[index] = entry
        else:
            index, changed = len(self.entries), True
            self.entries.append(entry)
        if select and index != self.index:
            self.index = index
            self._show_everything()
        elif changed:
            self._show_marks()  # type: ignore[attr-defined]
            if index == self.index:
                self._show_scenario()  # type: ignore[attr-defined]

    def _edited_entry(self, draft_path: Path, paths: list[Path]) -> int | None:
        """Where the list holds the file the draft at ``draft_path`` edits, as a file of its own."""
        draft = self._known_drafts.get(draft_path)
        if draft is None or draft.origin is None:
            return None
        for index, path in enumerate(paths):
            if path != draft_path and path not in self._known_drafts and _same_file(path, draft.origin):
                return index
        return None

    def _drop_entry(self, path: Path) -> None:
        paths = [entry.path for entry in self.entries]
        if path not in paths or len(self.entries) == 1:
            return
        index = paths.index(path)
        del self.entries[index]
        self.runs.pop(path, None)
        if self.index >= index and self.index > 0:
            self.index -= 1
        self._show_everything()

    @staticmethod
    def _default_save_path(document: SnippetDocument) -> Path:
        """Where "save" suggests: the file the document edits, else a free name in the snippets folder."""
        if document.origin is not None:
            return document.origin
        folder = snippets_dir()
        stem = document.draft.based_on.stem if document.draft.based_on is not None else "snippet"
        candidate, number = folder / f"{stem}.py", 2
        while candidate.exists():
            candidate, number = folder / f"{stem}-{number}.py", number + 1
        return candidate

    def _size_text(self, document: SnippetDocument | None = None) -> str:
        """The size the next run of ``document`` will use: the one set with z, else the snippet's SIZE."""
        if self.run_size is not None:
            return f"size {self.run_size:,}"
        info = document.entry().info if document is not None else None
        return f"size {info.size:,}" if info is not None else "size: each scenario's own"

    def _titles(self, document: SnippetDocument) -> tuple[str, str]:
        unsaved = " ●" if document.unsaved else ""
        title = f"Editor: {document.path.name}{unsaved}"
        subtitle = f"{self._size_text(document)} · ^r run · ^s save · esc leaves"
        return title, subtitle

    def _show_titles(self) -> None:
        editor = self._find("#editor", SnippetEditor)  # type: ignore[attr-defined]
        if editor is None:
            return
        if self.document is None:
            editor.set_titles("Editor", f"ctrl+n new snippet · {self._size_text()}")
        else:
            editor.set_titles(*self._titles(self.document))
            if not self.document.error:
                editor.show_note(self._saved_note(self.document))

    def _saved_note(self, document: SnippetDocument) -> Text:
        saving = "" if document.origin is not None else " · ctrl+s saves it"
        measured = measured_hint(document.text)
        return Text(f"{measured + ' · ' if measured else ''}{document.describe()}{saving}", style="dim")

    def _fill_editor(self, note: Text | None = None) -> None:
        """Show the document (or the keys to open one) in the editor pane, if it is mounted."""
        editor = self._find("#editor", SnippetEditor)  # type: ignore[attr-defined]
        if editor is None:
            return
        document = self.document
        if document is None:
            editor.show_empty(f"ctrl+n new snippet · {self._size_text()}")
            return
        error = document.error
        if note is None:
            if error is not None:
                note = error_note(error, document.path)
            else:
                note = self._saved_note(document)
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
        elapsed = run.elapsed(self.app.clock())  # type: ignore[attr-defined]
        stage = f" ({run.stage})" if run.stage else ""
        # Esc in the editor first leaves it: the second one reaches the explorer, which stops the engine.
        if elapsed < self.STILL_RUNNING_S:
            return Text(f"● running…{stage} · esc twice stops it", style="cyan")
        return Text(f"● still running: {elapsed:.0f} s{stage} · esc twice stops it", style="bold cyan")

    def _show_running(self) -> None:
        note = self._running_note()
        editor = self._find("#editor", SnippetEditor)  # type: ignore[attr-defined]
        if note is not None and editor is not None:
            editor.show_note(note)

    def _focus_editor(self) -> None:
        self._show_snippet_pane()
        self.action_pane("editor")  # type: ignore[attr-defined]


def measured_hint(text: str) -> str | None:
    """For a snippet with set-up lines: which line is measured (the rest runs once, unmeasured)."""
    from kernel_tui.snippet import is_snippet, measured_lines

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
        said = error_line(error)
    return Text(f"✗ {DETAILS_KEY_SHOWN} details · {said}", style="bold red")


def _typed_path(value: str) -> Path:
    path = Path(os.path.expanduser(value.strip()))
    return (path if path.is_absolute() else Path.cwd() / path).resolve()


def _same_file(path: Path, other: Path) -> bool:
    try:
        return path.resolve() == other.resolve()
    except OSError:
        return False


def _names(file: str | None, path: Path) -> bool:
    """Whether an error's ``file`` is ``path`` (the engine names files by absolute path)."""
    if not file:
        return False
    try:
        return Path(file).resolve() == path.resolve()
    except OSError:
        return False

