"""The call per ``nn.Module``: each module's launches eager and compiled, their time, bytes, FLOPs and share.

Built from the kernels' own ``module`` and ``module_calls`` (the engine's ``module_paths`` and
``kernel_origins``): a row of launches from several modules (six ``nn.Linear`` calls in one ``addmm`` row) gives
each module its launches, and what those launches measured where the engine measured each (``module_work``: the
bytes and FLOPs they did, the row's time in proportion to theirs); where it did not, its time, bytes and FLOPs in
proportion to its launches (a share, not a measurement: a block's small products and an lm_head's large one are
not equal parts). Launches no module is known for go to the row's ``module``, else to a row of their own (``path``
None), so the rows' launches add up to the call's (``ModeResult.kernel_count``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.mode_result import ModeResult

FN = ""
"""The path of ``fn``'s own code: what no module's ``forward`` ran."""


@dataclass(frozen=True)
class ModuleRow:
    """One module's share of a call of ``fn``, eager and compiled (None where that mode was not measured)."""

    path: str | None
    """The module's path (``model.h.0.attn``), ``""`` for ``fn``'s own code, None for launches of no known module
    (joined to no operator or node)."""
    eager_launches: float | None = None
    """Kernel launches per call (as ``ModeResult.kernel_count`` counts them) that this module ran eagerly."""
    compiled_launches: float | None = None
    """The same, compiled: the launches of the kernels its nodes were fused into (a kernel that fused two modules' nodes
    counts for the deepest module holding both)."""
    eager_time_us: float | None = None
    """Kernel time per call of its launches (the profiler's); None where the kernels' times are unknown (a preview)."""
    compiled_time_us: float | None = None
    """The same, compiled."""
    eager_bytes: int | None = None
    """Bytes its launches move per call; None where any of its kernels' bytes are unknown."""
    compiled_bytes: int | None = None
    """The same, compiled."""
    eager_flops: int | None = None
    """Arithmetic operations of its launches per call; None where any of its kernels' are not counted."""
    compiled_flops: int | None = None
    """The same, compiled."""
    eager_share: float | None = None
    """Its share (0 to 1) of the mode's kernel time, all modules together."""
    compiled_share: float | None = None
    """The same, compiled."""


def _plus(total: float | None, amount: float | None) -> float | None:
    return None if total is None or amount is None else total + amount


@dataclass
class _Sums:
    launches: float = 0.0
    time_us: float | None = 0.0
    bytes: float | None = 0.0
    flops: float | None = 0.0

    def add(self, part: _Part) -> None:
        self.launches += part.launches
        self.time_us = _plus(self.time_us, part.time_us)
        self.bytes = _plus(self.bytes, part.bytes)
        self.flops = _plus(self.flops, part.flops)


@dataclass(frozen=True)
class _Part:
    """One module's launches of a kernel row and what they did."""

    path: str | None
    launches: float
    time_us: float | None
    bytes: float | None
    flops: float | None


def _scaled(value: float | None, part: float) -> float | None:
    return None if value is None else value * part


def _measured(kernel: Kernel, field: str, paths: Sequence[str | None]) -> dict[str | None, float] | None:
    """Each module's amount of ``field`` of the row, from what its own launches measured (``module_work``), the rest
    of the row to the one module left (that of launches none is known for). None where the launches were not
    measured each (the caller shares the row out by launches)."""
    total = kernel.time_us if field == "time_us" else kernel.bytes_total if field == "bytes" else kernel.flops
    work = {part.path: getattr(part, field) for part in kernel.module_work}
    left = [path for path in paths if path not in work]
    if total is None or not work or None in work.values() or len(left) > 1 or not set(work) <= set(paths):
        return None
    own: dict[str | None, float] = {path: float(amount) for path, amount in work.items()}
    if field == "time_us":  # the row's time is the runs' median; the run whose bytes were counted says how it splits
        spent = sum(own.values())  # (launches of no known module were not timed apart: then no split is measured)
        return {path: total * amount / spent for path, amount in own.items()} if spent and not left else None
    return {**own, **{path: max(float(total) - sum(own.values()), 0.0) for path in left}}


