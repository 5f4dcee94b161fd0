"""Reports of one scenario from several machines side by side: kernels aligned by the eager work they replaced.

``kernel-tui view`` given results from an A100 and a B200, two torch releases or the preview's three
architectures lays each scenario's reports out as columns. Kernels are not matched by name: Inductor numbers its
kernels per graph, and the hardware may choose a template where another GPU calls a library. A row is the work a
set of kernels stands for, the ATen operators and the scenario lines the report attributes them to; kernels of two
columns that share any of that work land in one row (so a GEMM that swallowed its bias on one GPU and left it to a
second kernel on another is one row, marked). No torch here: the explorer and the CLI both read it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kernel_tui.model.names.names import kernel_identity, triton_kind
from kernel_tui.model.report.machine import machine_differences
from kernel_tui.model.report.report import ScenarioReport, gbs
from kernel_tui.model.report.report_keys import MODES

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel

Work = tuple[str | None, str, int | None]
"""One piece of replaced work: a training step's section, an operator (or an unattributed kernel's name without
Inductor's number), and the scenario line it came from."""


@dataclass(frozen=True)
class Cell:
    """What one column ran for one row's work."""

    kernels: tuple[Kernel, ...]
    """The column's kernels that stand for this work, in the report's order."""
    launches: float
    """Their launches per call, together."""
    bytes_moved: int | None
    """Bytes they move per call, together; None when no kernel's bytes are known."""
    time_us: float | None
    """Their time per call, together; None when any is unknown (a preview times nothing)."""
    ceiling_pct: float | None
    """Their bandwidth as a share of this column's own measured copy ceiling."""


@dataclass(frozen=True)
class AlignedRow:
    """One row: a piece of the scenario's work, and each column's kernels for it (None where a column has none)."""

    work: tuple[Work, ...]
    """What the row's kernels replaced, in the order first seen."""
    cells: tuple[Cell | None, ...]
    """One per column."""
    changes: tuple[str, ...]
    """How the columns' choices differ: another kernel count, a template for a library call, another config."""


@dataclass(frozen=True)
class ModeColumns:
    """One mode (eager or compiled) of a scenario across the columns."""

    mode: str
    rows: tuple[AlignedRow, ...]
    totals: tuple[Cell | None, ...]
    """Each column's whole mode: every kernel, launches, bytes and time; None where the column did not get there."""


@dataclass(frozen=True)
class DeviceComparison:
    """A scenario's reports side by side."""

    reports: tuple[ScenarioReport, ...]
    """One per column, in the order the files were given."""
    modes: tuple[ModeColumns, ...]
    notes: tuple[str, ...]
    """What else differs between the columns that a reader must weigh (the torch release above all)."""

    @property
    def title(self) -> str:
        return self.reports[0].title


def column_key(report: ScenarioReport) -> tuple[str | None, ...]:
    """What makes two reports two columns: the device, the architecture, torch, and the machine's identity."""
    machine = report.machine
    return (
        report.device,
        report.device_name,
        str(report.arch),
        report.torch_version,
        machine.triton_version if machine else None,
        machine.driver_version if machine else None,
        machine.hostname if machine else None,
    )


def scenario_key(report: ScenarioReport) -> str:
    """Reports of one scenario from two machines have two paths (two checkouts): the file's name is what they share."""
    return Path(report.scenario).name


def by_scenario(reports: Iterable[ScenarioReport]) -> list[tuple[ScenarioReport, ...]]:
    """The reports grouped by scenario in the order first seen, one per column; of two reports from the same
    machine, torch and architecture, the later one (a rerun), in the earlier one's place."""
    grouped: dict[str, dict[tuple[str | None, ...], ScenarioReport]] = {}
    for report in reports:
        grouped.setdefault(scenario_key(report), {})[column_key(report)] = report
    return [tuple(columns.values()) for columns in grouped.values()]


