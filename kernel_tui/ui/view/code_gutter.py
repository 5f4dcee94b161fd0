"""The code pane's gutter: each line of ``fn`` with its eager launches and what they became compiled.

``2 ⇒ cpp_fused_add_relu_0`` where the pane has room, counted where it has not (``3 ⇒ 1 fused``, ``1 ⇒ 1 kernel``,
``1 ⇒ library call``: ``kernel_tui.text.by_line``); a training step's
sections as ``f …`` and ``b …``; a line that launches nothing stays blank. Lines linked to the highlighted kernel
row are marked ``❱`` beside their number (Rich's highlighted lines), the lesson's cursor line ``▶``. With a baseline
pinned (``B``), each cell starts with its line's mark against it (``kernel_tui.text.line_changes``). Pure Rich: the
lesson pane and the tests render it alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from kernel_tui.model.compare.baseline_marks import MARK_STYLES, SAME
from kernel_tui.text.by_line import SOURCE_LINE_SHOWN, gutter_text, short_gutter_text

if TYPE_CHECKING:
    from kernel_tui.text.by_line import LineWork
    from kernel_tui.text.line_changes import LineChange
    from kernel_tui.ui.state.course.source import SourcePiece

MAX_SHARE = 3
"""The gutter takes at most a third of the pane: the code keeps the rest."""
MIN_WIDTH = 16
"""Room for ``1 ⇒ library call``, in a pane whose rows cannot grow (the editor)."""
WRAPPED_MIN_WIDTH = 11
"""Room for ``2 ⇒ 1 fused`` in the lesson's code, whose cells wrap: a wider column squeezed the code there."""
GUTTER_STYLE = "cyan"
LINKED_STYLE = "bold magenta"
"""The number of a line the highlighted kernel row came from."""
VANISHED_STYLE = "yellow"
CURSOR_MARK = "▶"
"""Beside the number of the lesson's cursor line (``j``/``k``), whose kernels the tables mark."""
CURSOR_STYLE = "reverse bold"


def cell_texts(parts: list[LineWork], change: LineChange | None) -> tuple[str, str]:
    """A line's gutter text in full and in short; against a baseline, with its mark and what it was."""
    if change is not None:
        return change.texts()
    return gutter_text(parts, 10_000), short_gutter_text(parts)


def fitted(texts: tuple[str, str], width: int) -> str:
    """The full text where it fits, else the short one, else the short one cut with ``…``."""
    full, short = texts
    if len(full) <= width:
        return full
    return short if len(short) <= width else short[: max(width - 1, 0)] + "…"


_texts_of: list[tuple[dict[int, list[LineWork]], dict[int, LineChange], dict[int, tuple[str, str]]]] = []
"""The last work and changes drawn, with each line's texts: a cursor move draws the same ones again."""


def all_cell_texts(work: dict[int, list[LineWork]], changes: dict[int, LineChange]) -> dict[int, tuple[str, str]]:
    """Each line's ``cell_texts``, worked out once per ``work`` and ``changes`` (``CodeLinks`` hands on the same
    ones while the run shown is the same)."""
    for known_work, known_changes, texts in _texts_of:
        if known_work is work and (known_changes is changes or not (known_changes or changes)):
            return texts
    texts = {line: cell_texts(work.get(line, []), changes.get(line)) for line in {*work, *changes}}
    _texts_of[:] = [(work, changes, texts)]
    return texts


def gutter_width(
    work: dict[int, list[LineWork]],
    pane_width: int,
    changes: dict[int, LineChange] | None = None,
    minimum: int = MIN_WIDTH,
) -> int:
    """Wide enough for the longest full text, within the pane's share (``minimum`` at least); 0 when no line
    launched anything."""
    texts = list(all_cell_texts(work, changes or {}).values())
    if not texts:
        return 0
    share = max(pane_width // MAX_SHARE, minimum)
    full = max(len(full) for full, _ in texts)
    if full <= share:
        return full
    # Too long in full somewhere: every line in short (``2 ⇒ 1 fused``), the column as wide as the longest.
    return min(max(len(short) for _, short in texts), share)


def gutter_cell(
    parts: list[LineWork],
    width: int,
    change: LineChange | None = None,
    texts: tuple[str, str] | None = None,
    *,
    wrap: bool = False,
) -> Text:
    """A line's cell, fitted to ``width``; with ``wrap`` (a pane whose rows can grow), a short text too long for it
    wraps onto more rows rather than being cut."""
    vanished = bool(parts) and all(part.vanished for part in parts)
    style = VANISHED_STYLE if vanished else GUTTER_STYLE
    texts = texts if texts is not None else cell_texts(parts, change)
    if wrap and len(texts[0]) > width:
        text = Text(texts[1], style=style, overflow="fold")
    else:
        text = Text(fitted(texts, width), style=style, no_wrap=True, overflow="ellipsis")
    if change is not None and change.status != SAME:
        text.stylize(MARK_STYLES[change.status], 0, 1)
    return text


def code_with_gutter(
    pieces: list[SourcePiece],
    work: dict[int, list[LineWork]],
    pane_width: int,
    linked: frozenset[int],
    changes: dict[int, LineChange] | None = None,
    cursor: int | None = None,
) -> RenderableType:
    """The pieces of code, highlighted, each line with its gutter cell on the left and its number (``❱`` for the
    ``linked`` lines, ``▶`` and reversed for the ``cursor`` line); a long line, and a cell too long for its column,
    wrap within their own row. With ``changes`` (a baseline is pinned), each cell starts with the line's mark
    against it."""
    from rich.syntax import Syntax

    changes = changes or {}
    width = gutter_width(work, pane_width, changes, WRAPPED_MIN_WIDTH)
    texts = all_cell_texts(work, changes)
    line_counts = [len(piece.code.splitlines()) for piece in pieces]
    last = max(piece.first_line + count - 1 for piece, count in zip(pieces, line_counts, strict=True))
    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=width)
    grid.add_column(width=len(str(last)) + 1, no_wrap=True, justify="right")
    grid.add_column(ratio=1)
    for index, piece in enumerate(pieces):
        if index:
            grid.add_row("", "", "")
        shown_code = cut_long_lines(piece.code)
        syntax = Syntax(shown_code, "python", theme="ansi_dark", background_color="default")
        code_lines = syntax.highlight(shown_code).split("\n", allow_blank=True)
        for number, code in enumerate(code_lines, start=piece.first_line):
            if number >= piece.first_line + line_counts[index]:
                break  # highlight() ends the code with a newline: no line of the file
            cell = gutter_cell(work.get(number, []), width, changes.get(number), texts.get(number), wrap=True)
            if number == cursor:
                cell.stylize(CURSOR_STYLE)
                mark = Text(f"{CURSOR_MARK}{number}", style=CURSOR_STYLE)
            else:
                linked_here = number in linked
                mark = Text(f"{'❱' if linked_here else ' '}{number}", style=LINKED_STYLE if linked_here else "dim")
            grid.add_row(cell, mark, code)
    return grid


def cut_long_lines(code: str) -> str:
    """``code`` with each line longer than ``SOURCE_LINE_SHOWN`` characters cut, the cut said in a comment: a
    3 MB line was highlighted and wrapped whole on every cursor move."""
    if all(len(line) <= SOURCE_LINE_SHOWN for line in code.split("\n")):
        return code
    return "\n".join(
        line
        if len(line) <= SOURCE_LINE_SHOWN
        else f"{line[:SOURCE_LINE_SHOWN]}  # … line cut: {len(line) - SOURCE_LINE_SHOWN:,} more characters"
        for line in code.split("\n")
    )
