"""One mode's kernels (eager or compiled): short name, calls, time, bytes, achieved bandwidth, share of the
mode's time, and attribution (eager: the compiled kernel that absorbed it; compiled: the ops it replaced).
A training step's kernels stand under a heading per section, and against a pinned baseline each row has its
mark (``kernel_tui.ui.state.kernel_rows``), the baseline's removed kernels dimmed among them. The rows are in
launch order or sorted by a figure (``kernel_tui.text.kernel_order``), whose column's header is marked
(``time ▼``); sorted anew, the cursor stays on its kernel.

The columns and their cells come from the one registry (``kernel_tui.text.kernel_columns``), fitted to the
table's width names first: the name column gets the width its longest name needs, then the figure columns
join by priority while they fit; the full-name line under the tables always says all of it for the
highlighted kernel. The subtitle fits its width the same way: its least important parts go first, never the
learner's ``you said N ✓``.

What a table shows are two reactives the explorer sets from its ``Shown``: ``shown`` (its kernels, the pinned
run, the order, the learner's guess, the title) and ``marked_line`` (the code cursor's line, whose rows it marks);
each draws again only when it changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.content import Content
from textual.reactive import var
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey

from kernel_tui.model.compare.baseline_marks import CHANGED, MARK_STYLES
from kernel_tui.text.fit_parts import SUBTITLE_MARGIN, Part, fit_parts
from kernel_tui.text.formatting import (
    NOISY_MARK,
    cut_middle,
    format_bytes,
    format_count,
    format_time_us,
    format_transfers,
    launch_count,
    noisy_times,
)
from kernel_tui.text.kernel_columns import EXPLORER_COLUMNS, LINK, NAME, ColumnPlan, TableOf, fit_columns
from kernel_tui.text.kernel_order import AS_LAUNCHED, SORTED_COLUMNS

LINE_MARK = "bold reverse"
"""A row whose work came from the code line under the cursor."""

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.mode_result import ModeResult
    from kernel_tui.ui.state.kernel_rows import KernelRow
    from kernel_tui.ui.state.pinned_baselines import ModeBaseline
    from kernel_tui.ui.view.shown import TableShown


SHOWN_ROWS = 1_000
"""Rows a table fills: a real scenario has tens of kernels, a crafted results file may hold 20,000, whose rows took
the view's main loop minutes (ctrl+q, and the quit on a closed terminal, waited for them)."""
MIN_CUT_NAME = 8
"""A name cut shorter than this says too little: the change note (also under the tables) gives way first."""


