"""When the app itself fails: the session's results are written where ``kernel-tui view`` reads them, the traceback
beside them, and the terminal gets one line naming both, never the traceback.

Textual ends the app on an exception it did not expect (the widget whose handler raised stops reading its
messages, so carrying on would leave a frozen pane): what the learner measured must outlive it. Every finished
report of the session and every pinned baseline is saved, one per line, as ``kernel-tui run --json`` writes them.
"""

from __future__ import annotations

import datetime
import json
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kernel_tui.model.storage.atomic_write import write_atomic
from kernel_tui.model.storage.results_file import saved_form
from kernel_tui.ui.link.state_folder import state_dir
from kernel_tui.ui.state.snippets.drafts import shown_path

if TYPE_CHECKING:
    from collections.abc import Iterable

    from kernel_tui.model.report.report import ScenarioReport

CRASH_PREFIX = "crash-"


@dataclass(frozen=True)
class CrashSaved:
    """Where a crash's results and traceback went (either None where it could not be written)."""

    results: Path | None
    traceback: Path | None
    report_count: int

    def one_line(self, error: BaseException) -> str:
        """The line the terminal gets: what failed, and where the session went."""
        what = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}".rstrip(": ")[:200]
        parts = [f"kernel-tui: internal error ({what})"]
        if self.results is not None:
            parts.append(f"the session's {self.report_count} result(s) are in {shown_path(self.results)}")
            parts.append(f"open them with: kernel-tui view {shown_path(self.results)}")
        elif self.report_count:
            parts.append("the session's results could not be saved")
        if self.traceback is not None:
            parts.append(f"traceback: {shown_path(self.traceback)}")
        return "; ".join(parts)


def save_crash(
    error: BaseException,
    reports: Iterable[ScenarioReport],
    folder: Path | None = None,
    now: datetime.datetime | None = None,
) -> CrashSaved:
    """Write ``reports`` (each once) and ``error``'s traceback into ``folder`` (the state folder), named by the time."""
    folder = state_dir() if folder is None else folder
    stamp = (now or datetime.datetime.now()).strftime("%Y%m%d-%H%M%S-%f")
    unique: dict[int, ScenarioReport] = {}
    for report in reports:
        unique.setdefault(id(report), report)
    lines = [json.dumps(saved_form(report), allow_nan=False) for report in unique.values()]
    named = folder / f"{CRASH_PREFIX}{stamp}"
    results = _written(named.with_suffix(".jsonl"), "".join(f"{line}\n" for line in lines)) if lines else None
    trace = _written(named.with_suffix(".log"), "".join(traceback.format_exception(error)))
    return CrashSaved(results, trace, len(lines))


def _written(path: Path, text: str) -> Path | None:
    """``path`` once ``text`` is in it; None where it could not be written (an unwritable state folder)."""
    try:
        write_atomic(path, text)
    except OSError:
        return None
    return path