def compare_devices(reports: Sequence[ScenarioReport]) -> DeviceComparison:
    """``reports`` (of one scenario) as columns."""
    if not reports:
        raise ValueError("a comparison needs at least one report")
    modes = tuple(_mode_columns(mode, reports) for mode in MODES)
    return DeviceComparison(tuple(reports), modes, tuple(_notes(reports)))


def column_letter(index: int) -> str:
    """``A`` … ``Z``, then ``AA``, ``AB``: a column's name in the table's header and its notes."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def work_text(work: Sequence[Work]) -> str:
    """``add, relu · L28``: the operators and lines a row stands for; a training step's section leads."""
    sections = list(dict.fromkeys(section for section, _, _ in work if section))
    ops = ", ".join(dict.fromkeys(op for _, op, _ in work))
    lines = sorted({line for _, _, line in work if line is not None})
    text = f"{ops} · L{', L'.join(map(str, lines))}" if lines else ops
    return f"{'/'.join(sections)}: {text}" if sections else text


def choice(kernel: Kernel) -> str:
    """What kind of kernel the hardware's compile chose: ``template`` (a Triton GEMM template), ``generated``
    (Inductor's own C++ or Triton), ``library`` (cuBLAS, cuDNN, an ATen kernel, an extern call)."""
    kind = triton_kind(kernel.name)
    if kind == "tem":
        return "template"
    if kind is not None or kernel_identity(kernel.name).startswith("cpp_"):
        return "generated"
    return "library"


def _replaced(kernel: Kernel) -> set[Work]:
    """The work ``kernel`` stands for; a kernel attributed to nothing stands for its own name, number ignored."""
    ops = [op.split("::")[-1].split(".")[0] for op in kernel.aten_ops] or [kernel_identity(kernel.name)]
    lines: Sequence[int | None] = kernel.lines or (None,)
    return {(kernel.section, op, line) for op in ops for line in lines}


def _mode_columns(mode: str, reports: Sequence[ScenarioReport]) -> ModeColumns:
    results = [report.mode(mode) for report in reports]
    kernels = [result.kernels if result is not None else () for result in results]
    every = [kernel for column in kernels for kernel in column]
    placed: dict[tuple[str | None, str], set[Work]] = {}
    for work in (work for kernel in every for work in _replaced(kernel) if work[2] is not None):
        placed.setdefault(work[:2], set()).add(work)

    def stands_for(kernel: Kernel) -> set[Work]:
        """A kernel with no line (a report saved before lines were, a kernel no line could be read for) stands
        for its operators on whatever lines other columns place them."""
        found = _replaced(kernel)
        return found.union(*(placed.get(work[:2], set()) for work in found if work[2] is None))

    groups = _groups([stands_for(kernel) for kernel in every])
    rows = []
    for group in groups:
        cells = tuple(
            _cell(report, [kernel for kernel in column if stands_for(kernel) & group.members])
            if result is not None
            else None
            for report, result, column in zip(reports, results, kernels)
        )
        rows.append(AlignedRow(tuple(group.order), cells, tuple(_changes(cells, reports))))
    totals = tuple(
        _cell(report, list(result.kernels)) if result is not None else None for report, result in zip(reports, results)
    )
    return ModeColumns(mode, tuple(rows), totals)


@dataclass
class _Group:
    members: set[Work]
    order: list[Work]


def _groups(works: Sequence[set[Work]]) -> list[_Group]:
    """The pieces of work joined wherever one kernel stands for several of them, in the order first seen."""
    groups: list[_Group] = []
    for work in works:
        joined = [group for group in groups if group.members & work]
        if not joined:
            groups.append(_Group(set(work), sorted(work, key=_work_order)))
            continue
        first = joined[0]
        for other in joined[1:]:
            first.members |= other.members
            first.order += other.order
            groups.remove(other)
        first.order += sorted(work - first.members, key=_work_order)
        first.members |= work
    return groups


def _work_order(work: Work) -> tuple[int, str]:
    return (work[2] if work[2] is not None else -1, work[1])


