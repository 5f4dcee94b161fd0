"""The code pane's gutter: each line of ``fn`` with its eager launches and what they became compiled.

``2 ⇒ cpp_fused_add_relu_0`` where the pane has room, ``2 ⇒ 1 fused`` where it has not; a training step's
sections as ``f …`` and ``b …``; a line that launches nothing stays blank. Lines linked to the highlighted kernel
row are marked ``❱`` beside their number (Rich's highlighted lines). Pure Rich: the lesson pane and the tests
render it alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from kernel_tui.by_line import gutter_text, short_gutter_text

if TYPE_CHECKING:
    from kernel_tui.by_line import LineWork
    from kernel_tui.ui.source import SourcePiece

MAX_SHARE = 3
"""The gutter takes at most a third of the pane: the code keeps the rest."""
MIN_WIDTH = 11
"""Room for ``2 ⇒ 1 fused``."""
GUTTER_STYLE = "cyan"
LINKED_STYLE = "bold magenta"
"""The number of a line the highlighted kernel row came from."""
VANISHED_STYLE = "yellow"


def gutter_width(work: dict[int, list[LineWork]], pane_width: int) -> int:
    """Wide enough for the longest full text, within the pane's share; 0 when no line launched anything."""
    if not work:
        return 0
    share = max(pane_width // MAX_SHARE, MIN_WIDTH)
    full = max(len(gutter_text(parts, 10_000)) for parts in work.values())
    if full <= share:
        return full
    # Too long in full somewhere: every line in short (``2 ⇒ 1 fused``), the column as wide as the longest.
    return min(max(len(short_gutter_text(parts)) for parts in work.values()), share)


def gutter_cell(parts: list[LineWork], width: int) -> Text:
    text = gutter_text(parts, width)
    vanished = bool(parts) and all(part.vanished for part in parts)
    return Text(text, style=VANISHED_STYLE if vanished else GUTTER_STYLE, no_wrap=True, overflow="ellipsis")


def code_with_gutter(
    pieces: list[SourcePiece], work: dict[int, list[LineWork]], pane_width: int, linked: frozenset[int]
) -> RenderableType:
    """The pieces of code, highlighted, each line with its gutter cell on the left and its number (``❱`` for the
    ``linked`` lines); a long line wraps within its own row, beside its own cell."""
    from rich.syntax import Syntax

    width = gutter_width(work, pane_width)
    last = max(piece.first_line + len(piece.code.splitlines()) - 1 for piece in pieces)
    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=width, no_wrap=True)
    grid.add_column(width=len(str(last)) + 1, no_wrap=True, justify="right")
    grid.add_column(ratio=1)
    for index, piece in enumerate(pieces):
        if index:
            grid.add_row("", "", "")
        syntax = Syntax(piece.code, "python", theme="ansi_dark", background_color="default")
        code_lines = syntax.highlight(piece.code).split("\n", allow_blank=True)
        for number, code in enumerate(code_lines, start=piece.first_line):
            if number >= piece.first_line + len(piece.code.splitlines()):
                break  # highlight() ends the code with a newline: no line of the file
            mark = Text(
                f"{'❱' if number in linked else ' '}{number}", style=LINKED_STYLE if number in linked else "dim"
            )
            grid.add_row(gutter_cell(work.get(number, []), width), mark, code)
    return grid
