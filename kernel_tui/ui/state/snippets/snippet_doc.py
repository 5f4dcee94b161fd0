"""The document in the snippet editor: its text, the draft that keeps it, and the file it is saved as.

The snippet session owns one ``SnippetDocument`` (the editor widget only shows it), so the text does not
depend on any widget living. Nothing here touches Textual.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from kernel_tui.model.scenario.scenario_file import ScenarioFileError, parse_scenario
from kernel_tui.ui.state.course.catalog import ScenarioEntry
from kernel_tui.ui.state.snippets.drafts import Draft, shown_path
from kernel_tui.ui.state.snippets.file_watch import FileWatch

if TYPE_CHECKING:
    from kernel_tui.model.report.report import ScenarioError

DRAFT_MARK = "✎ "
"""Starts the title of an editor document in the scenario list."""


@dataclass
class SnippetDocument:
    """One editor document. ``text`` is what the editor shows; the draft file is kept in step with it."""

    draft: Draft
    text: str
    written: str
    """What the draft file holds now."""
    saved: str | None = None
    """What the file it edits (``draft.origin``) holds as far as we know; None when it edits no file."""
    cursor: tuple[int, int] = (0, 0)
    """(row, column) where the editor's cursor was, to put it back after the layout changes."""
    error: ScenarioError | None = None
    """The latest run's error, shown under the editor with its line marked."""
    watch: FileWatch | None = field(default=None, repr=False)
    """Watches ``draft.origin`` for changes made outside the app."""
    unwritable: str | None = None
    """Why the draft could not be written the last time it was tried (``No space left on device``); None: it was."""
    kept_at: Path | None = None
    """Meanwhile, the file that keeps the text instead (``rescue``); None there too: the text is in memory alone."""

    @classmethod
    def opened(cls, draft: Draft, text: str) -> SnippetDocument:
        """A document for ``draft`` (whose file already holds ``text``), watching the file it edits."""
        document = cls(draft, text, written=text)
        if draft.origin is not None:
            document.watch_origin()
        return document

    @property
    def path(self) -> Path:
        """What the engine runs: the draft."""
        return self.draft.path

    @property
    def origin(self) -> Path | None:
        return self.draft.origin

    @property
    def unsaved(self) -> bool:
        """Typed text that no file holds yet (the draft aside)."""
        if self.origin is not None and self.saved is not None:
            return self.text != self.saved
        return self.draft.unsaved(self.text)

    @property
    def needs_writing(self) -> bool:
        """The draft file is behind the editor."""
        return self.text != self.written

    @property
    def only_in_memory(self) -> bool:
        """Typed text that no file holds at all: the draft cannot be written, nor a file in its place."""
        return self.needs_writing and self.unwritable is not None and self.kept_at is None

    def where_kept(self) -> str | None:
        """While the draft cannot be written: why, and where the text is instead, for the line under the editor."""
        if self.unwritable is None:
            return None
        # Where first: the line under the editor is cut at the pane's edge.
        if self.kept_at is not None:
            return f"your text is kept in {shown_path(self.kept_at)}: the draft cannot be written ({self.unwritable})"
        return f"your text is only here: no file can be written ({self.unwritable}) · ctrl+s saves it elsewhere"

    def watch_origin(self) -> None:
        """Start (or restart) watching the file this document edits; what it holds now counts as saved."""
        assert self.origin is not None
        self.watch = FileWatch(self.origin)
        try:
            self.saved = self.origin.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            self.saved = None

    def entry(self) -> ScenarioEntry:
        """The document as a scenario of the list: the learner's own, its title marked as a draft."""
        try:
            info = parse_scenario(self.text, self.path)
        except ScenarioFileError as error:
            return ScenarioEntry(self.path, None, True, error, saved_to=self.origin)
        return ScenarioEntry(self.path, replace(info, title=DRAFT_MARK + info.title), True, saved_to=self.origin)

    def describe(self) -> str:
        """Where the text will go: the file it edits, or the fact that it is not saved anywhere yet."""
        if self.origin is not None:
            return shown_path(self.origin) + (" (unsaved edits)" if self.unsaved else "")
        if self.draft.based_on is not None:
            return f"a copy of {self.draft.based_on.name}, not saved yet"
        return "not saved yet"
