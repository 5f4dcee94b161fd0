"""Where the learner's own code lives: the snippets folder, and the drafts that keep every unsaved edit.

Two folders, each overridable by an environment variable (tests point both at temporary folders):

- ``KERNEL_TUI_SNIPPETS_DIR`` (default ``~/kernel-tui``): where "save" suggests putting a snippet.
- ``KERNEL_TUI_STATE_DIR`` (kernel-tui's own folder, ``kernel_tui.ui.link.state_folder``): its ``drafts/``
  folder holds one draft per editor document.

A draft is a plain scenario file (``snippet-3.py``: what the editor shows, written a second after typing
stops, on every run and on quit) with a small JSON sidecar (``snippet-3.json``): the file it edits, the
file it started as a copy of, and the process that holds it. The engine runs the draft itself, so what
is measured is always what is on screen. On the next start, drafts whose text differs from what was
saved are offered back; the others are removed. Nothing here touches Textual.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from kernel_tui.model.storage.atomic_write import write_atomic
from kernel_tui.ui.link.state_folder import state_dir

SNIPPETS_DIR_ENV = "KERNEL_TUI_SNIPPETS_DIR"

TEMPLATE = """\
# The last line is measured, eager and
# compiled. a b c x y z are float32
# tensors; torch and F are imported.
(a + b).relu()
"""
"""What a new snippet starts as; left as it is, it counts as nothing typed."""

_NUMBERED = re.compile(r"^(?P<stem>.+)-(?P<number>\d+)$")


def snippets_dir() -> Path:
    """Where saved snippets go unless the learner types another path."""
    configured = os.environ.get(SNIPPETS_DIR_ENV, "").strip()
    return Path(configured).expanduser() if configured else Path.home() / "kernel-tui"


def drafts_dir() -> Path:
    return state_dir() / "drafts"


def shown_path(path: Path) -> str:
    """A path as the learner reads it: ``~`` for the home folder."""
    try:
        return "~/" + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)


def read_text(path: Path | None) -> str | None:
    """A file's text, or None when there is no such file (or it is not text)."""
    if path is None:
        return None
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


@dataclass(frozen=True)
class Draft:
    """One editor document's draft file and what it is a draft of."""

    path: Path
    """The draft itself, a scenario file in the drafts folder: what the editor runs."""
    origin: Path | None = None
    """The scenario file it edits: saving writes there, and a change there on disk reloads it."""
    based_on: Path | None = None
    """The file it started as a copy of (a course scenario), if any."""
    pid: int | None = None
    """The kernel-tui process holding it; another live process's drafts are left alone."""

    @property
    def meta_path(self) -> Path:
        return self.path.with_suffix(".json")

    def baseline(self) -> str:
        """The text that means "nothing typed yet": the file it edits or copies, else the template."""
        for source in (self.origin, self.based_on):
            text = read_text(source)
            if text is not None:
                return text
        return TEMPLATE

    def unsaved(self, text: str) -> bool:
        """Whether ``text`` holds something typed that no file holds yet."""
        return bool(text.strip()) and text != self.baseline()


class DraftStore:
    """The drafts folder: create, write, list and discard drafts. Folders are made on first write."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder if folder is not None else drafts_dir()

    def create(self, text: str, *, origin: Path | None = None, based_on: Path | None = None) -> Draft:
        """A new draft holding ``text``, named after the file it comes from (``snippet`` for a new one)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        source = origin or based_on
        stem = _plain_stem(source) if source is not None else "snippet"
        number = 1 + max((n for n in self._numbers()), default=0)
        while True:
            path = self.folder / f"{stem}-{number}.py"
            try:
                with path.open("x", encoding="utf-8") as file:
                    file.write(text)
            except FileExistsError:
                number += 1
                continue
            break
        draft = Draft(path.resolve(), origin=_absolute(origin), based_on=_absolute(based_on), pid=os.getpid())
        self._write_meta(draft)
        return draft

    def write(self, draft: Draft, text: str) -> None:
        write_atomic(draft.path, text)

    def set_origin(self, draft: Draft, origin: Path) -> Draft:
        """The draft now edits ``origin`` (it was just saved there)."""
        updated = replace(draft, origin=_absolute(origin))
        self._write_meta(updated)
        return updated

    def claim(self, draft: Draft) -> Draft:
        """This process holds the draft now (it was restored)."""
        claimed = replace(draft, pid=os.getpid())
        self._write_meta(claimed)
        return claimed

    def discard(self, draft: Draft) -> None:
        draft.path.unlink(missing_ok=True)
        draft.meta_path.unlink(missing_ok=True)

    def drafts(self) -> list[Draft]:
        """Every draft in the folder, oldest first."""
        if not self.folder.is_dir():
            return []
        found = [self._read(path) for path in self.folder.glob("*.py") if not path.name.startswith(".")]
        return sorted(found, key=_mtime)

    def left_behind(self) -> tuple[list[Draft], list[Draft]]:
        """Drafts no live kernel-tui holds, split into (unsaved: to offer back, clean: safe to remove)."""
        unsaved: list[Draft] = []
        clean: list[Draft] = []
        for draft in self.drafts():
            if draft.pid not in (None, os.getpid()) and _alive(draft.pid):
                continue  # another kernel-tui is editing it right now
            text = read_text(draft.path) or ""
            (unsaved if draft.unsaved(text) else clean).append(draft)
        return unsaved, clean

    def _numbers(self) -> Iterator[int]:
        if not self.folder.is_dir():
            return
        for path in self.folder.glob("*.py"):
            match = _NUMBERED.match(path.stem)
            if match:
                yield int(match.group("number"))

    def _read(self, path: Path) -> Draft:
        draft = Draft(path.resolve())
        try:
            meta = json.loads(draft.meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return draft
        if not isinstance(meta, dict):
            return draft
        origin, based_on, pid = meta.get("origin"), meta.get("based_on"), meta.get("pid")
        return replace(
            draft,
            origin=Path(origin) if isinstance(origin, str) else None,
            based_on=Path(based_on) if isinstance(based_on, str) else None,
            pid=pid if isinstance(pid, int) else None,
        )

    def _write_meta(self, draft: Draft) -> None:
        meta = {
            "origin": str(draft.origin) if draft.origin else None,
            "based_on": str(draft.based_on) if draft.based_on else None,
            "pid": draft.pid,
        }
        write_atomic(draft.meta_path, json.dumps(meta, indent=1) + "\n")


def _absolute(path: Path | None) -> Path | None:
    return path.expanduser().resolve() if path is not None else None


def _plain_stem(path: Path) -> str:
    stem = re.sub(r"[^A-Za-z0-9_]+", "_", path.stem).strip("_") or "snippet"
    match = _NUMBERED.match(stem)
    return match.group("stem") if match else stem


def _mtime(draft: Draft) -> float:
    try:
        return draft.path.stat().st_mtime
    except OSError:
        return 0.0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def scenario_of(path: Path, drafts: Mapping[Path, Draft]) -> Path:
    """The scenario a run of ``path`` counts as: the file a draft edits or was copied from, else ``path``."""
    draft = drafts.get(path)
    if draft is None:
        return path
    return draft.origin or draft.based_on or path
