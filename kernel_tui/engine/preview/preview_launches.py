"""What a preview counts as launches: each operator that works on the device is one (``aten_cuda`` where ATen's
CUDA code launches more), grouped into a table's rows as a measurement's kernels are. A library call (eager's
``aten::mm``, a compiled graph's ``extern_kernels.mm``) is one, as a GPU's table counts it (``Kernel.library``):
how many kernels the library runs for it is its choice on the GPU, which a preview cannot know."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import torch

from kernel_tui.engine.compiler.boundaries import row_of
from kernel_tui.engine.compiler.generated_code import memcpy_name
from kernel_tui.engine.compiler.kernel_origins import CallOrigin, call_origins
from kernel_tui.engine.counting.launch_info import EAGER_NOTE, LIBRARY_NOTE
from kernel_tui.engine.counting.module_paths import common_module
from kernel_tui.engine.counting.op_kinds import moves_data, op_name
from kernel_tui.engine.counting.profiling import line_calls_of, module_calls_of, module_work_of, own_flops
from kernel_tui.engine.counting.traffic import (
    EagerTrafficMode,
    Traffic,
    host_transfer,
    op_tensors,
)
from kernel_tui.engine.preview import aten_cuda
from kernel_tui.model.names.names import short_name
from kernel_tui.model.report.kernel import Kernel
from kernel_tui.model.report.launch import KernelLaunch
from kernel_tui.model.report.library_call import is_library_op
from kernel_tui.model.report.mode_result import ModeResult

if TYPE_CHECKING:
    from kernel_tui.engine.compiler.fusion_watch import GraphFusion


class DeviceOps(EagerTrafficMode):
    """Each data-moving operator that touches a CUDA tensor is one launch; a host-device copy is a memcpy."""

    def __init__(self, source_file: str | None = None, device: str = "cuda") -> None:
        super().__init__(source_file)
        self.device = device
        """The device type that stands for the GPU: ``cpu`` where a training step is traced on CPU fakes."""
        self.launches: list[Traffic] = []
        self.sections: list[str] = []
        """Per launch, ``backward`` where it ran inside the autograd engine, else ``forward``."""
        self.paused = False

    @property
    def records(self) -> list[Traffic]:
        return self.launches

    def __torch_dispatch__(
        self, func: Any, types: Sequence[type], args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if self.paused:  # a training step's compiled graphs run with the mode paused: every op, so return first
            return out
        name = op_name(func)
        # prim:: operators ask a fake tensor about its metadata (its device): no memory is touched.
        if func.namespace != "prim" and moves_data(name):
            read, written = op_tensors(name, func._schema, args, kwargs, out)
            if any(t.device.type == self.device for t in read + written):
                direction = host_transfer(name, read, written)
                launch = self.record(
                    name,
                    read,
                    written,
                    call=memcpy_name(name, direction) if direction else None,
                    kind="memcpy" if direction else "op",
                )
                added = aten_cuda.cuda_launches(launch, args, kwargs, out, self.device)
                section = "backward" if torch._C._current_graph_task_id() != -1 else "forward"
                self.launches.extend(added)
                self.sections.extend([section] * len(added))
        return out


def _grouped(launches: Sequence[Traffic]) -> dict[tuple[str, str, str | None], list[Traffic]]:
    """Launches by the row they make, in first-seen order: named as called, of one kind, apart per composite."""
    grouped: dict[tuple[str, str, str | None], list[Traffic]] = {}
    for launch in launches:
        # A composite's pass (``aten::sum`` in ``logsumexp``) is not the ``sum`` called at the top level.
        composite = launch.name if launch.kind == "op" and launch.call else None
        grouped.setdefault((launch.call or launch.name, launch.kind, composite), []).append(launch)
    return grouped


def launch_rows(launches: list[Traffic]) -> tuple[Kernel, ...]:
    """Launches grouped by name in first-seen order, as a measurement's table groups them; a launch that is not
    a generated kernel is named as it is called (``extern_kernels.mm``, a memcpy), its operator kept as ``op``."""
    rows = []
    for (name, kind, _), group in _grouped(launches).items():
        rows.append(
            Kernel(
                name=name,
                short_name=short_name(name),
                calls=len(group),
                time_us=None,
                bytes_read=sum(launch.bytes_read for launch in group),
                bytes_written=sum(launch.bytes_written for launch in group),
                kind=kind,
                op=group[0].name if group[0].call else None,
                aten_ops=tuple(dict.fromkeys(op for launch in group for op in launch.aten_ops)),
                lines=tuple(dict.fromkeys(line for launch in group for line in launch.lines)),
                line_calls=line_calls_of(group),
                code=next((launch.code for launch in group if launch.code), None),
                launch=preview_launch(group[0], kind),
                predicted=next((launch.basis for launch in group if launch.basis), None) or aten_cuda.named_basis(name),
                # One library call each, as a GPU's table counts it: the kernels inside are the library's choice.
                library=group[0].name if is_library_op(group[0].name) else None,
                module=common_module(launch.module for launch in group if launch.module is not None),
                module_calls=module_calls_of(group),
                module_work=module_work_of(group),
                stack=tuple(dict.fromkeys(frame for launch in group for frame in launch.stack)),
                flops=own_flops(group),
            )
        )
    return tuple(rows)


def launch_mode(rows: tuple[Kernel, ...], unit: int) -> ModeResult:
    total = sum(row.bytes_total or 0 for row in rows)
    return ModeResult(
        kernel_count=sum(row.calls for row in rows),
        kernels=rows,
        bytes_total=total,
        time_us=None,
        transfers=total / unit if unit else None,
    )


def preview_launch(first: Traffic, kind: str) -> KernelLaunch | None:
    """A preview row's launch from its first launch's record (a ``Traffic``): a generated kernel's, else what
    cannot be known without a device (a library call, an eager operator); a copy has none."""
    if first.launch is not None:
        return first.launch
    if kind == "memcpy":
        return None
    return KernelLaunch(elements=first.elements, note=EAGER_NOTE if kind == "op" else LIBRARY_NOTE)


def with_module_work(
    rows: Sequence[Kernel], graphs: Sequence[GraphFusion], records: Sequence[Traffic]
) -> tuple[Kernel, ...]:
    """Compiled ``rows`` (their modules placed by ``kernel_origins``) with what each module's own calls moved and
    computed, where a row's calls came from several modules: the wrapper's calls of a row, in order, are its
    launches' records, in order. One ``extern_kernels.mm`` row holds a block's small products and the lm_head's
    large one; shared out by launches, the lm_head's 8 MiB read as a seventh of the row's."""
    origins: dict[int, list[CallOrigin]] = {}
    for graph in graphs:
        for origin in call_origins(graph):
            row = row_of(origin.name, rows)
            if row is not None:
                origins.setdefault(id(row), []).append(origin)
    groups = {name: group for (name, _, composite), group in _grouped(records).items() if composite is None}
    placed = []
    for row in rows:
        calls, group = origins.get(id(row), []), groups.get(row.name, [])
        paths = {origin.module or "" for origin in calls}
        if len(paths) < 2 or len(calls) != len(group):
            placed.append(row)
            continue
        by_module = [replace(record, module=origin.module or "") for origin, record in zip(calls, group)]
        placed.append(replace(row, module_work=module_work_of(by_module)))
    return tuple(placed)
