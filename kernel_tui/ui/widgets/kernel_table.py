"""One mode's kernels (eager or compiled): short name, calls, time, bytes, and share of the mode's time."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from kernel_tui.formatting import format_bytes, format_count, format_time_us, format_transfers
from kernel_tui.report import Kernel, ModeResult

COLUMNS = (("kernel", "left", None), ("calls", "right", 5), ("time", "right", 9), ("bytes", "right", 9),
           ("share", "right", 5))
"""(label, justification, width): numbers get fixed widths so the columns line up from one run to the next;
the kernel name gets what is left (see ``on_resize``)."""
MIN_NAME_WIDTH = 12

class KernelTable(DataTable):
    """The kernels one mode ran per call of ``fn``, as the engine grouped them by name."""

    def __init__(self, mode: str, title: str, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False, show_cursor=True)
        self.mode = mode
        self.border_title = title
        self.kernels: tuple[Kernel, ...] = ()
        """The kernels shown, in row order (tests and the full-name line read this)."""

    def on_mount(self) -> None:
        for label, justify, width in COLUMNS:
            self.add_column(Text(label, justify=justify), key=label, width=width or MIN_NAME_WIDTH)

    def on_resize(self) -> None:
        self._fit_name_column()

    def _fit_name_column(self) -> None:
        # Give the kernel name every column the numbers leave; a long name is cut here and shown whole
        # in the full-name line under the tables.
        if "kernel" not in self.columns:
            return
        fixed = sum(width + 2 * self.cell_padding for _, _, width in COLUMNS if width)
        room = self.scrollable_content_region.width - fixed - 2 * self.cell_padding - 1
        column = self.columns["kernel"]
        width = max(MIN_NAME_WIDTH, room)
        if column.width != width:
            column.width = width
            column.auto_width = False
            self._require_update_dimensions = True
            self.refresh()

    def show(self, result: ModeResult | None, waiting: str = "") -> None:
        """Show a mode's kernels; ``waiting`` says why there are none yet (e.g. "compiling…")."""
        if result is not None and result.kernels == self.kernels and self.row_count == len(self.kernels):
            self._show_subtitle(result, waiting)
            return
        self.clear()
        self.kernels = result.kernels if result is not None else ()
        total_time = sum(kernel.time_us for kernel in self.kernels)
        for index, kernel in enumerate(self.kernels):
            share = f"{kernel.time_us / total_time:.0%}" if total_time > 0 else "—"
            self.add_row(
                kernel.short_name,
                Text(format_count(kernel.calls), justify="right"),
                Text(format_time_us(kernel.time_us), justify="right"),
                Text(format_bytes(kernel.bytes_total), justify="right"),
                Text(share, justify="right"),
                key=str(index),
            )
        self._show_subtitle(result, waiting)

    def _show_subtitle(self, result: ModeResult | None, waiting: str) -> None:
        if result is None:
            self.border_subtitle = waiting
        elif not result.kernels:
            self.border_subtitle = "no kernels"
        else:
            launches = "launch" if result.kernel_count == 1 else "launches"
            self.border_subtitle = (
                f"{format_count(result.kernel_count)} {launches} · {format_bytes(result.bytes_total)} "
                f"({format_transfers(result.transfers)}) · {format_time_us(result.time_us)}/call"
            )

    def highlighted_kernel(self) -> Kernel | None:
        """The kernel under the cursor, if any."""
        if not self.kernels or not 0 <= self.cursor_row < len(self.kernels):
            return None
        return self.kernels[self.cursor_row]
