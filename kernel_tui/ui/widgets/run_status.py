"""The status line: what the engine is doing (stage, elapsed time, progress) or how the last run ended."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.reactive import var
from textual.widgets import Label

if TYPE_CHECKING:
    from kernel_tui.ui.view.shown import StatusShown


class RunStatusBar(Horizontal):
    """A line of text and, while a run is going, a progress bar over its stages.

    The progress bar is mounted with the first run: the first frame does without it.
    """

    shown: var[StatusShown | None] = var(None, init=False)
    """What the explorer hands the status line (its slice of ``Shown``)."""

    def compose(self) -> ComposeResult:
        yield Label(id="status-text")

    def watch_shown(self, shown: StatusShown | None) -> None:
        """The status line's text; a progress bar while ``progress`` is (done, total), none when it is None."""
        if shown is None:
            return
        text, progress = shown.text.copy(), shown.progress
        # One line whatever happens: a long error is cut here and shown whole in the summary and details.
        text.no_wrap = True
        text.overflow = "ellipsis"
        # Its size is set by the style sheet (one line, the width left by the bar): no layout pass needed.
        self.query_one("#status-text", Label).update(text, layout=False)
        bars = self.query("#status-progress")
        if progress is None:
            if bars:
                bars.first().display = False
            return
        from textual.widgets import ProgressBar

        done, total = progress
        if bars:
            bar = bars.first(ProgressBar)
            bar.display = True
        else:
            bar = ProgressBar(total=total, show_eta=False, show_percentage=False, id="status-progress")
            self.mount(bar)
        bar.update(total=total, progress=done)
