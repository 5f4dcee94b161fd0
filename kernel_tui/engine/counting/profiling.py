"""Profile a warm function with ``torch.profiler`` and turn its events into kernel rows with byte counts."""

from __future__ import annotations

import collections
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch
from torch.profiler import ProfilerActivity, profile, record_function

from kernel_tui.engine.counting import events as ev
from kernel_tui.engine.counting.attribution import base_name
from kernel_tui.engine.counting.call_timeline import call_breakdown
from kernel_tui.engine.counting.launch_info import row_launch
from kernel_tui.engine.counting.library_calls import CallKernels, RowKey, per_run_count, row_keys
from kernel_tui.engine.counting.module_paths import common_module
from kernel_tui.engine.counting.op_kinds import FUSED_LAYERS, has_cpu_kernel, is_composition, moves_data, seen_through
from kernel_tui.engine.counting.source_lines import NOT_DISPATCHED
from kernel_tui.engine.counting.timing import l2_flush, synchronize
from kernel_tui.engine.counting.traffic import Traffic
from kernel_tui.model.names.names import is_generated_kernel, short_name, without_graph_counter
from kernel_tui.model.report.kernel import Kernel, ModuleWork

if TYPE_CHECKING:
    from kernel_tui.model.report.call_breakdown import CallBreakdown
    from kernel_tui.model.report.launch import KernelLaunch

PROFILED_RUNS = 5


class NoDeviceActivity(RuntimeError):
    """A CUDA profile without a single device record: the profiler lost them, it is not "0 kernels"."""


@dataclass(frozen=True)
class Profile:
    """The launches of each profiled run of ``fn``, and the run the byte counts are joined against."""

    per_run: list[list[ev.Launch]]
    breakdown: CallBreakdown | None = None
    """Where the time of the profiled calls went (``call_timeline``)."""

    @property
    def reference(self) -> list[ev.Launch]:
        """A run whose launch count is the common one: a run that lost records must not set the bytes."""
        if not self.per_run:
            return []
        common = common_count([len(run) for run in self.per_run])
        return next(run for run in self.per_run if len(run) == common)

    @property
    def agreeing(self) -> list[list[ev.Launch]]:
        """The runs that launched the common number of kernels: calls per run are counted over these."""
        if not self.per_run:
            return []
        common = len(self.reference)
        return [run for run in self.per_run if len(run) == common]

    @property
    def note(self) -> str | None:
        """Which runs launched a different number of kernels than the rest, if any."""
        counts = [len(run) for run in self.per_run]
        if len(set(counts)) <= 1:
            return None
        common = common_count(counts)
        odd = ", ".join(f"run {index + 1}: {count}" for index, count in enumerate(counts) if count != common)
        return f"profiled runs disagree: {common} launches in most, {odd}"


def common_count(counts: Sequence[int]) -> int:
    """The launch count most runs agree on; on a tie, the larger one.

    A profiler can lose a run's records (CUPTI at the start of a session, a step range nested inside itself in
    a trace that reads as an empty run) but never invents them, so between equally common counts the larger
    belongs to a run that lost nothing (``statistics.mode`` would take the first: ``[0, 40]`` gives 0)."""
    tally = collections.Counter(counts)
    return max(tally, key=lambda count: (tally[count], count))


def profiler_options(device: str) -> dict[str, Any]:
    """What ``torch.profiler.profile`` must be given beyond the activities.

    On CUDA, Kineto's metadata of each activity (the ``bytes`` of a memcpy or memset) reaches
    ``FunctionEvent`` only when asked for (torch 2.11 to 2.14: ``expose_kineto_event_metadata``); without it a
    memcpy's row has no bytes on a real GPU. A torch whose experimental config lacks the flag profiles without
    it: the rows then say their bytes are unknown rather than the profile failing."""
    if device != "cuda":
        return {}
    try:
        from torch._C._profiler import _ExperimentalConfig

        return {"experimental_config": _ExperimentalConfig(expose_kineto_event_metadata=True)}
    except (ImportError, TypeError):
        return {}


