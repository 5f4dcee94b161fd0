"""Which profiler events are kernels, on CPU and on CUDA, and which run of ``fn`` each belongs to.

Works on ``torch.profiler`` ``FunctionEvent`` objects through a handful of attributes (``name``,
``device_type``, ``cpu_parent``, ``cpu_children``, ``time_range``, ``id``, ``linked_correlation_id``,
``activity_type``, ``is_user_annotation``), so tests can feed it constructed events where no GPU exists.

Each profiled call of ``fn`` is wrapped in a ``RUN_RANGE`` annotation; everything outside one is ignored.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

RUN_RANGE = "kernel_tui::run"

INDUCTOR_KERNEL = re.compile(r"^(graph_\d+_)?(cpp_fused_|cpp_|triton_|kernel$)")
ALLOCATION_OPS = frozenset(
    {"aten::empty", "aten::empty_like", "aten::empty_strided", "aten::new_empty", "aten::new_empty_strided",
     "aten::resize_", "aten::set_", "aten::detach_", "aten::_unsafe_view", "aten::_reshape_alias",
     "aten::lift_fresh", "aten::record_stream"}
)


@dataclass
class Launch:
    """One kernel launch inside one run of ``fn``."""

    name: str
    kind: str
    time_us: float
    run: int
    op: str | None
    op_event: Any = None
    """The top-level operator event that launched it; its subtree joins it to the byte counts."""
    start_us: float = 0.0


def device_kind(event: Any) -> str:
    return str(getattr(event, "device_type", "CPU")).rsplit(".", 1)[-1].upper()


def duration_us(event: Any) -> float:
    time_range = getattr(event, "time_range", None)
    if time_range is not None:
        return float(time_range.elapsed_us())
    return float(getattr(event, "device_time", 0.0) or getattr(event, "cpu_time_total", 0.0))


def is_operator_name(name: str) -> bool:
    """Operators (``aten::add``) and Inductor kernels are work candidates; other names are annotations."""
    if name == RUN_RANGE:
        return False
    return "::" in name or bool(INDUCTOR_KERNEL.match(name))


def run_index(event: Any, runs: dict[int, int]) -> int | None:
    node = event
    while node is not None:
        if node.name == RUN_RANGE:
            return runs.get(id(node))
        node = node.cpu_parent
    return None


def number_runs(events: Iterable[Any]) -> dict[int, int]:
    """The RUN_RANGE annotations in start order, numbered 0, 1, ..."""
    ranges = [e for e in events if e.name == RUN_RANGE and device_kind(e) == "CPU"]
    ranges.sort(key=lambda e: e.time_range.start)
    return {id(e): i for i, e in enumerate(ranges)}


def top_level_ops(run_range: Any) -> list[Any]:
    """The first operator events below a run range, looking through annotations and compiled regions."""
    found = []
    stack = list(reversed(run_range.cpu_children))
    while stack:
        node = stack.pop()
        if is_operator_name(node.name):
            found.append(node)
        else:
            stack.extend(reversed(node.cpu_children))
    return found


def subtree(event: Any) -> Iterable[Any]:
    stack = [event]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.cpu_children)


def cpu_launches(events: list[Any], moves_data: Callable[[str], bool]) -> list[Launch]:
    """CPU: a kernel is a top-level operator whose subtree moves data (views and allocations move none)."""
    runs = number_runs(events)
    launches = []
    run_ranges = sorted((e for e in events if id(e) in runs), key=lambda e: runs[id(e)])
    for run_range in run_ranges:
        run = runs[id(run_range)]
        for op in top_level_ops(run_range):
            if any(moves_data(node.name) for node in subtree(op) if is_operator_name(node.name)):
                kind = "kernel" if INDUCTOR_KERNEL.match(op.name) else "op"
                launches.append(Launch(op.name, kind, duration_us(op), run, op.name, op))
    return launches


def cuda_kind(event: Any) -> str | None:
    """kernel, memcpy or memset for device work; None for what is not a kernel (annotation copies)."""
    if getattr(event, "is_user_annotation", False):
        return None
    activity = str(getattr(event, "activity_type", "") or "").lower()
    if activity:
        if "annotation" in activity:
            return None
        if "memcpy" in activity:
            return "memcpy"
        if "memset" in activity:
            return "memset"
        if activity in ("kernel", "concurrent_kernel", "gpu_kernel") or activity.endswith("kernel"):
            return "kernel"
    name = event.name
    if name.startswith("Memcpy"):
        return "memcpy"
    if name.startswith("Memset"):
        return "memset"
    if name == RUN_RANGE or name.startswith(("## ", "Torch-Compiled Region", "kernel_tui::")):
        return None
    return "kernel"


def launching_top_op(cpu_event: Any) -> Any:
    """Walk up from the innermost op active at launch to the op just below the annotations."""
    chain = []
    node = cpu_event
    while node is not None and node.name != RUN_RANGE:
        chain.append(node)
        node = node.cpu_parent
    for candidate in reversed(chain):
        if is_operator_name(candidate.name):
            return candidate
    return cpu_event


def cuda_launches(events: list[Any]) -> list[Launch]:
    """CUDA: device-side kernels, memcpys and memsets, each linked to the op that launched it."""
    runs = number_runs(events)
    cpu_by_id = {}
    for event in events:
        if device_kind(event) == "CPU" and not getattr(event, "linked_correlation_id", 0):
            cpu_by_id.setdefault(event.id, event)
    launches = []
    for event in events:
        if device_kind(event) != "CUDA":
            continue
        kind = cuda_kind(event)
        if kind is None:
            continue
        launcher = cpu_by_id.get(getattr(event, "linked_correlation_id", 0))
        if launcher is None:
            continue
        run = run_index(launcher, runs)
        if run is None:
            continue
        top = launching_top_op(launcher)
        start = float(event.time_range.start) if getattr(event, "time_range", None) else 0.0
        launches.append(Launch(event.name, kind, duration_us(event), run, top.name, top, start))
    launches.sort(key=lambda launch: (launch.run, launch.start_us))
    return launches


def launches_per_run(launches: list[Launch], runs: int) -> list[list[Launch]]:
    grouped: list[list[Launch]] = [[] for _ in range(runs)]
    for launch in launches:
        if 0 <= launch.run < runs:
            grouped[launch.run].append(launch)
    return grouped
