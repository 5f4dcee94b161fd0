"""Profile a warm function with ``torch.profiler`` and turn its events into kernel rows with byte counts."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch.profiler import ProfilerActivity, profile, record_function

from kernel_tui.engine import events as ev
from kernel_tui.engine.op_kinds import moves_data
from kernel_tui.names import short_name
from kernel_tui.report import Kernel

PROFILED_RUNS = 5


@dataclass(frozen=True)
class Traffic:
    """Bytes of one unit of work (an eager operator or a compiled kernel), joined to launches by name."""

    name: str
    bytes_read: int
    bytes_written: int
    aten_ops: tuple[str, ...] = ()
    lines: tuple[int, ...] = ()
    code: str | None = None


def profile_launches(
    call: Callable[[], Any], device: str, runs: int = PROFILED_RUNS, trace_path: str | None = None
) -> list[list[ev.Launch]]:
    """Run ``call`` ``runs`` times under the profiler; return each run's kernel launches in order.

    With ``trace_path``, the profile is also written there as a Chrome trace (it opens in Perfetto)."""
    activities = [ProfilerActivity.CPU]
    if device == "cuda":
        activities.append(ProfilerActivity.CUDA)
    with profile(activities=activities) as prof, torch.no_grad():
        for _ in range(runs):
            with record_function(ev.RUN_RANGE):
                call()
            if device == "cuda":
                torch.cuda.synchronize()
    if trace_path is not None:
        prof.export_chrome_trace(trace_path)
    events = list(prof.events())
    launches = ev.cuda_launches(events) if device == "cuda" else ev.cpu_launches(events, moves_data)
    return ev.launches_per_run(launches, runs)


def kernel_join_key(launch: ev.Launch) -> str:
    """The name a launch shares with its byte record: the Inductor kernel's own, else its operator's."""
    name = launch.name
    if ev.INDUCTOR_KERNEL.match(name):
        return strip_graph_counter(name)
    if launch.kind == "kernel" and launch.op and ev.INDUCTOR_KERNEL.match(launch.op):
        return strip_graph_counter(launch.op)
    return launch.op or name


def strip_graph_counter(name: str) -> str:
    head, sep, rest = name.partition("_")
    if head == "graph" and sep:
        counter, _, kernel = rest.partition("_")
        if counter.isdigit() and kernel:
            return kernel
    return name


def join_compiled(launches: Sequence[ev.Launch], traffic: Sequence[Traffic]) -> list[Traffic | None]:
    """Match compiled kernels' byte records to launches in call order, by kernel (or library op) name."""
    joined: list[Traffic | None] = []
    position = 0
    for launch in launches:
        key = kernel_join_key(launch)
        match = None
        for index in range(position, len(traffic)):
            if traffic[index].name == key:
                match, position = traffic[index], index + 1
                break
        joined.append(match)
    return joined


def join_eager(launches: Sequence[ev.Launch], traffic: Sequence[Traffic]) -> list[Traffic | None]:
    """Give each dispatched operator's bytes to the top-level op whose subtree ran it, in order.

    A composite op (``softmax``) arrives at the dispatcher as what it decomposes into (``_softmax``),
    which the profiler shows inside the top-level op's subtree.
    """
    ops: list[Any] = []
    for launch in launches:
        if launch.op_event is not None and (not ops or ops[-1] is not launch.op_event):
            ops.append(launch.op_event)
    names_below = [{node.name for node in ev.subtree(op)} for op in ops]
    per_op: dict[int, list[Traffic]] = {}
    position = 0
    for record in traffic:
        for index in range(position, len(ops)):
            if record.name in names_below[index]:
                per_op.setdefault(id(ops[index]), []).append(record)
                position = index
                break
    joined: list[Traffic | None] = []
    seen: set[int] = set()
    for launch in launches:
        records = per_op.get(id(launch.op_event)) if launch.op_event is not None else None
        if records and id(launch.op_event) not in seen:
            seen.add(id(launch.op_event))
            joined.append(
                Traffic(
                    launch.op or launch.name,
                    sum(r.bytes_read for r in records),
                    sum(r.bytes_written for r in records),
                    _unique(op for r in records for op in r.aten_ops),
                    _unique(line for r in records for line in r.lines),
                )
            )
        elif records:
            joined.append(Traffic(launch.name, 0, 0))  # the op's bytes went to its first kernel
        else:
            joined.append(None)
    return joined


def _unique(items: Iterable[Any]) -> tuple:
    return tuple(dict.fromkeys(items))


def kernel_rows(per_run: list[list[ev.Launch]], traffic: list[Traffic | None]) -> list[Kernel]:
    """Group launches by full name in first-seen order; calls and time per run of ``fn``.

    A row's time is the median over the runs of its time in one run: a shared machine's hiccup in one
    run does not move it. ``traffic`` lines up with the first run's launches: bytes are per run too.
    """
    runs = max(len(per_run), 1)
    order: list[tuple[str, str]] = []
    calls: dict[tuple[str, str], int] = {}
    time_us: dict[tuple[str, str], list[float]] = {}
    ops: dict[tuple[str, str], str | None] = {}
    for run, launches in enumerate(per_run):
        for launch in launches:
            key = (launch.name, launch.kind)
            if key not in calls:
                order.append(key)
                calls[key], time_us[key], ops[key] = 0, [0.0] * runs, launch.op
            calls[key] += 1
            time_us[key][run] += launch.time_us
    read: dict[tuple[str, str], int | None] = {}
    written: dict[tuple[str, str], int | None] = {}
    joined: dict[tuple[str, str], list[Traffic]] = {}
    for launch, record in zip(per_run[0] if per_run else [], traffic):
        key = (launch.name, launch.kind)
        if record is None:
            read.setdefault(key, None)
            written.setdefault(key, None)
            continue
        read[key] = (read.get(key) or 0) + record.bytes_read
        written[key] = (written.get(key) or 0) + record.bytes_written
        joined.setdefault(key, []).append(record)
    rows = []
    for key in order:
        name, kind = key
        rows.append(
            Kernel(
                name=name,
                short_name=short_name(name),
                calls=_per_run(calls[key], runs),
                time_us=statistics.median(time_us[key]),
                bytes_read=read.get(key),
                bytes_written=written.get(key),
                kind=kind,
                op=ops[key] if ops[key] != name else None,
                aten_ops=_unique(op for r in joined.get(key, ()) for op in r.aten_ops),
                lines=_unique(line for r in joined.get(key, ()) for line in r.lines),
                code=next((r.code for r in joined.get(key, ()) if r.code), None),
            )
        )
    return rows


def _per_run(count: int, runs: int) -> float:
    value = count / runs
    return int(value) if value == int(value) else round(value, 3)
