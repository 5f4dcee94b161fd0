"""A GPU's launches grouped into library calls: the kernels one ``aten::mm`` ran are one call of one row.

``events.cuda_launches`` marks each launch with the library operator it ran inside (``Launch.call_event``); here
the launches of one call share a kernel table row, keyed by the kernels the call ran, and the row keeps those
kernels, their launches per call and their time (``library_call.LibraryKernel``). The rest of the rows are as
``profiling.kernel_rows`` always made them: one per kernel name and kind.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import TYPE_CHECKING

from kernel_tui.model.names.names import short_name, without_graph_counter
from kernel_tui.model.report.library_call import LibraryKernel

if TYPE_CHECKING:
    from kernel_tui.engine.counting.events import Launch
    from kernel_tui.model.report.launch import KernelLaunch

RowKey = tuple[str, str, str | None, tuple[str, ...]]
"""A row's name, kind, composite (a nested pass's) and, for a library call, the kernels each call ran."""


def row_keys(launches: Sequence[Launch]) -> list[RowKey]:
    """Each launch's row: one per name and kind; a composite's pass has rows of its own, apart from the same
    operator called at the top level (a ``sum`` inside ``logsumexp`` is not the ``sum`` on the next line).

    A library call's launches share one row, keyed by the kernels the call ran in order: a product cuBLAS ran as
    one gemm and one it split into a gemm and a split-K kernel are two rows, each one call. The row is named
    after the call's first kernel (a memset for its workspace comes before it)."""
    calls: dict[int, list[Launch]] = {}
    for launch in launches:
        if launch.call_event is not None:
            calls.setdefault(id(launch.call_event), []).append(launch)
    keys: list[RowKey] = []
    for launch in launches:
        call = calls.get(id(launch.call_event)) if launch.call_event is not None else None
        if call is None:
            keys.append((launch.name, launch.kind, launch.op if launch.nested else None, ()))
            continue
        main = next((part for part in call if part.kind == "kernel"), call[0])
        keys.append((main.name, main.kind, None, tuple(part.name for part in call)))
    return keys


class CallKernels:
    """The kernels of one row's library calls, by name in launch order: their launches and time in each run."""

    def __init__(self, runs: int) -> None:
        self.runs = runs
        self.launches: dict[str, int] = {}
        self.time_us: dict[str, list[float]] = {}
        self.shapes: dict[str, KernelLaunch | None] = {}

    def add(self, launch: Launch, run: int) -> None:
        if launch.name not in self.launches:
            self.launches[launch.name], self.time_us[launch.name] = 0, [0.0] * self.runs
            self.shapes[launch.name] = launch.shape
        self.launches[launch.name] += 1
        self.time_us[launch.name][run] += launch.time_us

    def kernels(self, calls: int) -> tuple[LibraryKernel, ...]:
        """Each kernel with its launches per call (``calls``: the row's calls over every run)."""
        return tuple(
            LibraryKernel(
                name=without_graph_counter(name),
                short_name=short_name(name),
                launches=per_run_count(count, calls) if calls else count,
                time_us=statistics.median(self.time_us[name]),
                launch=self.shapes[name],
            )
            for name, count in self.launches.items()
        )


def per_run_count(count: int, runs: int) -> float:
    """A count over runs: whole where it divides, else to three places (runs that disagree)."""
    value = count / runs
    return int(value) if value == int(value) else round(value, 3)
