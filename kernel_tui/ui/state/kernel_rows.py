"""The rows of one kernel table: a heading per section of a training step, each kernel with its mark against
a pinned baseline, and the baseline's kernels this run no longer launches.

Plain data, no Textual, so the order and the wording are tested without an app; ``KernelTable`` turns each
row into cells. Without a baseline or a training step the rows are the mode's kernels, named as before. Ordered
by a figure (``kernel_tui.text.kernel_order``), a training step's kernels are sorted within their section, as a
learner reads them, and the baseline's removed kernels stay after this run's: they have no figure of this run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernel_tui.model.compare.baseline_marks import CHANGED, MARKS, REMOVED
from kernel_tui.model.report.kernel import Kernel, nested_names
from kernel_tui.model.report.report_keys import SECTIONS
from kernel_tui.text.baseline import KernelChange, calls_text, kernel_bytes_text
from kernel_tui.text.kernel_order import AS_LAUNCHED, in_order

if TYPE_CHECKING:
    from kernel_tui.model.report.mode_result import ModeResult
    from kernel_tui.ui.state.pinned_baselines import ModeBaseline

SECTION_INDENT = "  "
"""A kernel under a section heading is indented, as ``kernel-tui run`` prints it."""


@dataclass(frozen=True)
class KernelRow:
    """One table row: a kernel of this run, a section heading, or a kernel only the baseline launched."""

    name: str
    """The name cell's text without the mark: nested (``aten::logsumexp ┬ amax``) and indented in a section."""
    kernel: Kernel | None = None
    """The kernel of this run the row shows; None for a heading and for a removed kernel."""
    heading: str | None = None
    """The section a heading row heads (``forward``, ``backward``)."""
    heading_calls: float = 0.0
    """A heading's launches: its section's calls summed."""
    change: KernelChange | None = None
    """The row against the pinned baseline; None without one."""
    marked: bool = False
    """A baseline is shown: every row leaves room for a mark, so that names stay aligned."""

    @property
    def removed(self) -> bool:
        return self.change is not None and self.change.status == REMOVED

    @property
    def mark(self) -> str:
        """``+``, ``-``, ``~`` or a blank; "" without a baseline."""
        if not self.marked:
            return ""
        return MARKS[self.change.status] + " " if self.change is not None else "  "

    @property
    def note(self) -> str:
        """What changed in a kernel both runs launched: ``1 → 2 calls``, ``-4.0 MiB``."""
        change = self.change
        if change is None or change.status != CHANGED:
            return ""
        parts = []
        if change.old_calls != change.new_calls:
            parts.append(calls_text(change))
        if change.bytes_delta:
            parts.append(kernel_bytes_text(change))
        return ", ".join(parts)

    @property
    def label(self) -> str:
        """The whole name cell as text: mark, name and note (what the name column's width is fitted to)."""
        return self.mark + self.name + (f"  {self.note}" if self.note else "")


def kernel_rows(
    result: ModeResult | None, baseline: ModeBaseline | None = None, order: str = AS_LAUNCHED
) -> tuple[KernelRow, ...]:
    """The rows of ``result``'s table, against ``baseline`` when one is pinned, in ``order``
    (``kernel_order.KERNEL_ORDERS``)."""
    if result is None:
        return ()
    changes = _changes_by_kernel(result.kernels, baseline)  # paired in launch order, before any sort
    removed = [change for change in baseline.comparison.kernels if change.status == REMOVED] if baseline else []
    marked = baseline is not None
    if not result.is_training:
        return (
            *_rows_of(in_order(result.kernels, order), changes, "", marked),
            *(KernelRow(change.name, change=change, marked=marked) for change in removed),
        )
    sections = _removed_sections(removed, baseline.pinned.kernels if baseline else ())
    rows: list[KernelRow] = []
    for section in SECTIONS:
        kernels = in_order(result.section(section), order)
        gone = [change for change in removed if sections.get(change.old_name) == section]
        rows.append(KernelRow(section, heading=section, heading_calls=sum(k.calls for k in kernels), marked=marked))
        rows.extend(_rows_of(kernels, changes, SECTION_INDENT, marked))
        rows.extend(KernelRow(SECTION_INDENT + change.name, change=change, marked=marked) for change in gone)
    # A removed kernel of no section (the baseline was not a training step) still shows, at the end.
    rows.extend(
        KernelRow(change.name, change=change, marked=marked) for change in removed if change.old_name not in sections
    )
    return tuple(rows)


def _rows_of(kernels: Sequence[Kernel], changes: dict[int, KernelChange], indent: str, marked: bool) -> list[KernelRow]:
    return [
        KernelRow(indent + name, kernel=kernel, change=changes.get(id(kernel)), marked=marked)
        for kernel, name in zip(kernels, nested_names(kernels))
    ]


def _changes_by_kernel(kernels: Sequence[Kernel], baseline: ModeBaseline | None) -> dict[int, KernelChange]:
    """Each kernel's row of the comparison, by the kernel's identity: ``compare`` lists the new run's kernels
    first, in the run's order, then the removed ones."""
    if baseline is None:
        return {}
    paired = zip(kernels, baseline.comparison.kernels)
    return {id(kernel): change for kernel, change in paired if change.new_name == kernel.name}


def _removed_sections(removed: Sequence[KernelChange], pinned: Sequence[Kernel]) -> dict[str | None, str]:
    """The section each removed kernel ran in, from the pinned run's own kernels."""
    section_of = {kernel.name: kernel.section for kernel in pinned if kernel.section is not None}
    return {change.old_name: section_of[change.old_name] for change in removed if change.old_name in section_of}