def profile_launches(
    call: Callable[[], Any], device: str, runs: int = PROFILED_RUNS, trace_path: str | None = None
) -> Profile:
    """Run ``call`` ``runs`` times under the profiler; return each run's kernel launches in order.

    One more run goes first, inside the profiler session but outside every run range: CUPTI can drop the
    device records at the start of a session (CUDA 13.0), and the runs that count must not be those. On
    CUDA the L2 cache is flushed before each run, as the timing does, so the kernel times are those of data
    coming from memory; the synchronize is inside each run's range, so the run's device work has finished
    before its range ends.

    With ``trace_path``, the profile is also written there as a Chrome trace (it opens in Perfetto)."""
    activities = [ProfilerActivity.CPU]
    if device == "cuda":
        activities.append(ProfilerActivity.CUDA)
    flush = l2_flush(device)
    with profile(activities=activities, **profiler_options(device)) as prof, torch.no_grad():
        call()
        synchronize(device)
        for _ in range(runs):
            flush()
            with record_function(ev.RUN_RANGE):
                call()
                synchronize(device)
    if trace_path is not None:
        prof.export_chrome_trace(trace_path)
    events = list(prof.events())
    if device == "cuda":
        if ev.device_event_count(events) == 0:
            raise NoDeviceActivity(
                "the profiler recorded no GPU activity at all (CUPTI unavailable or its records lost): "
                "kernel counts cannot be read from this profile"
            )
        launches = ev.cuda_launches(events)
    else:
        launches = ev.cpu_launches(events, moves_data, has_cpu_kernel, is_composition)
    return Profile(ev.launches_per_run(launches, runs), call_breakdown(events, launches, device))


def kernel_join_key(launch: ev.Launch) -> str:
    """The name a launch shares with its byte record: the Inductor kernel's own, else its operator's."""
    name = launch.name
    if is_generated_kernel(name):
        return without_graph_counter(name)
    if launch.kind == "kernel" and launch.op and is_generated_kernel(launch.op):
        return without_graph_counter(launch.op)
    return launch.op or name


def join_compiled(launches: Sequence[ev.Launch], traffic: Sequence[Traffic]) -> list[Traffic | None]:
    """Match compiled kernels' byte records to launches in call order, by kernel (or library op) name.

    A library kernel replayed in a CUDA graph has no operator of its own (the replay launches it): it takes
    the next library call's record in order."""
    joined: list[Traffic | None] = []
    position = 0
    took: set[int] = set()
    for launch in launches:
        key = kernel_join_key(launch)
        # A pass of a fused layer takes the record of an operator it ran (its layer_norm ran native_layer_norm);
        # an operator, one of its work (eager code between graphs: linear's add, profiled as add_).
        names = {n.name for n in ev.subtree(launch.pass_event)} if launch.pass_event is not None else {key}
        works = {base_name(name) for name in names if _is_library_op(name)}
        match = None
        for index in range(position, len(traffic)):
            name = traffic[index].name
            if name in names or (_is_library_op(name) and base_name(name) in works):
                match, position = traffic[index], index + 1
                break
        if match is None and key in FUSED_LAYERS and launch.pass_event is None and id(launch.op_event) not in took:
            # The call's first kernel takes its passes; its other kernels, launched by the same call, none.
            match, position = _whole_layer(traffic, position, key)
            if launch.op_event is not None:
                took.add(id(launch.op_event))
        if match is None and launch.kind == "kernel" and not _is_library_op(key) and not is_generated_kernel(key):
            for index in range(position, len(traffic)):
                if _is_library_op(traffic[index].name):
                    match, position = traffic[index], index + 1
                    break
        joined.append(match)
    return joined


def _whole_layer(traffic: Sequence[Traffic], position: int, layer: str) -> tuple[Traffic | None, int]:
    """A fused layer's passes as one record, for a launch the profiler names only by the layer (a GPU's): those
    of the layer's next call, which ends where the next call of it begins."""
    call = f"aten.{layer.removeprefix('aten::')}"
    first = traffic[position] if position < len(traffic) else None
    if first is None or first.layer_call is None or not (first.call or "").startswith(call):
        return None, position
    end = position
    while end < len(traffic) and traffic[end].layer_call == first.layer_call:
        end += 1
    passes = traffic[position:end]  # ``first`` at least
    whole = Traffic(
        layer,
        sum(record.bytes_read for record in passes),
        sum(record.bytes_written for record in passes),
        tuple(dict.fromkeys(op for record in passes for op in record.aten_ops)),
        call=passes[0].call,
        elements=max((record.elements or 0 for record in passes), default=0) or None,
    )
    return whole, end