def kernel_parts(kernel: Kernel) -> list[tuple[str | None, float]]:
    """Each module's part (0 to 1) of one kernel row: its launches over the row's; what no module is known for
    goes to the row's ``module``."""
    counted = {path: count for path, count in kernel.module_calls if count > 0}
    total = sum(counted.values())
    if not total:
        return [(kernel.module, 1.0)]
    scale = max(float(total), kernel.calls or float(total))  # a row profiled with more launches than were named
    parts: list[tuple[str | None, float]] = [(path, count / scale) for path, count in counted.items()]
    rest = 1.0 - sum(part for _, part in parts)
    if rest > 1e-9:
        parts.append((kernel.module, rest))
    return parts


def kernel_work(kernel: Kernel) -> list[_Part]:
    """Each module's launches of one kernel row and its time, bytes and FLOPs: measured per launch where the
    engine did (``module_work``), else the row's in proportion to the module's launches (``kernel_parts``)."""
    parts: dict[str | None, float] = {}
    for path, part in kernel_parts(kernel):
        parts[path] = parts.get(path, 0.0) + part
    fields = ("time_us", "bytes", "flops")
    measured = {field: _measured(kernel, field, list(parts)) for field in fields}
    totals = {"time_us": kernel.time_us, "bytes": kernel.bytes_total, "flops": kernel.flops}

    def amount(field: str, path: str | None, part: float) -> float | None:
        known = measured[field]
        return known.get(path, 0.0) if known is not None else _scaled(totals[field], part)

    return [
        _Part(path, kernel.calls * part, *(amount(field, path, part) for field in fields))
        for path, part in parts.items()
    ]


def _per_module(kernels: Iterable[Kernel]) -> dict[str | None, _Sums]:
    sums: dict[str | None, _Sums] = {}
    for kernel in kernels:
        for part in kernel_work(kernel):
            sums.setdefault(part.path, _Sums()).add(part)
    return sums


def _none(kernels: Iterable[Kernel]) -> _Sums:
    """A module's sums in a mode that ran none of its work: nothing, and no time where the mode has none (a
    preview)."""
    timed = any(kernel.time_us is not None for kernel in kernels)
    return _Sums(time_us=0.0 if timed else None)


def module_table(eager: ModeResult | None, compiled: ModeResult | None) -> tuple[ModuleRow, ...]:
    """One row per module that either mode ran a kernel in, in the order eager first ran them; empty where no
    kernel names a module (a scenario with no ``nn.Module``, a report from before modules were named)."""
    if not any(kernel.module for mode in (eager, compiled) if mode is not None for kernel in mode.kernels):
        return ()
    modes = (eager, compiled)
    sides = [_per_module(mode.kernels) if mode is not None else None for mode in modes]
    nothing = [_none(mode.kernels) if mode is not None else None for mode in modes]
    totals = [
        sum(kernel.time_us or 0.0 for kernel in mode.kernels) if mode is not None else 0.0 for mode in (eager, compiled)
    ]
    paths = list(dict.fromkeys(path for side in sides if side is not None for path in side))
    rows = []
    for path in paths:
        (e_launches, e_time, e_bytes, e_flops, e_share), (c_launches, c_time, c_bytes, c_flops, c_share) = (
            _figures(side.get(path, empty) if side is not None else None, total)
            for side, empty, total in zip(sides, nothing, totals)
        )
        rows.append(
            ModuleRow(
                path, e_launches, c_launches, e_time, c_time, e_bytes, c_bytes, e_flops, c_flops, e_share, c_share
            )
        )
    return tuple(rows)


_Figures = tuple[float | None, float | None, int | None, int | None, float | None]


