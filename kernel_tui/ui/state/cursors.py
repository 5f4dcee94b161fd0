"""Where the explorer's cursors are, as plain state: the kernel tables', the lesson's line cursor, the editor's line.

The cursors themselves stay the widgets' (a ``DataTable`` moves its own); the explorer copies each move from the
event that tells of it (``DataTable.RowHighlighted``, a table focused, ``j``/``k``, the editor's selection) into
``Cursors`` through its transitions, and ``shown()`` derives from them the line under the tables, the code's
links and the chart's highlight. Nothing here touches Textual.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from kernel_tui.text.kernel_order import AS_LAUNCHED

if TYPE_CHECKING:
    from collections.abc import Iterable

    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.mode_result import ModeResult
    from kernel_tui.ui.state.kernel_rows import KernelRow
    from kernel_tui.ui.state.pinned_baselines import ModeBaseline

CodeCursor = Literal["lesson", "editor"]


@dataclass(frozen=True)
class TableCursor:
    """A table's cursor row, and the rows it was on: a table refilled with other rows puts its cursor on the
    first (``DataTable.clear``), and says so only once the first row is in."""

    row: int
    rows: tuple[KernelRow, ...]


@dataclass(frozen=True)
class LessonLine:
    """The lesson's line cursor (``j``/``k``) on one scenario's code; None: no line of it has work to walk."""

    path: Path
    line: int | None


@dataclass(frozen=True)
class Cursors:
    """Which table the line under the tables follows, where each table's cursor is, and the code's cursor lines."""

    followed: str = "eager"
    """The table last focused (or moved while focused): ``eager`` or ``compiled``."""
    eager: TableCursor | None = None
    compiled: TableCursor | None = None
    lesson: LessonLine | None = None
    editor_line: int | None = None
    """The editor's cursor line (1-based), once it moved."""
    code_cursor: CodeCursor = "lesson"
    """The code cursor moved last: its line marks the tables' rows."""
    telling: bool = False
    """The line under the tables tells of the code cursor's line, until a table's cursor moves."""

    def table(self, mode: str) -> TableCursor | None:
        return self.compiled if mode == "compiled" else self.eager

    def row_highlighted(self, mode: str, row: int, rows: tuple[KernelRow, ...], *, focused: bool) -> Cursors:
        """A table's cursor is on ``row`` of ``rows``; moved by the learner (``focused``), it is the one followed,
        and the line under the tables speaks of its kernel again."""
        cursor = TableCursor(row, rows)
        moved = replace(self, compiled=cursor) if mode == "compiled" else replace(self, eager=cursor)
        return replace(moved, followed=mode, telling=False) if focused else moved

    def table_focused(self, mode: str) -> Cursors:
        return replace(self, followed=mode)

    def lesson_line_moved(self, path: Path, line: int | None) -> Cursors:
        """``j``/``k`` put the lesson's line cursor on ``line`` of ``path``'s code (None: no line to walk)."""
        return replace(self, lesson=LessonLine(path, line), code_cursor="lesson", telling=True)

    def editor_line_moved(self, line: int) -> Cursors:
        return replace(self, editor_line=line, code_cursor="editor", telling=True)

    def lesson_line_on(self, path: Path) -> LessonLine | None:
        """The lesson's line cursor where it is on ``path``'s code (a scenario of its own starts without one)."""
        return self.lesson if self.lesson is not None and self.lesson.path == path else None


NO_CURSORS = Cursors()
"""Where the cursors start: no table moved, no code line."""


def next_code_line(lines: Iterable[int], current: int | None, step: int) -> int | None:
    """The line after (``step`` 1) or before (-1) ``current`` among ``lines``, round at the ends; None: no line."""
    ordered = sorted(set(lines))
    if not ordered:
        return None
    ahead = [line for line in ordered if (line - current) * step > 0] if current is not None else []
    if ahead:
        return ahead[0] if step > 0 else ahead[-1]
    return ordered[0] if step > 0 else ordered[-1]


def under_cursor(cursor: TableCursor | None, rows: tuple[KernelRow, ...]) -> Kernel | None:
    """The kernel of ``rows`` under a table's cursor: on rows it was not moved on, the table's cursor is on the
    first (a heading or a removed kernel is none of this run's)."""
    row = cursor.row if cursor is not None and (cursor.rows is rows or cursor.rows == rows) else 0
    return rows[row].kernel if 0 <= row < len(rows) else None


_last_rows: list[tuple[ModeResult, ModeBaseline | None, str, tuple[KernelRow, ...]]] = []
"""The rows of the latest tables (eager, compiled), by the identity of their result and baseline, and their order."""


def table_rows(
    result: ModeResult | None, baseline: ModeBaseline | None, order: str = AS_LAUNCHED
) -> tuple[KernelRow, ...]:
    """The rows a kernel table shows of ``result`` marked against ``baseline`` in ``order``, as it fills them
    (``kernel_tui.ui.state.kernel_rows``); worked out once per table content, not on every derivation of ``Shown``."""
    if result is None:
        return ()
    for seen, seen_baseline, seen_order, rows in _last_rows:
        if seen is result and seen_baseline is baseline and seen_order == order:
            return rows
    # Imported with the first result: the rows' module brings the baseline comparison and the report.
    from kernel_tui.ui.state.kernel_rows import kernel_rows

    rows = kernel_rows(result, baseline, order)
    _last_rows[:] = [*_last_rows[-1:], (result, baseline, order, rows)]
    return rows