def _cell(report: ScenarioReport, kernels: list[Kernel]) -> Cell:
    moved = [k.bytes_total * k.calls for k in kernels if k.bytes_total is not None]
    bytes_moved = round(sum(moved)) if moved else None
    times = [k.time_us for k in kernels]
    time_us = sum(t for t in times if t is not None) if kernels and None not in times else None
    ceiling = report.ceilings.bandwidth_gbs if report.ceilings is not None else report.bandwidth_ceiling_gbs
    achieved = gbs(bytes_moved, time_us)
    share = 100 * achieved / ceiling if achieved is not None and ceiling else None
    return Cell(tuple(kernels), sum(k.calls for k in kernels), bytes_moved, time_us, share)


def _changes(cells: Sequence[Cell | None], reports: Sequence[ScenarioReport]) -> list[str]:
    """Where the hardware (or the release) made another choice for this work, worded per column."""
    present = [(report, cell) for report, cell in zip(reports, cells) if cell is not None]
    if len(present) < 2:
        return []
    changes = []
    counts = [cell.launches for _, cell in present]
    if len(set(counts)) > 1:
        changes.append("launches " + " / ".join(f"{count:g}" for count in counts))
    kinds = [" + ".join(sorted({choice(kernel) for kernel in cell.kernels})) or "none" for _, cell in present]
    if len(set(kinds)) > 1:
        changes.append(" / ".join(kinds))
    splits = [_split(cell) for _, cell in present]
    if len(set(counts)) == 1 and len(set(splits)) > 1:
        changes.append("split " + " / ".join(splits))
    if len(set(kinds)) == 1:
        changes += _config_changes([_configs(cell) for _, cell in present])
    return changes


def _config_changes(configs: Sequence[dict[str, str]]) -> list[str]:
    """``triton_red_fused_mul_sum: R0_BLOCK 2048, XBLOCK 1 · 16 warps / R0_BLOCK 1024, XBLOCK 1 · 8 warps``: each
    kernel that more than one column launched, where their Triton configs differ."""
    names = dict.fromkeys(name for config in configs for name in config)
    changes = []
    for name in names:
        launched = [config[name] for config in configs if name in config]
        if len(launched) > 1 and len(set(launched)) > 1:
            changes.append(f"config {name}: {' / '.join(launched)}")
    return changes


def _split(cell: Cell) -> str:
    """How a cell's kernels share the row's work: ``add+mm | relu`` (the CPU's ``addmm`` took the bias, a GPU's
    pointwise kernel took it instead: ``mm | add+relu``)."""
    parts = {"+".join(sorted({op for _, op, _ in _replaced(kernel)})) for kernel in cell.kernels}
    return " | ".join(sorted(parts)) or "none"


def _configs(cell: Cell) -> dict[str, str]:
    """The Triton configs a cell's kernels launched with, by kernel identity (Inductor's number ignored)."""
    found = {}
    for kernel in cell.kernels:
        launch = kernel.launch
        if launch is None or (launch.config is None and launch.warps is None):
            continue
        config = ", ".join(f"{key} {value}" for key, value in sorted((launch.config or {}).items()))
        found[kernel_identity(kernel.name)] = f"{config} · {launch.warps} warps" if config else f"{launch.warps} warps"
    return found


def _notes(reports: Sequence[ScenarioReport]) -> list[str]:
    notes = []
    releases = dict.fromkeys(report.torch_version for report in reports)
    if len(releases) > 1:
        notes.append(
            "the columns differ in torch release ("
            + ", ".join(f"{column_letter(index)}: {report.torch_version}" for index, report in enumerate(reports))
            + "): a kernel that changed may be the release's doing, not the hardware's"
        )
    first = reports[0]
    for index, report in enumerate(reports[1:], 1):
        differences = machine_differences(first.machine, report.machine)
        if differences and (first.machine is not None and report.machine is not None):
            notes.append(f"A against {column_letter(index)}: {'; '.join(differences)}")
    return notes
