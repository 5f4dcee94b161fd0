"""The snippet editor's session: the open document, the drafts behind it, and the size every run uses.

The editor holds one document at a time (``SnippetDocument``), always backed by a draft file
(``kernel_tui.ui.state.snippets.drafts``), and every draft appears in the scenario list (the ``Catalog``) as the
learner's own. This is the logic of opening, editing, saving and restoring, with no Textual in it: what the screen
has to do afterwards (tell the learner something, show the list again, focus the editor) collects in
``Effects``, which the screen takes after each call. (The size every run uses is the screen's: ``run_size``.)
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import TYPE_CHECKING

from kernel_tui.model.scenario.scenario_file import constant_value
from kernel_tui.model.storage.atomic_write import write_atomic
from kernel_tui.ui.state.run_state import RunStatus, ScenarioRun
from kernel_tui.ui.state.snippets.drafts import (
    TEMPLATE,
    Draft,
    DraftStore,
    read_text,
    scenario_of,
    shown_path,
    snippets_dir,
)
from kernel_tui.ui.state.snippets.rescue import rescue
from kernel_tui.ui.state.snippets.session_effects import DraftChoice, Effects, Notice, RestoreDecision, Severity, Shown
from kernel_tui.ui.state.snippets.snippet_doc import SnippetDocument

if TYPE_CHECKING:
    from kernel_tui.ui.state.course.catalog import Catalog, ScenarioEntry

MAX_SIZE = 2**31
"""Elements per tensor the size prompt accepts at most (8 GiB per float32 tensor)."""


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


def size_text(run_size: int | None, document: SnippetDocument | None = None) -> str:
    """The size the next run of ``document`` will use: ``run_size`` (set with z), else the snippet's SIZE."""
    if run_size is not None:
        return f"size {run_size:,}"
    info = document.entry().info if document is not None else None
    return f"size {info.size:,}" if info is not None else "size: each scenario's own"