def _is_library_op(name: str) -> bool:
    return name.startswith("aten::")


def join_eager(launches: Sequence[ev.Launch], traffic: Sequence[Traffic]) -> list[Traffic | None]:
    """Give each dispatched operator's bytes to the top-level op whose subtree ran it, in order.

    A composite op (``softmax``) arrives at the dispatcher as what it decomposes into (``_softmax``),
    which the profiler shows inside the top-level op's subtree. A composite that runs several passes
    (nested launches) gives each pass the bytes of the operators below it (a fused layer's ``mm``, ``bmm``,
    ``_softmax``); one the dispatcher saw whole gives them all to its first pass.
    """
    ops: list[Any] = []
    works_below: list[set[str]] = []
    for launch in launches:
        event = _joined_event(launch)
        if event is not None and (not ops or ops[-1] is not event):
            ops.append(event)
            works = _seen_by_dispatch(event)
            if event is not launch.op_event:
                works |= _composites_first_pass_of(launch, ops[-2] if len(ops) > 1 else None)
            works_below.append(works)
    per_op: dict[int, list[Traffic]] = {}
    position = 0
    for record in traffic:
        for index in range(position, len(ops)):
            if base_name(record.name) in works_below[index]:
                per_op.setdefault(id(ops[index]), []).append(record)
                position = index
                break
    main = _main_launches(launches)
    joined: list[Traffic | None] = []
    for launch in launches:
        event = _joined_event(launch)
        records = per_op.get(id(event)) if event is not None else None
        if records and main.get(id(event)) is launch:
            joined.append(
                Traffic(
                    launch.op or launch.name,
                    sum(r.bytes_read for r in records),
                    sum(r.bytes_written for r in records),
                    _unique(op for r in records for op in r.aten_ops),
                    _unique(line for r in records for line in r.lines),
                    next((r.unplaced for r in records if r.unplaced), None),
                    elements=max((r.elements for r in records if r.elements), default=None),
                    module=common_module(r.module for r in records) if records[0].module is not None else None,
                    stack=_unique(frame for r in records for frame in r.stack),
                    own_flops=own_flops_of(records),
                )
            )
        elif launch.kind in ("memset", "memcpy") and launch.device_bytes is not None:
            # Work the dispatcher never saw (a GEMM's workspace memset): what the profiler says it moved.
            read = launch.device_bytes if launch.kind == "memcpy" else 0
            joined.append(Traffic(launch.name, read, launch.device_bytes))
        elif records and launch.nested:
            # The dispatcher saw the composite whole (its inputs read once, its output written once): those
            # bytes are on its first pass, and what each later pass moves is not known.
            joined.append(None)
        elif records:
            joined.append(Traffic(launch.name, 0, 0))  # the op's bytes went to its main kernel
        else:
            joined.append(None)
    return joined


def _seen_by_dispatch(event: Any) -> set[str]:
    """The works a dispatch mode records for an operator event: its own, and where the dispatcher decomposes it
    before the mode (``linear``) or the mode looks inside it (a fused layer), those of the operators it runs. An
    operator the mode sees whole records its own name only, whatever the profiler shows below it: the
    ``copy_`` under a ``mul`` is not the ``copy_`` AccumulateGrad runs next.

    By the work, not the spelling: under a dispatch mode ATen's composites take their out-of-place branch
    (linear adds its bias with ``add``, where the profiled run, with no mode, ran ``add_``)."""
    works = {base_name(event.name)}
    if seen_through(event.name):
        for child in ev.top_level_ops(event):
            works |= _seen_by_dispatch(child)
    return works


def _composites_first_pass_of(launch: ev.Launch, previous: Any) -> set[str]:
    """The composites above a nested pass (up to its top-level operator) whose first pass it is: the dispatcher
    may have seen any of them whole (``scaled_dot_product_attention``'s ``_safe_softmax``, ``logsumexp``), and
    its record then goes to that first pass."""
    above_previous = set()
    node = getattr(previous, "cpu_parent", None)
    while node is not None:
        above_previous.add(id(node))
        node = node.cpu_parent
    works: set[str] = set()
    node = launch.pass_event.cpu_parent
    while node is not None and id(node) not in above_previous:  # an earlier pass is below it, and above it
        works.add(base_name(node.name))
        if node is launch.op_event:
            break
        node = node.cpu_parent
    return works


