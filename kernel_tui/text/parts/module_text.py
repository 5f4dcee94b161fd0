"""The call per ``nn.Module`` as ``kernel-tui run`` prints it: repeated blocks folded (``h.*`` ×12, with the
spread of their times), deeper modules summed into their parents until the table fits (``folded_modules``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.table import Table

from kernel_tui.model.report.figures import module_figure, most_first
from kernel_tui.model.report.module_table import FN, MOST_ROWS, FoldedModule, folded_modules
from kernel_tui.text.formatting import format_bytes, format_count, format_time_us
from kernel_tui.text.names_beside_figures import columns_kept

if TYPE_CHECKING:
    from kernel_tui.model.report.report import ScenarioReport

MODULE_HEADERS = ("launches", "eager", "compiled", "bytes", "share", "spread")
"""The columns after the module (its path, and ``×12`` for twelve blocks folded into it): launches eager →
compiled, each mode's kernel time, bytes eager → compiled, the share of each mode's kernel time, and the spread of
the folded blocks' times."""
LEFT_OUT_FIRST = ("spread", "share", "bytes", "eager")
"""What a narrow terminal loses first, before a module's path is cut: the spread, the shares, the bytes, eager's
time; the launches and the compiled time stay."""
NO_MODULE = "(no module)"
"""The row of launches no module is known for (backward operators, a preview's)."""
FN_ITSELF = "(fn)"
"""The row of ``fn``'s own code, outside every module."""


def module_name(path: str | None) -> str:
    """A row's path as the table shows it."""
    if path is None:
        return NO_MODULE
    return FN_ITSELF if path == FN else path


def _percent(share: float | None) -> str:
    return f"{share:.0%}" if share is not None else "—"


def module_label(path: str | None, repeats: int) -> str:
    """The module column: the path, and how many blocks were folded into it."""
    name = module_name(path)
    return f"{name} ×{repeats}" if repeats > 1 else name


def module_cells(module: FoldedModule, preview: bool = False) -> tuple[str, ...]:
    """One folded module's cells, in ``MODULE_HEADERS`` order."""
    row = module.row
    spread = module.spread_us
    return (
        f"{format_count(row.eager_launches)} → {format_count(row.compiled_launches)}",
        format_time_us(row.eager_time_us, preview),
        format_time_us(row.compiled_time_us, preview),
        f"{format_bytes(row.eager_bytes)} → {format_bytes(row.compiled_bytes)}",
        f"{_percent(row.eager_share)} → {_percent(row.compiled_share)}",
        f"{format_time_us(spread[0])}–{format_time_us(spread[1])}" if spread is not None else "",
    )


ORDERS: dict[str, Callable[[FoldedModule], float | None] | None] = {
    "tree": None,
    "time": lambda module: module_figure(module.row, "time", "compiled", "eager"),
    "bytes": lambda module: module_figure(module.row, "bytes", "compiled", "eager"),
    "launches": lambda module: module_figure(module.row, "launches", "eager", "compiled"),
}
"""How the table's rows may be ordered: as the modules nest, or by time and bytes (compiled where measured, else
eager) or by eager launches (the count fusion brings down), most first; a module whose figure is unknown in both
modes last (``figures.most_first``)."""


def module_table_view(
    report: ScenarioReport, width: int | None = None, most: int = MOST_ROWS, order: str = "tree"
) -> Table | None:
    """The per-module table in ``order`` (one of ``ORDERS``), or None where no kernel names a module. Within
    ``width`` cells the paths stay whole and figures go first (``LEFT_OUT_FIRST``)."""
    if not report.modules:
        return None
    by = ORDERS[order]
    modules = folded_modules(report.modules, most)
    if by is not None:
        modules = tuple(most_first(modules, by))
    names = [module_label(module.path, module.repeats) for module in modules]
    rows = [dict(zip(MODULE_HEADERS, module_cells(module, report.is_preview))) for module in modules]
    widest = {header: max([len(header), *(len(row[header]) for row in rows)]) for header in MODULE_HEADERS}
    kept = columns_kept(max([len("module"), *map(len, names)]), widest, LEFT_OUT_FIRST, width)
    title = "by module (launches, bytes and share eager → compiled)" + (f", most {order} first" if by else "")
    table = Table(title=title, title_justify="left", pad_edge=False)
    table.add_column("module", overflow="ellipsis", no_wrap=True, min_width=12)
    for header in kept:
        table.add_column(header, justify="right", no_wrap=True)
    for name, row in zip(names, rows):
        table.add_row(name, *(row[header] for header in kept))
    return table
