"""Snapshots of the snippet editor at 80x24 (its own tab) and 160x48 (in the lesson's place).

Deterministic as the explorer's snapshots are: a replayed engine, a frozen clock, no animation, and every
state waited for. Drafts go to each test's own folder (``conftest``), so the draft is always
``snippet-1.py``. Update with ``--snapshot-update`` only after reading the report.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from support.snippet_support import snippet_link
from support.ui_support import SnapCompare, still_app, wait_for
from test_ui_snapshots import fully_mounted
from textual.pilot import Pilot

from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.widgets.snippet_text import SnippetTextArea

SMALL = (80, 24)
LARGE = (160, 48)

pytestmark = pytest.mark.usefixtures("from_the_repository")


def typed_and_run(text: str, *, run: bool) -> Callable[[Pilot[None]], Awaitable[None]]:
    """Open a new snippet, type ``text`` over the template, run it (if ``run``) and wait for the result."""

    async def run_before(pilot: Pilot[None]) -> None:
        app = pilot.app
        assert isinstance(app, KernelTuiApp)
        explorer = app.get_explorer()
        assert explorer is not None
        await wait_for(pilot, lambda: explorer.hello is not None)
        await wait_for(pilot, lambda: fully_mounted(explorer))
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: isinstance(app.focused, SnippetTextArea))
        await pilot.press("f7", "delete", *("enter" if char == "\n" else char for char in text))
        app.query_one(SnippetTextArea).cursor_blink = False  # the cursor always shows: no blink phase to catch
        if run:
            await pilot.press("ctrl+r")
            document = explorer.session.document
            assert document is not None
            await wait_for(pilot, lambda: not explorer.runs[document.path].running)
        await pilot.pause()

    return run_before


class TestSnippetEditor:
    """The editor's states: a snippet typed, and a run whose error marks the typed line."""

    def test_small_error_marks_the_line(self, snap_compare: SnapCompare) -> None:
        """80x24, editor tab: NameError on line 3, marked in the gutter, the error under the text."""
        app = still_app(snippet_link("snippets/ui_snippet_typo.py"))
        assert snap_compare(app, terminal_size=SMALL, run_before=typed_and_run("t = x * 2\n\nt + q", run=True))

    def test_large_editor_in_the_lessons_place(self, snap_compare: SnapCompare) -> None:
        """160x48: the editor where the lesson was, the snippet in the list as yours, the footer's keys."""
        app = still_app(snippet_link("ui_add_relu.py"))
        assert snap_compare(app, terminal_size=LARGE, run_before=typed_and_run("(a + b).relu()", run=True))
