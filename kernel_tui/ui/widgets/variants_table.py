"""The compile variants beside eager and compiled: one row each, with its note or error on a line below.

The cells are ``kernel_tui.text.formatting.variant_rows``, the same the ``kernel-tui run`` table and the lab report
print. On a narrow pane (an 80-column terminal) the time loses its spread and graph breaks and recompiles
share a column, so every row still fits without scrolling sideways; the lines under the table say in full
what a mark in a row (⚠ a note, ✗ an error) stands for. Enter on a row shows that variant's kernels in the
compiled table. The pane is not displayed for a report without variants.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.reactive import var
from textual.widgets import DataTable

from kernel_tui.text.formatting import VARIANT_HEADERS, variant_rows
from kernel_tui.text.parts.variant_text import autotune_lines, recompile_lines
from kernel_tui.ui.widgets.steady_static import SteadyStatic

if TYPE_CHECKING:
    from kernel_tui.model.report.report import ScenarioReport, VariantResult
    from kernel_tui.ui.view.shown import VariantsShown

COMPACT_HEADERS = ("kern.", "bytes", "time", "speedup", "comp.", "brk/rc")
"""The columns of a narrow pane: ``VARIANT_HEADERS`` shortened, the spread dropped, breaks/recompiles joined."""
NOTE_MARK = "⚠"
ERROR_MARK = "✗"
NO_NUMBERS = "—"
"""Every cell of a variant that could not be measured; the line under the table says why."""
KERNELS_MARK = "▸"
"""Before the name of the row whose kernels the compiled table shows."""


def compact_cells(cells: tuple[str, ...]) -> tuple[str, ...]:
    """A row's ``VARIANT_HEADERS`` cells under ``COMPACT_HEADERS``."""
    kernels, size, time, speedup, compile_s, breaks, recompiles = cells
    joined = f"{breaks}/{recompiles}" if breaks or recompiles else ""
    return kernels, size, time.split(" ± ")[0], speedup, compile_s, joined


def variant_mark(variant: VariantResult | None) -> str:
    if variant is None:
        return ""
    if variant.error is not None:
        return ERROR_MARK
    return NOTE_MARK if variant.note else ""


def variant_notes(report: ScenarioReport, names: list[str]) -> list[Text]:
    """One line per shown variant that has something to say: what the device made of it, or why it failed."""
    lines = []
    for name in names:
        variant = report.variants[name]
        if variant.error is not None:
            lines.append(Text(f"{ERROR_MARK} {name}: {variant.error.short_line()}", style="red"))
        elif variant.note:
            lines.append(Text(f"{NOTE_MARK} {name}: {variant.note}", style="yellow"))
        lines.extend(Text(line) for line in autotune_lines(name, variant, report.device))
    lines.extend(Text(line) for line in recompile_lines(report))
    return lines


class VariantsTable(DataTable[str | Text]):
    """Eager, compiled and each shown variant: kernels, bytes, time, speedup, compile time, breaks, recompiles.

    Rows are keyed by name (``eager``, ``compiled`` or the variant's)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False, show_cursor=True)
        self.border_title = "Compile variants"
        self.rows_shown: list[tuple[str, tuple[str, ...] | None]] = []
        """(name, cells under ``VARIANT_HEADERS``) as shown, in order; None: no numbers (tests read this)."""
        self.compact = False
        """Whether the narrow columns are shown."""
        self._kernels_of = "compiled"
        self._marks: dict[str, str] = {}

    def on_resize(self) -> None:
        self._fill()

    def show(self, rows: list[tuple[str, tuple[str, ...] | None]], marks: dict[str, str], kernels_of: str) -> None:
        """Show ``rows``; ``marks`` by name (⚠, ✗); ``kernels_of``: the row whose kernels the compiled table shows."""
        if rows == self.rows_shown and marks == self._marks and kernels_of == self._kernels_of and self.row_count:
            return
        self.rows_shown, self._marks, self._kernels_of = rows, marks, kernels_of
        self._fill()

    def _fill(self) -> None:
        compact = self._needs_compact()
        cursor = self.cursor_row
        self.clear(columns=compact != self.compact or not self.columns)
        self.compact = compact
        if not self.columns:
            self.add_column("variant", key="name")
            for header in COMPACT_HEADERS if compact else VARIANT_HEADERS:
                self.add_column(Text(header, justify="right"), key=header)
        width = len(self.columns) - 1
        for name, cells in self.rows_shown:
            label = Text(f"{KERNELS_MARK if name == self._kernels_of else ' '} {name}")
            if mark := self._marks.get(name):
                label.append(f" {mark}", style="red" if mark == ERROR_MARK else "yellow")
            if cells is None:
                shown: tuple[str, ...] = (NO_NUMBERS,) * width
            else:
                shown = compact_cells(cells) if compact else cells
            self.add_row(label, *(Text(cell, justify="right") for cell in shown), key=name)
        if self.rows_shown:
            self.move_cursor(row=min(max(cursor, 0), len(self.rows_shown) - 1), animate=False)

    def _needs_compact(self) -> bool:
        room = self.scrollable_content_region.width
        if room <= 0:
            return False
        padding = 2 * self.cell_padding
        names = max((len(name) + 4 for name, _ in self.rows_shown), default=0)
        full = len("variant") if not names else max(names, len("variant"))
        full += padding
        for index, header in enumerate(VARIANT_HEADERS):
            widest = max((len(cells[index]) for _, cells in self.rows_shown if cells is not None), default=0)
            full += max(len(header), widest) + padding
        return full > room


class VariantsPane(Vertical):
    """The variants table and the notes under it."""

    DEFAULT_CSS = """
    VariantsPane {
        height: auto;
        display: none;
    }

    VariantsPane.-shown {
        display: block;
    }

    VariantsPane VariantsTable {
        height: auto;
        max-height: 10;
        border: round $panel-lighten-2;
        border-title-color: $text-muted;
        border-subtitle-color: $text-muted;
        background: $surface;
        scrollbar-size-vertical: 1;
    }

    VariantsPane VariantsTable:focus {
        border: round $accent;
        border-title-color: $text;
        border-title-style: bold;
    }

    VariantsPane #variant-notes {
        height: auto;
        padding: 0 1;
    }
    """

    shown: var[VariantsShown | None] = var(None, init=False)
    """What the explorer hands the pane: the report, the variants hidden, the one whose kernels are shown."""

    def compose(self) -> ComposeResult:
        yield VariantsTable(id="variants-table")
        yield SteadyStatic(id="variant-notes")

    def watch_shown(self, shown: VariantsShown | None) -> None:
        """The report's variants but the hidden ones; nothing at all for a report without variants."""
        if shown is None:
            return
        report, hidden, kernels_of = shown.report, shown.hidden, shown.kernels_of
        self.set_class(report is not None and bool(report.variants), "-shown")
        if report is None or not report.variants:
            return
        rows = [(name, cells) for name, cells in variant_rows(report) if name not in hidden]
        names = [name for name, _ in rows if name in report.variants]
        marks = {name: variant_mark(report.variants[name]) for name in names}
        table = self.query_one(VariantsTable)
        table.show(rows, {name: mark for name, mark in marks.items() if mark}, kernels_of or "compiled")
        count = len(hidden & set(report.variants))
        hint = "enter: its kernels · v: choose"
        table.border_subtitle = Content(f"{count} hidden · {hint}" if count else hint)
        notes = variant_notes(report, names)
        notes_line = self.query_one("#variant-notes", SteadyStatic)
        notes_line.show_content(Text("\n").join(notes))
        notes_line.display = bool(notes)
