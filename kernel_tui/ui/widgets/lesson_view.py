"""The lesson of the highlighted scenario (Markdown) and the code it is about (``fn`` and ``inputs``).

The Markdown widget (markdown-it behind it: about 0.1 s of imports) and syntax highlighting (pygments)
arrive just after the first frame: until then lesson and code show as plain text, so the app paints
at once.

What it shows are two reactives the explorer sets from its ``Shown``: ``shown`` (the scenario and whether its
answer is held back) and ``code`` (the code's links: each line's work, the linked lines, the line cursor).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.geometry import Region, Spacing
from textual.reactive import var
from textual.widgets import Static

from kernel_tui.model.scenario.scenario_file import ScenarioFileError
from kernel_tui.ui.state.course.score import HIDDEN_EXPLANATION, split_lesson
from kernel_tui.ui.state.course.source import scenario_source
from kernel_tui.ui.widgets.steady_static import SteadyStatic
from kernel_tui.ui.widgets.still_there import still_there

if TYPE_CHECKING:
    from kernel_tui.text.by_line import LineWork
    from kernel_tui.text.line_changes import LineChange
    from kernel_tui.ui.state.course.catalog import ScenarioEntry
    from kernel_tui.ui.view.code_links import CodeLinks
    from kernel_tui.ui.view.shown import LessonShown


class LessonView(VerticalScroll):
    """Scrollable lesson text, then the scenario's source; focusable so the keys scroll it."""

    shown: var[LessonShown | None] = var(None, init=False)
    """The scenario whose lesson and code are shown, and whether the lesson's answer is held back."""
    code: var[CodeLinks | None] = var(None, init=False)
    """The code's links (``kernel_tui.ui.view.code_links``): the gutter's work, the linked lines, the cursor."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Lesson"
        self.lesson = ""
        """The lesson as Markdown source (tests read this)."""
        self._entry: ScenarioEntry | None = None
        self._rich = False
        """Markdown and highlighting are loaded (after the first frame)."""
        self._markdown_busy = False
        """A Markdown update is in flight (``_show_latest_lesson``)."""
        self.line_work: dict[int, list[LineWork]] = {}
        """Per line of the code, the latest run's work (``kernel_tui.text.by_line``): the code's gutter."""
        self.linked_lines: frozenset[int] = frozenset()
        """The lines the highlighted kernel row came from, marked in the code."""
        self.line_changes: dict[int, LineChange] = {}
        """Per line, its work against the pinned baseline's (``kernel_tui.text.line_changes``); empty without one."""
        self.cursor_line: int | None = None
        """The code's line cursor (``j``/``k``) as the explorer hands it: the tables mark its kernels."""
        self._drawn_code: RenderableType | None = None
        """The code as last drawn with its gutter: where the cursor's row is found."""

    def compose(self) -> ComposeResult:
        yield SteadyStatic(id="lesson-plain")
        yield Static(id="lesson-source")

    def on_mount(self) -> None:
        self.call_after_refresh(self._mount_markdown)

    async def _mount_markdown(self) -> None:
        if not self.is_attached:  # the app quit (or the layout changed) before the first frame was out
            return
        from textual.widgets import Markdown

        plain = self.query("#lesson-plain")
        if not plain:
            return
        await self.mount(Markdown(self.lesson, id="lesson-text"), before=plain.first())
        await plain.remove()
        self._rich = True
        if self._entry is not None:
            self._show_source()

    def watch_shown(self, shown: LessonShown | None) -> None:
        if shown is not None:
            self.show(shown.entry, hide_explanation=shown.hide_explanation)

    def watch_code(self, links: CodeLinks | None) -> None:
        if links is not None:
            self.show_work(links.work, links.linked, links.changes, cursor=links.lesson_cursor)

    def show(self, entry: ScenarioEntry, *, hide_explanation: bool = False) -> None:
        """Show one scenario: its lesson, where it lives if it is the learner's own, and its code.

        ``hide_explanation``: hold back the lesson's answer (from ``**Why.**`` on) until the learner's
        prediction is revealed (``kernel_tui.ui.state.course.score``).
        """
        self.border_title = Content(f"Lesson: {entry.title}")
        self._entry = entry
        self.lesson = lesson_markdown(entry, hide_explanation=hide_explanation)
        markdown = self.query("#lesson-text")
        self._show_source()
        if markdown:
            if not self._markdown_busy:
                self._markdown_busy = True
                self._show_latest_lesson()
            # else: the update in flight shows the latest lesson when it ends.
        elif (plain := still_there(self, "#lesson-plain", SteadyStatic)) is not None:
            plain.show_content(Text(self.lesson))
            self.scroll_home(animate=False)
        # else: this view's children are being removed (the app quitting).

    @work(group="lesson-text")
    async def _show_latest_lesson(self) -> None:
        """Update the Markdown until it shows ``lesson``, one update at a time.

        Each ``Markdown.update`` starts at once and removes the blocks that were there when it was called, so
        updates that overlap (``n`` held down) leave older lessons' blocks behind, and cancelling one midway
        prints a CancelledError on exit. One update in flight, then the lesson wanted by then, keeps the text
        on the latest lesson however fast keys come, and the widget's size flat."""
        from textual.widgets import Markdown  # imported already: it is mounted

        try:
            while self.is_attached:
                markdown = still_there(self, "#lesson-text", Markdown)
                if markdown is None:
                    return  # this view's children were removed (the app quitting)
                wanted = self.lesson
                await markdown.update(wanted)
                if wanted == self.lesson:
                    self.scroll_home(animate=False)  # back to the top once the new lesson is in
                    return
        finally:
            self._markdown_busy = False

    def show_work(
        self,
        work: dict[int, list[LineWork]],
        linked: frozenset[int],
        changes: dict[int, LineChange] | None = None,
        *,
        cursor: int | None = None,
    ) -> None:
        """The latest run's work per line, in the code's gutter (against the baseline's, with ``changes``), the
        lines of the highlighted kernel, and the line cursor (``j``/``k``, the explorer's ``Cursors``), brought
        into view when it moves."""
        changes = changes or {}
        # The same work is handed on while the run shown is the same (``code_links``): compared by identity, since
        # comparing two equal tables of a crafted report kernel by kernel cost more than drawing them.
        same_changes = changes is self.line_changes or not (changes or self.line_changes)
        moved = cursor != self.cursor_line
        if work is self.line_work and same_changes and linked == self.linked_lines and not moved:
            return
        self.line_work, self.linked_lines, self.line_changes, self.cursor_line = work, linked, changes, cursor
        self._show_source()
        if moved and cursor is not None:
            self.call_after_refresh(self._scroll_to_cursor)

    def _scroll_to_cursor(self) -> None:
        """Bring the cursor's row into view: its row found in the code as drawn, where long lines have wrapped."""
        from kernel_tui.ui.view.code_gutter import CURSOR_MARK

        source = still_there(self, "#lesson-source", Static)
        width = source.content_region.width if source is not None else 0
        if source is None or not width or self._drawn_code is None:
            return
        console = self.app.console
        rows = console.render_lines(self._drawn_code, console.options.update_width(width), pad=False)
        for index, row in enumerate(rows):
            if f"{CURSOR_MARK}{self.cursor_line}" in "".join(segment.text for segment in row):
                top = source.virtual_region.y + index
                self.scroll_to_region(Region(0, top, 1, 1), spacing=Spacing(2, 0, 2, 0), animate=False, immediate=True)
                return

    def _show_source(self) -> None:
        if self._entry is None:
            return
        self._drawn_code = None
        if (self.line_work or self.line_changes) and self._rich:
            pane_width = self.scrollable_content_region.width or self.app.size.width
            shown = self._drawn_code = source_renderable(
                self._entry,
                work=self.line_work,
                pane_width=pane_width,
                linked=self.linked_lines,
                changes=self.line_changes,
                cursor=self.cursor_line,
            )
        else:
            shown = source_renderable(self._entry, highlight=self._rich)
        source = still_there(self, "#lesson-source", Static)
        if source is not None:  # None: this view's children were removed while it waited (the app quitting)
            source.update(shown)


