"""Where the editor's text goes when its draft cannot be written (a full disk, a folder made read-only).

The draft is written a second after typing stops; when that fails the text is still only in the editor, and the
learner must know at once where it is. It is written to a file of its own in the temporary folder (``$TMPDIR``,
often another disk than the state folder's), named on screen; when that fails too, the text is in memory alone,
and quitting asks first (``SnippetWorkbench.text_at_risk``).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from kernel_tui.model.storage.atomic_write import write_atomic

RESCUE_FOLDER = "kernel-tui-unsaved"
"""The folder under the temporary folder that keeps texts whose drafts could not be written."""


def rescue_path(draft: Path) -> Path:
    """Where the text of ``draft`` is kept while the draft cannot be written: one file per process and draft."""
    return Path(tempfile.gettempdir()) / RESCUE_FOLDER / f"{os.getpid()}-{draft.name}"


def rescue(draft: Path, text: str) -> Path | None:
    """Write ``text`` where ``draft``'s text is kept meanwhile; the file, or None when it cannot be written either."""
    path = rescue_path(draft)
    try:
        write_atomic(path, text)
    except OSError:
        return None
    return path