def _figures(sums: _Sums | None, total_us: float) -> _Figures:
    """Launches, time, bytes, FLOPs and share of the mode's kernel time; all None where the mode was not run."""
    if sums is None:
        return None, None, None, None, None
    share = sums.time_us / total_us if sums.time_us is not None and total_us else None
    return (
        round(sums.launches, 6),
        sums.time_us,
        round(sums.bytes) if sums.bytes is not None else None,
        round(sums.flops) if sums.flops is not None else None,
        share,
    )


MOST_ROWS = 16
"""Rows a folded module table shows at most: deeper modules are summed into their parents until it fits."""
_INDEX = re.compile(r"^\d+$")


def folded_path(module: str | None) -> str | None:
    """``model.h.*.attn`` for ``model.h.3.attn``: the module every repeated block of a ``ModuleList`` holds."""
    if not module:
        return module
    return ".".join("*" if _INDEX.match(part) else part for part in module.split("."))


@dataclass(frozen=True)
class FoldedModule:
    """A row of the folded table: one module, or the repeated blocks of a ``ModuleList`` as one (``h.*``)."""

    path: str | None
    """``model.h.*.attn`` for the ``attn`` of every block of ``model.h``; as ``ModuleRow.path`` otherwise."""
    repeats: int
    """How many modules it stands for (the blocks folded into it); 1 for a module of its own."""
    row: ModuleRow
    """The sums of the modules it stands for (shares too)."""
    spread_us: tuple[float, float] | None = None
    """The least and the most time (compiled where it launched anything compiled, else eager) of one of the modules
    folded into it; None for a single module, and where times are unknown."""


def folded_modules(rows: Sequence[ModuleRow], most: int = MOST_ROWS) -> tuple[FoldedModule, ...]:
    """``rows`` with repeated blocks folded (``h.0`` to ``h.11`` as ``h.*``, ×12) and summed up to the deepest
    level whose rows fit in ``most``; their launches add up to the rows'."""
    deepest = max((len(row.path.split(".")) for row in rows if row.path), default=1)
    folded: tuple[FoldedModule, ...] = ()
    for depth in range(deepest, 0, -1):
        folded = _folded_at(rows, depth)
        if len(folded) <= most:
            break
    return folded


def _folded_at(rows: Sequence[ModuleRow], depth: int) -> tuple[FoldedModule, ...]:
    instances: dict[str | None, list[ModuleRow]] = {}
    for row in rows:
        cut = ".".join(row.path.split(".")[:depth]) if row.path else row.path
        instances.setdefault(cut, []).append(row)
    groups: dict[str | None, list[ModuleRow]] = {}
    for cut, members in instances.items():
        key = folded_path(cut)
        groups.setdefault(key, []).append(_summed(cut, members))
    folded = []
    for key, members in groups.items():
        times = [_time_of(member) for member in members]
        known = [time for time in times if time is not None]
        spread = (min(known), max(known)) if len(members) > 1 and len(known) == len(members) else None
        folded.append(FoldedModule(key, len(members), _summed(key, members), spread))
    # In tree order, a module's own row above those of the modules in it; launches of no module last.
    return tuple(sorted(folded, key=lambda module: (module.path is None, (module.path or "").split("."))))


def _time_of(row: ModuleRow) -> float | None:
    """Compiled where it launched anything compiled, else eager: a block whose work all fused elsewhere has no
    compiled time of its own to compare."""
    return row.compiled_time_us if row.compiled_launches else row.eager_time_us


def _summed(path: str | None, rows: Sequence[ModuleRow]) -> ModuleRow:
    def total(values: Iterable[Any]) -> Any:
        found = list(values)
        return None if any(value is None for value in found) else sum(found)

    return ModuleRow(
        path,
        *(total(getattr(row, name) for row in rows) for name in _SUMMED),
    )


_SUMMED = tuple(field.name for field in fields(ModuleRow) if field.name != "path")