def _joined_event(launch: ev.Launch) -> Any:
    """The operator event whose bytes a launch takes: a nested pass's own, else its top-level operator's."""
    return launch.pass_event if launch.pass_event is not None else launch.op_event


def _main_launches(launches: Sequence[ev.Launch]) -> dict[int, ev.Launch]:
    """Per operator, the launch that does its work: its first kernel, not the memset that clears a
    semaphore or a workspace before it; an operator that only copies or fills keeps its first launch."""
    main: dict[int, ev.Launch] = {}
    for launch in launches:
        event = _joined_event(launch)
        if event is None:
            continue
        current = main.get(id(event))
        if current is None or (current.kind != "kernel" and launch.kind == "kernel"):
            main[id(event)] = launch
    return main


def _unique(items: Iterable[Any]) -> tuple[Any, ...]:
    return tuple(dict.fromkeys(items))


def kernel_rows(
    per_run: list[list[ev.Launch]], traffic: list[Traffic | None], reference: list[ev.Launch] | None = None
) -> list[Kernel]:
    """Group launches by full name in first-seen order; calls and time per run of ``fn``.

    A row's time is the median over the runs of its time in one run: a shared machine's hiccup in one
    run does not move it. ``traffic`` lines up with ``reference`` (default: the first run's launches):
    bytes are per run too. A library call (``Launch.call_event``) counts once in its row's calls, whatever
    number of kernels the library ran for it; those kernels are listed in the row (``library_kernels``).
    """
    runs = max(len(per_run), 1)
    order: list[RowKey] = []
    calls: dict[RowKey, int] = {}
    time_us: dict[RowKey, list[float]] = {}
    ops: dict[RowKey, str | None] = {}
    library: dict[RowKey, str] = {}
    inside: dict[RowKey, CallKernels] = {}
    # Per row, per run, each call's time in launch order: a row of several modules' launches is split among them
    # by these (``module_paths.launch_time_by_module``), not by their counts.
    call_us: dict[RowKey, list[list[float]]] = {}
    for run, launches in enumerate(per_run):
        counted: set[int] = set()
        for launch, key in zip(launches, row_keys(launches)):
            if key not in calls:
                order.append(key)
                calls[key], time_us[key], ops[key] = 0, [0.0] * runs, launch.op
                call_us[key] = [[] for _ in range(runs)]
            starts = launch.call_event is None or id(launch.call_event) not in counted
            if starts:
                calls[key] += 1
                call_us[key][run].append(0.0)
            if launch.call_event is not None:
                counted.add(id(launch.call_event))
                library.setdefault(key, launch.call_event.name)
                inside.setdefault(key, CallKernels(runs)).add(launch, run)
            time_us[key][run] += launch.time_us
            call_us[key][run][-1] += launch.time_us
    read: dict[RowKey, int | None] = {}
    written: dict[RowKey, int | None] = {}
    joined: dict[RowKey, list[Traffic]] = {}
    if reference is None:
        reference = per_run[0] if per_run else []
    shapes: dict[RowKey, KernelLaunch | None] = {}
    reference_keys = row_keys(reference)
    for launch, key in zip(reference, reference_keys):
        if key[0] == launch.name:
            shapes.setdefault(key, launch.shape)
    launch_times: dict[int, float] = {}
    for launch, record in zip(reference, traffic):
        if record is not None:
            launch_times[id(record)] = launch.time_us
    for key, record in zip(reference_keys, traffic):
        if record is None:
            read.setdefault(key, None)
            written.setdefault(key, None)
            continue
        read[key] = (read.get(key) or 0) + record.bytes_read
        written[key] = (written.get(key) or 0) + record.bytes_written
        joined.setdefault(key, []).append(record)
    rows = []
    for key in order:
        name, kind, _, _ = key
        row_us = statistics.median(time_us[key])
        launch_us = per_launch_us(call_us[key])
        rows.append(
            Kernel(
                # The profiler's graph counter is process-wide, not part of the kernel: a name reads the same in
                # the tables, the line under them, the JSON and ``g``, and on a CPU as on a GPU.
                name=without_graph_counter(name),
                short_name=short_name(name),
                calls=per_run_count(calls[key], runs),
                time_us=row_us,
                launch_time_us=launch_us,
                bytes_read=read.get(key),
                bytes_written=written.get(key),
                kind=kind,
                op=ops[key] if ops[key] != name else None,
                aten_ops=_unique(op for r in joined.get(key, ()) for op in r.aten_ops),
                lines=_unique(line for r in joined.get(key, ()) for line in r.lines),
                line_calls=line_calls_of(joined.get(key, ())),
                unplaced=_unplaced(joined.get(key, ())),
                code=next((r.code for r in joined.get(key, ()) if r.code), None),
                launch=row_launch(
                    shapes.get(key),
                    next((r.code for r in joined.get(key, ()) if r.code), None),
                    next((r.elements for r in joined.get(key, ()) if r.elements), None),
                ),
                library=library.get(key),
                library_kernels=inside[key].kernels(calls[key]) if key in inside else (),
                module=common_module(r.module for r in joined.get(key, ()) if r.module is not None),
                module_calls=module_calls_of(joined.get(key, ())),
                module_work=module_work_of(joined.get(key, ()), launch_times),
                stack=_unique(frame for r in joined.get(key, ()) for frame in r.stack),
                flops=own_flops(joined.get(key, ())),
                layout=next((r.layout for r in joined.get(key, ()) if r.layout), None),
            )
        )
    return rows