class KernelTable(DataTable[Text]):
    """The kernels one mode ran per call of ``fn``, as the engine grouped them by name."""

    shown: var[TableShown | None] = var(None, init=False)
    """What the explorer hands this table: its kernels, the learner's guess, its title."""
    marked_line: var[int | None] = var(None, init=False)
    """The code line under the code's cursor: the rows whose work came from it are marked."""

    def __init__(self, mode: str, title: str, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False, show_cursor=True)
        self.mode = mode
        self.border_title = Content(title)
        self.kernels: tuple[Kernel, ...] = ()
        """The kernels shown, in row order (tests and the full-name line read this)."""
        self.shown_rows: tuple[KernelRow, ...] = ()
        """Every row: the kernels, with section headings and the baseline's removed kernels among them."""
        self.rows_left_out = 0
        """Rows past ``SHOWN_ROWS``, not filled."""
        self.baseline: ModeBaseline | None = None
        """The pinned run this mode's rows are marked against."""
        self.plan: ColumnPlan | None = None
        """The columns shown at the current width (tests read this)."""
        self.predicted: int | None = None
        """The learner's prediction of this mode's kernel count, shown beside the measured one."""
        self.links_pending = False
        """Eager, while the compiled side is not measured yet: nothing can have absorbed it so far."""
        self.order = AS_LAUNCHED
        """How the rows are ordered (``kernel_order.KERNEL_ORDERS``); the sorted-by column's header is marked."""
        self.headers: tuple[str, ...] = ()
        """The columns' headers as shown, the mark included (tests read this)."""
        self._result: ModeResult | None = None
        self._waiting = ""

    def on_mount(self) -> None:
        self._fit_columns()

    def on_resize(self) -> None:
        self._fit_columns()
        self._show_subtitle()

    def _fit_columns(self) -> None:
        # Figures get fixed widths so the columns line up from one run to the next; the name gets what its
        # longest name needs first. A change of which columns fit rebuilds the table.
        room = self.scrollable_content_region.width - 1
        table = self._table_of()
        wants = {
            NAME.key: max((len(row.label) for row in self.shown_rows), default=0),
            LINK.key: max((len(LINK.cell(kernel, table)) for kernel in self.kernels), default=0),
        }
        plan = fit_columns(EXPLORER_COLUMNS, room, 2 * self.cell_padding, wants, table)
        headers = tuple(column.header(table) for column in plan.columns)
        if self.plan is not None and plan.keys == self.plan.keys and headers == self.headers:
            names_cut_anew = plan.name_width != self.plan.name_width
            self.plan = plan
            for column in plan.columns:
                self._set_width(column.key, plan.widths[column.key])
            if names_cut_anew:
                self._redraw_rows()
            return
        self.plan, self.headers = plan, headers
        cursor = self.cursor_row
        self.clear(columns=True)
        for column, label in zip(plan.columns, headers):
            header = Text(label, justify=column.justify)
            self.add_column(header, key=column.key, width=plan.widths[column.key])
        self._add_rows()
        if self.shown_rows:
            self.move_cursor(row=min(max(cursor, 0), len(self.shown_rows) - 1), animate=False)

    def _table_of(self) -> TableOf:
        """What this table's cells depend on besides each kernel."""
        result = self._result
        # A CUDA preview has no times (None): it generates code and runs nothing.
        preview = result is not None and bool(result.kernels) and all(k.time_us is None for k in result.kernels)
        sorted_by = SORTED_COLUMNS.get(self.order)  # its header marked (``time ▼``), the column wide enough for it
        return TableOf(
            self.mode,
            result,
            preview,
            marks=True,
            noise_in_header=False,
            links_pending=self.links_pending,
            sorted_by=sorted_by,
        )

    def _set_width(self, key: str, width: int) -> None:
        column = self.columns.get(ColumnKey(key))
        if column is None:
            return
        if column.width != width:
            column.width = width
            column.auto_width = False
            self._require_update_dimensions = True
            self.refresh()

    def watch_shown(self, shown: TableShown | None) -> None:
        """Show what the explorer hands this table: its kernels, the learner's guess, and its title."""
        if shown is None:
            return
        self._show_rows(shown.result, shown.waiting, shown.baseline, shown.order)
        self.show_prediction(shown.predicted)
        self.set_links_pending(shown.links_pending)
        if self.border_title != shown.title:
            self.border_title = Content(shown.title)

    def _show_rows(
        self,
        result: ModeResult | None,
        waiting: str = "",
        baseline: ModeBaseline | None = None,
        order: str = AS_LAUNCHED,
    ) -> None:
        """Show a mode's kernels in ``order``; ``waiting`` says why there are none yet (e.g. "compiling…");
        ``baseline``: the pinned run to mark each row against."""
        # The same run's rows again (sorted anew, marked against a baseline): the cursor stays on its row.
        kept = self._cursor_row() if result is not None and result is self._result else None
        reordered = order != self.order
        self._result, self._waiting, self.baseline, self.order = result, waiting, baseline, order
        # The rows ``Shown`` worked out for this table already (``table_rows`` keeps them), not sorted again.
        from kernel_tui.ui.state.cursors import table_rows

        rows: tuple[KernelRow, ...] = table_rows(result, baseline, order)
        self.rows_left_out = max(0, len(rows) - SHOWN_ROWS)
        rows = rows[:SHOWN_ROWS]
        if result is not None and rows == self.shown_rows and self.row_count == len(rows):
            # The rows read the same (a run's final report after its partial one): they hold this result's kernels.
            self.shown_rows = rows
            self.kernels = tuple(row.kernel for row in rows if row.kernel is not None)
            if reordered and self.plan is not None:
                self._fit_columns()  # the same rows (all ties), another header marked
            self._show_subtitle()
            return
        self.clear()
        self.shown_rows = rows
        self.kernels = tuple(row.kernel for row in rows if row.kernel is not None)
        if self.plan is not None:
            self._fit_columns()  # the longest name may have changed
            self.clear()
            self._add_rows()
            if kept is not None and (row := _row_of(rows, kept)) is not None:
                self.move_cursor(row=row, animate=False)
        self._show_subtitle()

    def _cursor_row(self) -> KernelRow | None:
        return self.shown_rows[self.cursor_row] if 0 <= self.cursor_row < len(self.shown_rows) else None

    @property
    def result(self) -> ModeResult | None:
        """The mode shown: the compiled table's is the selected variant's when one is selected."""
        return self._result

    def show_prediction(self, predicted: int | None) -> None:
        """The learner's revealed guess at the kernel count, beside the measured one (None: no guess)."""
        if predicted != self.predicted:
            self.predicted = predicted
            self._show_subtitle()

    def watch_marked_line(self) -> None:
        self._redraw_rows()

    def set_links_pending(self, pending: bool) -> None:
        """Say "…" rather than "—" in the attribution column until the other side is measured."""
        if pending != self.links_pending:
            self.links_pending = pending
            if self.plan is not None:
                self._fit_columns()  # the attributions' width, now that they are known
            self._redraw_rows()

    def _redraw_rows(self) -> None:
        if self.plan is not None and self.shown_rows:
            cursor = self.cursor_row
            # The same rows drawn anew (a code line marked, the attributions known): the cursor stays where it
            # was, and the explorer, which follows the cursor's moves, must not read the redraw as the learner's.
            with self.prevent(DataTable.RowHighlighted):
                self.clear()
                self._add_rows()
                self.move_cursor(row=min(max(cursor, 0), len(self.shown_rows) - 1), animate=False)

    def _add_rows(self) -> None:
        if self.plan is None:
            return
        keys = self.plan.keys
        table = self._table_of()
        marked = self.marked_line  # a reactive: read once, not per row
        for index, row in enumerate(self.shown_rows):
            if row.kernel is not None:
                cells = self._kernel_cells(row, row.kernel, table, marked)
            elif row.heading is not None:
                cells = _heading_cells(row)
            else:
                cells = _removed_cells(row, self.plan.name_width)
            self.add_row(*(cells.get(key, Text("")) for key in keys), key=str(index))

    def _kernel_cells(self, row: KernelRow, kernel: Kernel, table: TableOf, marked: int | None) -> dict[str, Text]:
        assert self.plan is not None
        cells = {
            column.key: Text(column.cell(kernel, table), justify=column.justify, overflow="ellipsis", no_wrap=True)
            for column in self.plan.columns
            if column is not NAME
        }
        name = _name_cell(row, self.plan.name_width)
        if marked is not None and marked in kernel.lines:
            name.stylize(LINE_MARK)
        cells[NAME.key] = name
        return cells

    def _show_subtitle(self) -> None:
        result = self._result
        if result is None:
            self.border_subtitle = Content(self._waiting)
            return
        parts = [Part("no kernels")] if not result.kernels else _totals(result)
        if noisy_times(result):
            parts.append(Part(f"times {NOISY_MARK}", 4))  # kernel times above the call's: read them as shares
        if result.kernels and result.bound is not None and result.bound_share is not None:
            bound = f"{result.bound} {result.bound_share:.0%}"  # the side holding most kernel time
            unclassified = result.unclassified_share or 0.0
            said = f"{bound} of classified, {unclassified:.0%} unclassified" if unclassified >= 0.005 else bound
            parts.append(Part(said, 5, short=bound))
        if self.rows_left_out:
            parts.append(Part(f"first {SHOWN_ROWS:,} rows shown, {self.rows_left_out:,} more in the JSON", 1))
        if self.predicted is not None:
            right = round(result.kernel_count) == self.predicted
            parts.append(Part(f"you said {self.predicted} {'✓' if right else '✗'}"))
        self.border_subtitle = Content(fit_parts(parts, self.outer_size.width - SUBTITLE_MARGIN))

    def highlighted_kernel(self) -> Kernel | None:
        """The kernel under the cursor, if any (a heading or a removed kernel is none of this run's)."""
        if not 0 <= self.cursor_row < len(self.shown_rows):
            return None
        return self.shown_rows[self.cursor_row].kernel


