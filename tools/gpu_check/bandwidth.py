"""``gpu-check``'s bandwidth line: the largest elementwise kernel that read its inputs from memory, against the
device's measured copy ceiling.

The engine flushes the GPU's L2 cache before each profiled run of ``fn`` (``engine.counting.profiling``), so the run's
first launch reads what it reads from memory. Every later kernel may read what the kernels before it wrote or
read, and at the course's sizes (arrays of 4 MiB against an H200's 50 MiB of L2) that is in the cache. The H200's
table took the largest elementwise kernel wherever it ran: in lesson 03's eager chain of seven, each moving the
same 8 MiB, the ``abs`` fifth in line read 102.6 % of the copy ceiling and the ``mul`` first in line 54 %. So the
candidates are the first launch of each profiled run, eager's and compiled's (a training step's is its forward's
first), when it is elementwise and launched once per run (a row's time is all its launches': a second launch of
it reads what the first left in L2). No torch is imported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernel_tui.model.names.names import is_elementwise
from kernel_tui.model.report.report_keys import MODES
from kernel_tui.text.formatting import bandwidth_text

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.report import ScenarioReport


@dataclass(frozen=True)
class FromMemory:
    """A kernel that read its inputs from memory: the first launch of a profiled run."""

    mode: str
    kernel: Kernel


def first_launches(report: ScenarioReport) -> list[FromMemory]:
    """The first launch of each mode's profiled run (a kernel table lists rows in the order they first ran)."""
    modes = ((mode, report.mode(mode)) for mode in MODES)
    return [FromMemory(mode, result.kernels[0]) for mode, result in modes if result is not None and result.kernels]


def read_from_memory(kernel: Kernel) -> bool:
    """Whether the first launch's row measures an elementwise read from memory and nothing else."""
    return is_elementwise(kernel.name) and round(kernel.calls) == 1 and bool(kernel.bytes_total)


def largest_from_memory(report: ScenarioReport) -> FromMemory | None:
    """The elementwise kernel, among those that read from memory, that moves the most bytes; None if none did."""
    candidates = [first for first in first_launches(report) if read_from_memory(first.kernel)]
    return max(candidates, key=lambda first: first.kernel.bytes_total or 0, default=None)


def bandwidth_cell(report: ScenarioReport) -> str:
    """The table's cell: the kernel, the mode it ran in, its bandwidth; where none qualifies, what came first."""
    found = largest_from_memory(report)
    if found is not None and found.kernel.gbs is not None:
        kernel = found.kernel
        return f"{kernel.short_name} ({found.mode}): {bandwidth_text(kernel, report.bandwidth_ceiling_gbs)}"
    firsts = first_launches(report)
    if not firsts:
        return "—"
    if found is not None:
        return f"— ({found.kernel.short_name} has no time)"
    # Why none: what came first in each run (not elementwise, or launched more than once per run).
    shown = "; ".join(f"{first.mode} {_launches(first.kernel)}" for first in firsts)
    return f"— (first launches: {shown})"


def bandwidth_details(report: ScenarioReport) -> dict[str, object] | None:
    """The kernel of the cell for the JSON: mode, name, bytes, GB/s and the share of the ceiling."""
    found = largest_from_memory(report)
    if found is None:
        return None
    kernel = found.kernel
    return {
        "mode": found.mode,
        "kernel": kernel.name,
        "bytes": kernel.bytes_total,
        "gbs": kernel.gbs,
        "ceiling_pct": kernel.ceiling_pct,
        "ceiling_gbs": report.bandwidth_ceiling_gbs,
    }


def _launches(kernel: Kernel) -> str:
    return kernel.short_name + (f" ×{kernel.calls:g}" if kernel.calls != 1 else "")