def per_launch_us(runs: Sequence[Sequence[float]]) -> tuple[float, ...]:
    """Each call's time in one run, in launch order: per call, the median over the runs; empty for a row of one
    call, and where the runs did not make the same number of calls (no call is known to be the same one)."""
    counts = {len(times) for times in runs}
    if len(counts) != 1 or counts.pop() < 2:
        return ()
    return tuple(statistics.median(times) for times in zip(*runs))


def module_calls_of(records: Sequence[Traffic]) -> tuple[tuple[str, int], ...]:
    """Per module, the launches of one run whose record it ran."""
    return tuple(collections.Counter(record.module for record in records if record.module is not None).items())


def module_work_of(records: Sequence[Traffic], times: dict[int, float] | None = None) -> tuple[ModuleWork, ...]:
    """Per module, what the launches of one run whose record it ran moved, computed and (``times``: each record's
    launch time, by the record's id) took; empty for a row of one module or none, whose own figures are its
    module's. A record of no known module keeps the row's rest to its ``module`` (``module_table``)."""
    paths = list(dict.fromkeys(record.module for record in records if record.module is not None))
    if len(paths) < 2:
        return ()
    work = []
    for path in paths:
        own = [record for record in records if record.module == path]
        flops = [record.flops if record.flops is not None else record.own_flops for record in own]
        spent = [times.get(id(record)) for record in own] if times is not None else [None]
        work.append(
            ModuleWork(
                path,
                bytes=sum(record.bytes_total for record in own),
                flops=None if None in flops else sum(count for count in flops if count is not None),
                time_us=None if None in spent else sum(time for time in spent if time is not None),
            )
        )
    return tuple(work)


def own_flops_of(records: Sequence[Traffic]) -> int | None:
    """The eager operators' own FLOPs, all of ``records`` together (``Traffic.own_flops``); None unless all were."""
    counts = [record.own_flops for record in records]
    return None if None in counts else sum(count for count in counts if count is not None)


def own_flops(records: Sequence[Traffic]) -> int | None:
    """A library call's row counted from its own calls' arguments (``Traffic.flops``); None unless all were."""
    counts = [record.flops for record in records]
    return sum(count for count in counts if count is not None) if counts and None not in counts else None


def line_calls_of(records: Sequence[Traffic]) -> tuple[tuple[int, int], ...]:
    """Per line, the launches of one run whose record came from it."""
    return tuple(collections.Counter(line for record in records for line in record.lines).items())


def _unplaced(records: Sequence[Traffic]) -> str | None:
    """Why a row has no line: its records' reason, or that none was joined to it."""
    if any(record.lines for record in records):
        return None
    return next((record.unplaced for record in records if record.unplaced), None if records else NOT_DISPATCHED)