def _row_of(rows: tuple[KernelRow, ...], row: KernelRow) -> int | None:
    """Where ``row`` stands in ``rows``: a kernel's row by the kernel (its nested name may differ in another
    order), a heading or a removed kernel as it was."""
    for index, each in enumerate(rows):
        same = each.kernel is row.kernel if row.kernel is not None else each == row
        if same:
            return index
    return None


def _totals(result: ModeResult) -> list[Part]:
    """Launches, bytes and time per call: the launches stay, the time goes before the bytes."""
    launches = "launch" if result.kernel_count == 1 else "launches"
    preview = all(kernel.time_us is None for kernel in result.kernels)
    return [
        Part(f"{launch_count(result)} {launches}"),
        Part(f"{format_bytes(result.bytes_total)} ({format_transfers(result.transfers)})", 2),
        Part(f"{format_time_us(result.time_us, preview=preview)}/call", 3),
    ]


def _name_cell(row: KernelRow, width: int | None = None) -> Text:
    """The mark, the name and the change note; a name too long for ``width`` is cut in the middle (its end
    tells ``+ cpp_fused_add_relu_1`` from ``- cpp_fused_add_relu_0``; cut at the end both read the same)."""
    text = Text(overflow="ellipsis", no_wrap=True)
    status = row.change.status if row.change is not None else None
    note = f"  {row.note}" if row.note else ""
    name = row.name
    if width is not None and len(row.mark) + len(name) + len(note) > width:
        body = name.lstrip()
        indent = name[: len(name) - len(body)]  # a training step's rows stand under their section
        room = width - len(row.mark) - len(indent) - len(note)
        if room < MIN_CUT_NAME:
            note, room = "", width - len(row.mark) - len(indent)  # the note is in the line under the tables too
        if len(body) > room and "::" in body:
            body = body.split("::", 1)[1]  # every eager row says aten::; the operator is what differs
        name = indent + cut_middle(body, max(room, 1))
    if row.mark:
        text.append(row.mark, style=MARK_STYLES.get(status or "", ""))
    text.append(name)
    if note:
        text.append(note, style=MARK_STYLES[CHANGED])
    return text


def _heading_cells(row: KernelRow) -> dict[str, Text]:
    return {
        "kernel": Text(row.mark + (row.heading or ""), style="bold", no_wrap=True),
        "calls": Text(format_count(row.heading_calls), style="bold", justify="right"),
    }


def _removed_cells(row: KernelRow, name_width: int) -> dict[str, Text]:
    """A kernel only the baseline launched: its numbers there, dimmed."""
    change = row.change
    assert change is not None
    cells = {
        "kernel": _name_cell(row, name_width),
        "calls": Text(format_count(change.old_calls), justify="right"),
        "time": Text(format_time_us(change.time.old_us), justify="right"),
        "bytes": Text(format_bytes(change.old_bytes), justify="right"),
    }
    for cell in cells.values():
        cell.stylize("dim")
    return cells
