"""Which figure columns a narrow table keeps beside its names: the names stay whole and figures go, in an order
each table states, where the kernel tables do it through their column registry (``kernel_columns``).

The launches and roofline tables of ``kernel-tui run`` are built from fixed headers rather than the registry:
this gives them the same rule, so that at 80 columns no name is cut while a figure column still fits beside it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kernel_tui.text.kernel_columns import MAX_NAME_WIDTH

RULED = 3
"""Cells a column of a Rich table takes besides its text: its padding either side and its rule."""


def columns_kept(
    name_width: int, others: Mapping[str, int], leave_out_first: Sequence[str], width: int | None
) -> tuple[str, ...]:
    """The keys of ``others`` (each column's widest cell) to show beside a name column of ``name_width`` cells
    (at most ``MAX_NAME_WIDTH``) in a table ``width`` cells wide (None: every one): the columns named in
    ``leave_out_first`` go, in that order, until the names fit whole; the others always stay."""
    kept = dict(others)
    name = min(name_width, MAX_NAME_WIDTH)

    def table_width() -> int:
        # The edges are not padded (``pad_edge=False``): one cell less either side than the columns' padding.
        return name + sum(kept.values()) + RULED * (len(kept) + 1) - 1

    for key in leave_out_first:
        if width is None or table_width() <= width:
            break
        kept.pop(key, None)
    return tuple(key for key in others if key in kept)