class SnippetSession:
    """The editor's document and drafts; every draft it knows is an entry of ``catalog``."""

    def __init__(self, catalog: Catalog, drafts: DraftStore | None = None) -> None:
        self.catalog = catalog
        self.drafts = drafts if drafts is not None else DraftStore()
        self.document: SnippetDocument | None = None
        """What the editor holds."""
        self.known_drafts: dict[Path, Draft] = {}
        """Drafts in the list (this session's, and unsaved ones from before), by path."""
        self._effects = Effects()

    def scenario_of(self, path: Path) -> Path:
        """The scenario a run of ``path`` counts as: the file a known draft edits or was copied from."""
        return scenario_of(path, self.known_drafts)

    def take_effects(self) -> Effects:
        effects, self._effects = self._effects, Effects()
        return effects

    def _tell(self, message: str, severity: Severity = "information", timeout: float | None = None) -> None:
        self._effects.notices.append(Notice(message, severity, timeout))

    def _show(self, shown: Shown) -> None:
        self._effects.shown = max(self._effects.shown, shown)

    # -- start and quit ----------------------------------------------------------------------------

    def start(self) -> bool:
        """Remove clean drafts left behind, list the unsaved ones; True when there are some to offer back."""
        try:
            unsaved, clean = self.drafts.left_behind()
            for draft in clean:
                self.drafts.discard(draft)
            unsaved = [self.drafts.claim(draft) for draft in unsaved]
        except OSError as error:
            self._tell(f"Could not read the drafts folder: {error}", "warning")
            return False
        for draft in unsaved:
            self.known_drafts[draft.path] = draft
            self._put_entry(self.entry_of(draft))
        if unsaved:
            self._show(Shown.EVERYTHING)
        return bool(unsaved)

    def close(self) -> None:
        """Quitting: write the draft; drop the drafts that hold nothing unsaved."""
        self.write_draft(show=False)
        for draft in list(self.known_drafts.values()):
            text = self.document.text if self.document and self.document.path == draft.path else None
            text = text if text is not None else read_text(draft.path)
            if text is None or not self._current_draft(draft).unsaved(text):
                self.drafts.discard(draft)

    # -- opening -----------------------------------------------------------------------------------

    def new(self) -> None:
        """A new snippet from the template, the cursor on its expression."""
        draft = self._create_draft(TEMPLATE)
        if draft is not None:
            last = len(TEMPLATE.splitlines()) - 1
            self._open_document(SnippetDocument.opened(draft, TEMPLATE), cursor=(last, 0))

    def edit_current(self) -> None:
        """Edit the scenario on screen: a draft reopens, the learner's own file is edited in place, a course
        scenario is copied (saving it asks where)."""
        if not self.catalog:
            return
        entry = self.catalog.current
        if self.document is not None and entry.path == self.document.path:
            self._effects.focus_editor = True
        elif entry.path in self.known_drafts:
            self.reopen(self.known_drafts[entry.path])
        elif entry.user_file:
            self.open_file(entry.path)
        else:
            self.copy_current()

    def copy_current(self) -> None:
        """The scenario's code in a new snippet that edits no file yet."""
        if not self.catalog:
            return
        entry = self.catalog.current
        if entry.path in self.known_drafts:
            draft = self.known_drafts[entry.path]
            source = draft.origin or draft.based_on
        else:
            source = entry.path
        self._open_new_draft(entry.path, based_on=source)

    def open_file(self, path: Path) -> None:
        """Edit ``path`` itself: saving writes there, and changes made there on disk come in."""
        path = path.expanduser().resolve()
        document = self.document
        if document is not None and document.origin == path:
            self._put_entry(document.entry(), select=True)
            self._effects.focus_editor = True
            return
        for draft in self.known_drafts.values():
            if draft.origin == path:
                self.reopen(draft)
                return
        self._open_new_draft(path, origin=path)

    def _open_new_draft(self, read_from: Path, *, origin: Path | None = None, based_on: Path | None = None) -> None:
        """A new draft of ``read_from``'s text, open in the editor (``origin``: the file it saves to)."""
        text = read_text(read_from)
        if text is None:
            self._tell(f"Cannot read {read_from}", "error")
            return
        created = self._create_draft(text, origin=origin, based_on=based_on)
        if created is not None:
            self._open_document(SnippetDocument.opened(created, text), cursor=opening_cursor(text))

    def reopen(self, draft: Draft) -> None:
        text = read_text(draft.path)
        if text is None:
            self._tell(f"The draft {draft.path} is gone", "error")
            return
        document = SnippetDocument.opened(draft, text)
        lines = text.splitlines()
        self._open_document(document, cursor=(max(0, len(lines) - 1), len(lines[-1]) if lines else 0))

    def show_open(self) -> bool:
        """Show the open document as the scenario on screen; False when there is none."""
        if self.document is None:
            return False
        self._put_entry(self.document.entry(), select=True)
        self._effects.focus_editor = True
        return True

    def _open_document(self, document: SnippetDocument, cursor: tuple[int, int] | None = None) -> None:
        """Put ``document`` in the editor (the one there is written first and stays in the list)."""
        self.write_draft()
        if cursor is not None:
            document.cursor = cursor
        self.document = document
        self.known_drafts[document.path] = document.draft
        self._put_entry(document.entry(), select=True)
        self._effects.fill_editor = True
        self._effects.focus_editor = True

    def _create_draft(self, text: str, **sources: Path | None) -> Draft | None:
        try:
            return self.drafts.create(text, **sources)
        except OSError as error:
            self._tell(f"Cannot write a draft in {self.drafts.folder}: {error}", "error")
            return None

    # -- editing and running -----------------------------------------------------------------------

    def edited(self, text: str, cursor: tuple[int, int]) -> bool:
        """The editor's text or cursor changed; True when the text did (the draft is then behind)."""
        document = self.document
        if document is None:
            return False
        document.cursor = cursor
        if text == document.text:
            return False
        document.text = text
        return True

    def entered(self) -> None:
        """The editor took focus: its document is the scenario on screen while it is being edited."""
        document = self.document
        if document is not None and self.catalog and self.catalog.current.path != document.path:
            self._put_entry(document.entry(), select=True)

    def prepare_run(self) -> Path | None:
        """Bring the draft up to the text and show it; the path to run (None: no document)."""
        document = self.document
        if document is None:
            return None
        self.write_draft()
        self._put_entry(document.entry(), select=True)
        document.error = None
        return document.path

    def run_ended(self, run: ScenarioRun) -> bool:
        """A run ended; True when it ran the editor's document (whose error, if any, it now carries)."""
        document = self.document
        if document is None or run.record.path != document.path or run.status is RunStatus.RUNNING:
            return False
        document.error = run.record.error if run.status is RunStatus.FAILED else None
        return True

    def write_draft(self, *, show: bool = True) -> None:
        """Bring the draft file up to the editor's text (and, if ``show``, the list's title up to the text)."""
        document = self.document
        if document is None or not document.needs_writing:
            return
        try:
            self.drafts.write(document.draft, document.text)
        except OSError as error:
            self._draft_unwritable(document, error.strerror or str(error))
            return
        document.written = document.text
        if document.unwritable is not None:
            document.unwritable = document.kept_at = None
            self._tell(f"The draft is written again: {shown_path(document.path)}")
            self._effects.fill_editor = True
        if show:
            self._put_entry(document.entry())

    def _draft_unwritable(self, document: SnippetDocument, why: str) -> None:
        """The draft could not be written: the text goes to a file of its own (``rescue``), and the learner is told
        where at once; told again only when that changes (each autosave tries again)."""
        kept_at = rescue(document.path, document.text)
        changed = (document.unwritable, document.kept_at) != (why, kept_at)
        document.unwritable, document.kept_at = why, kept_at
        if changed:
            said = document.where_kept()
            assert said is not None
            self._tell(said[0].upper() + said[1:], "error", timeout=30)
            self._effects.fill_editor = True  # the line under the text says it as long as it lasts

    # -- saving and the file on disk ---------------------------------------------------------------

    def save(self) -> bool:
        """Save to the file the document edits; False when it edits none yet (ask where: ``save_to``)."""
        document = self.document
        if document is None or document.origin is None:
            return False
        self.save_to(document.origin)
        return True

    def save_to(self, path: Path) -> None:
        document = self.document
        if document is None:
            return
        try:
            write_atomic(path, document.text)
        except OSError as error:
            self._tell(f"Could not save {shown_path(path)}: {error}", "error")
            return
        if document.origin != path.resolve():
            document.draft = self.drafts.set_origin(document.draft, path)
            self.known_drafts[document.path] = document.draft
        document.watch_origin()
        self.write_draft()
        self._put_entry(document.entry())
        self._effects.fill_editor = True
        self._tell(f"Saved {shown_path(path)}")

    def poll_origin(self) -> bool:
        """Check the file the editor edits: reload a change made elsewhere, unless it would lose edits.

        True when the titles are to be shown again (the file changed under unsaved edits)."""
        document = self.document
        if document is None or document.watch is None or document.origin is None or not document.watch.poll():
            return False
        shown = shown_path(document.origin)
        text = read_text(document.origin)
        if text is None:
            self._tell(f"{shown} was removed or cannot be read: ctrl+s writes it again", "warning")
            return False
        if text == document.text:
            document.saved = text
            return False
        if not document.unsaved:
            document.text = document.saved = text
            document.error = None
            self.write_draft()
            self._effects.fill_editor = True
            self._tell(f"Reloaded {shown}: it changed on disk")
            return False
        document.saved = text
        self._tell(
            f"{shown} changed on disk. Your unsaved edits are kept in the editor: ctrl+s replaces the file with them.",
            "warning",
            timeout=10,
        )
        return True

    def default_save_path(self, document: SnippetDocument) -> Path:
        """Where "save" suggests: the file the document edits, else a free name in the snippets folder."""
        if document.origin is not None:
            return document.origin
        folder = snippets_dir()
        stem = document.draft.based_on.stem if document.draft.based_on is not None else "snippet"
        candidate, number = folder / f"{stem}.py", 2
        while candidate.exists():
            candidate, number = folder / f"{stem}-{number}.py", number + 1
        return candidate

    # -- drafts from before ------------------------------------------------------------------------

    def restorable(self) -> list[Draft]:
        open_path = self.document.path if self.document is not None else None
        return [draft for path, draft in self.known_drafts.items() if path != open_path and path.exists()]

    def restore_choices(self) -> list[DraftChoice]:
        return [DraftChoice(draft.path, self.entry_of(draft).title, _where(draft)) for draft in self.restorable()]

    def restore(self, decision: RestoreDecision) -> None:
        for path in decision.discard:
            draft = self.known_drafts.pop(path, None)
            if draft is not None:
                self.drafts.discard(draft)
                self._drop_entry(path)
        if decision.restore is not None and decision.restore in self.known_drafts:
            self.reopen(self.known_drafts[decision.restore])

    def _current_draft(self, draft: Draft) -> Draft:
        document = self.document
        return document.draft if document is not None and document.path == draft.path else draft

    # -- the list ----------------------------------------------------------------------------------

    @staticmethod
    def entry_of(draft: Draft) -> ScenarioEntry:
        return SnippetDocument(draft, read_text(draft.path) or "", written="").entry()

    def _put_entry(self, entry: ScenarioEntry, *, select: bool = False) -> None:
        """Add the entry to the scenario list, or replace the one with its path; show it if ``select``."""
        catalog = self.catalog
        edited = self._edited_file(entry.path)
        if edited is not None and entry.path in catalog.paths():
            self._drop_entry(edited)  # saved over a listed file: the list keeps the one being edited
            edited = None
        # The learner's own file, now edited: its draft takes its place, so the list holds it once and its
        # title follows the text.
        index, changed = catalog.put(entry, replaces=edited)
        if select and catalog.select(index):
            self._show(Shown.EVERYTHING)
        elif changed:
            self._show(Shown.SCENARIO if index == catalog.index else Shown.MARKS)

    def _edited_file(self, draft_path: Path) -> Path | None:
        """The listed file (not a draft) that the draft at ``draft_path`` edits, if the list holds it."""
        draft = self.known_drafts.get(draft_path)
        if draft is None or draft.origin is None:
            return None
        for path in self.catalog.paths():
            if path != draft_path and path not in self.known_drafts and _same_file(path, draft.origin):
                return path
        return None

    def _drop_entry(self, path: Path) -> None:
        if self.catalog.drop(path):
            self._effects.dropped.append(path)
            self._show(Shown.EVERYTHING)


def _where(draft: Draft) -> str:
    if draft.origin is not None:
        return f"edits {shown_path(draft.origin)}"
    if draft.based_on is not None:
        return f"a copy of {draft.based_on.name}"
    return "never saved"


def _same_file(path: Path, other: Path) -> bool:
    try:
        return path.resolve() == other.resolve()
    except OSError:
        return False


def opening_cursor(text: str) -> tuple[int, int]:
    """Where a file opens in the editor: on ``def fn`` (a course scenario starts with its lesson's docstring),
    else at the top."""
    from kernel_tui.ui.state.course.source import scenario_source

    pieces = [piece for piece in scenario_source(text) if piece.name == "fn"]
    return (pieces[0].first_line - 1, 0) if pieces else (0, 0)