def lesson_markdown(entry: ScenarioEntry, *, hide_explanation: bool = False) -> str:
    # The title is in the pane's border: the text starts with the lesson itself.
    lines: list[str] = []
    if entry.user_file:
        lines += [f"*Your file:* `{entry.display_path()}`", ""]
    if entry.read_error is not None:
        where = f" (line {entry.read_error.line})" if entry.read_error.line else ""
        lines += [f"**This file cannot be read{where}:** {entry.read_error}", ""]
    elif entry.info is not None and entry.info.lesson:
        lesson = entry.info.lesson
        if hide_explanation:
            question, why, _ = split_lesson(lesson)
            lesson = f"{question}\n\n{HIDDEN_EXPLANATION}" if why else lesson
        lines += [lesson, ""]
    return "\n".join(lines)


def source_renderable(
    entry: ScenarioEntry,
    *,
    highlight: bool = True,
    work: dict[int, list[LineWork]] | None = None,
    pane_width: int = 80,
    linked: frozenset[int] = frozenset(),
    changes: dict[int, LineChange] | None = None,
    cursor: int | None = None,
) -> RenderableType:
    """``fn`` and ``inputs`` with their line numbers, highlighted (or plain, before the first frame); with
    ``work``, each line's kernels in a gutter (``kernel_tui.ui.view.code_gutter``), against the baseline's with
    ``changes``, the ``linked`` lines and the ``cursor`` line marked."""
    try:
        source = entry.read_source()
    except ScenarioFileError as error:
        return Text(f"{entry.path}: {error}", style="red")
    pieces = scenario_source(source)
    if not pieces:
        return Text("no fn or inputs found in this file", style="dim")
    if work or changes:
        from kernel_tui.ui.view.code_gutter import code_with_gutter

        return code_with_gutter(pieces, work or {}, pane_width, linked, changes, cursor)
    parts: list[RenderableType] = []
    for piece in pieces:
        if parts:
            parts.append(Text(""))
        if highlight:
            from rich.syntax import Syntax

            parts.append(
                Syntax(
                    piece.code,
                    "python",
                    theme="ansi_dark",
                    line_numbers=True,
                    start_line=piece.first_line,
                    background_color="default",
                    word_wrap=True,
                )
            )
        else:
            parts.append(_numbered(piece.code, piece.first_line))
    return Group(*parts)


def _numbered(code: str, first_line: int) -> Text:
    lines = code.splitlines()
    width = len(str(first_line + len(lines) - 1))
    text = Text()
    for number, line in enumerate(lines, start=first_line):
        text.append(f"{number:>{width + 2}} ", style="dim")
        text.append(line + "\n")
    return text
