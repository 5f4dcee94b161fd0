"""Which profiler events are kernels, on CPU and on CUDA, and which run of ``fn`` each belongs to.

Works on ``torch.profiler`` ``FunctionEvent`` objects through a handful of attributes (``name``,
``device_type``, ``cpu_parent``, ``cpu_children``, ``time_range``, ``id``, ``linked_correlation_id``,
``activity_type``, ``is_user_annotation``), so tests can feed it constructed events where no GPU exists.

Each profiled call of ``fn`` is wrapped in a ``RUN_RANGE`` annotation; everything outside one is ignored.

On CUDA, torch 2.12 and later link each device event to the operator whose External id it carries
(``linked_correlation_id``); torch 2.11 and older keep no link on the event, and the runtime call with the
device event's correlation id, nested in its operator by the event tree, stands in.
``tests/support/cuda_replay.py`` rebuilds both forms from real GPU traces.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kernel_tui.engine.counting.launch_info import metadata_launch
from kernel_tui.model.names.names import is_generated_kernel
from kernel_tui.model.report.library_call import is_library_op

if TYPE_CHECKING:
    from kernel_tui.model.report.launch import KernelLaunch

RUN_RANGE = "kernel_tui::run"
BACKWARD_RANGE = "kernel_tui::backward"
"""Around a training step's ``backward()`` inside its run: where its backward section begins."""
AUTOGRAD_NODE = "autograd::engine::evaluate_function"
"""The autograd engine's range around each backward node; on CUDA it may run on the engine's own thread."""
AUTOGRAD_FUNCTION = "torch::autograd::"
"""A node of the autograd engine written in C++ (``AccumulateGrad``): like ``ReluBackward0``, a range around
the operators that do its work (``AccumulateGrad`` copies a shared gradient into ``.grad``)."""

ALLOCATION_OPS = frozenset(
    {
        "aten::empty",
        "aten::empty_like",
        "aten::empty_strided",
        "aten::new_empty",
        "aten::new_empty_strided",
        "aten::resize_",
        "aten::set_",
        "aten::detach_",
        "aten::_unsafe_view",
        "aten::_reshape_alias",
        "aten::lift_fresh",
        "aten::record_stream",
    }
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
    device_bytes: int | None = None
    """What the profiler recorded a memcpy or memset moving; eager operators' bytes come from dispatch."""
    nested: bool = False
    """A pass inside a composite operator (``aten::amax`` in ``aten::logsumexp``): ``op`` names the composite."""
    pass_event: Any = None
    """A nested pass's own operator event, inside ``op_event``: its subtree joins it to its own bytes."""
    shape: KernelLaunch | None = None
    """A GPU kernel's grid, block, registers and occupancy, from its Kineto metadata (``launch_info``)."""
    call_event: Any = None
    """On a GPU, the library operator (``aten::mm``) this launch ran inside, outermost first
    (``library_call_of``): its launches are one call, however many kernels the library chose."""


def device_kind(event: Any) -> str:
    return str(getattr(event, "device_type", "CPU")).rsplit(".", 1)[-1].upper()


def duration_us(event: Any) -> float:
    time_range = getattr(event, "time_range", None)
    if time_range is not None:
        return float(time_range.elapsed_us())
    return float(getattr(event, "device_time", 0.0) or getattr(event, "cpu_time_total", 0.0))


def is_operator_name(name: str) -> bool:
    """Operators (``aten::add``) and Inductor kernels are work candidates; other names are annotations."""
    if name in (RUN_RANGE, BACKWARD_RANGE) or name.startswith((AUTOGRAD_NODE, AUTOGRAD_FUNCTION)):
        return False  # ranges around work, like a compiled region: the work is below them
    return "::" in name or is_generated_kernel(name)


def run_index(event: Any, runs: dict[int, int], spans: list[tuple[float, float, int]] | None = None) -> int | None:
    """The run an event belongs to: the run range above it, or, for a backward node the autograd engine ran
    on a thread of its own (CUDA), the run range its start falls in (``backward()`` waits for that thread)."""
    node, root = event, event
    while node is not None:
        if node.name == RUN_RANGE:
            return runs.get(id(node))
        root, node = node, node.cpu_parent
    if spans and root.name.startswith(AUTOGRAD_NODE) and getattr(event, "time_range", None) is not None:
        start = event.time_range.start
        return next((index for first, last, index in spans if first <= start <= last), None)
    return None


def run_spans(events: Iterable[Any], runs: dict[int, int]) -> list[tuple[float, float, int]]:
    """Each run range's start, end and number."""
    return [(e.time_range.start, e.time_range.end, runs[id(e)]) for e in events if id(e) in runs]


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


def cpu_launches(
    events: list[Any],
    moves_data: Callable[[str], bool],
    own_kernel: Callable[[str], bool] | None = None,
    composition: Callable[[str], bool] | None = None,
) -> list[Launch]:
    """CPU: a kernel is a top-level operator whose subtree moves data (views and allocations move none).

    With ``own_kernel`` (does this operator have a CPU kernel of its own), a composite operator is as many
    kernels as the data-moving passes it runs: ``aten::logsumexp`` runs amax, abs, eq, masked_fill, sub,
    exp, sum, log and add, each a pass over memory (and a launch each on a GPU). An operator with a kernel
    of its own is one, whatever helpers it calls (``sum`` fills its output first), and so is one that
    delegates to a single data-moving operator (``relu`` to ``clamp_min``). With ``composition`` (is this
    operator only a composition of others), one that calls no data-moving operator launched nothing."""
    runs = number_runs(events)
    launches = []
    run_ranges = sorted((e for e in events if id(e) in runs), key=lambda e: runs[id(e)])
    for run_range in run_ranges:
        run = runs[id(run_range)]
        for op in top_level_ops(run_range):
            if not _moves(op, moves_data, composition):
                continue
            kind = "kernel" if is_generated_kernel(op.name) else "op"
            parts = [op] if own_kernel is None else _passes(op, moves_data, own_kernel, composition)
            if parts == [op]:
                launches.append(Launch(op.name, kind, duration_us(op), run, op.name, op))
                continue
            for part in parts:
                launches.append(
                    Launch(part.name, "op", duration_us(part), run, op.name, op, nested=True, pass_event=part)
                )
    return launches


def _moves(event: Any, moves_data: Callable[[str], bool], composition: Callable[[str], bool] | None = None) -> bool:
    """Whether some operator in the event's subtree moved data. With ``composition``, an operator that is only
    a composition of others does its work through them: ``dropout`` in eval mode calls none, and returns its
    input."""
    return any(
        moves_data(node.name) and not (composition is not None and composition(node.name))
        for node in subtree(event)
        if is_operator_name(node.name)
    )


def _passes(
    event: Any,
    moves_data: Callable[[str], bool],
    own_kernel: Callable[[str], bool],
    composition: Callable[[str], bool] | None = None,
) -> list[Any]:
    """The operators under ``event`` that each make a pass over memory: ``[event]`` when it is one."""
    if is_generated_kernel(event.name) or own_kernel(event.name):
        return [event]
    parts = []
    for child in top_level_ops(event):
        if _moves(child, moves_data, composition):
            parts.extend(_passes(child, moves_data, own_kernel, composition))
    return parts if len(parts) > 1 else [event]


# CUPTI's synchronisation records are device-side but do no work; older torch names them only by name.
SYNC_NAMES = frozenset({"Stream Sync", "Context Sync", "Event Sync", "Stream Wait Event"})
DEVICE_WORK = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}
OPERATOR_ACTIVITIES = frozenset({"cpu_op", "user_annotation"})
RUNTIME_ACTIVITIES = frozenset({"cuda_runtime", "cuda_driver"})
_BYTES = re.compile(r'"bytes"\s*:\s*(\d+)')


def cuda_kind(event: Any) -> str | None:
    """kernel, memcpy or memset for device work; None for the rest (annotation copies, syncs, overhead)."""
    activity = getattr(event, "activity_type", None)
    if activity:
        return DEVICE_WORK.get(str(activity).lower())
    # torch before 2.12 does not say: tell device work from the rest by name.
    if getattr(event, "is_user_annotation", False):
        return None
    return kind_by_name(event.name)


def kind_by_name(name: str) -> str | None:
    if name.startswith("Memcpy"):
        return "memcpy"
    if name.startswith("Memset"):
        return "memset"
    if name in SYNC_NAMES or name == RUN_RANGE or name.startswith(("## ", "Torch-Compiled Region", "kernel_tui::")):
        return None
    return "kernel"


def event_metadata(event: Any) -> str:
    """The activity's Kineto metadata, as JSON text."""
    typed = getattr(event, "metadata", None)  # torch 2.15: a dict keyed as the trace's arguments are
    if isinstance(typed, dict):
        return json.dumps(typed, default=str)
    # torch 2.14 deprecates ``metadata_json`` in favour of ``event_metadata``; read whichever exists.
    metadata = event._metadata_json if hasattr(event, "_metadata_json") else getattr(event, "metadata_json", None)
    return str(metadata or "")


def device_bytes(event: Any) -> int | None:
    """The bytes a memcpy or memset moved, as Kineto recorded them in the activity's metadata."""
    return bytes_in(event_metadata(event))


def bytes_in(metadata: str) -> int | None:
    match = _BYTES.search(metadata)
    return int(match.group(1)) if match else None


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


def library_call_of(cpu_event: Any) -> Any:
    """The outermost library operator (``library_call.LIBRARY_OPS``) between the innermost op active at a launch
    and its run: the call the launch belongs to (an ``addmm`` that copies its bias first is still one call), or
    None for a launch that no library operator made."""
    call = None
    node = cpu_event
    while node is not None and node.name != RUN_RANGE:
        if "::" in node.name and is_library_op(node.name):
            call = node
        node = node.cpu_parent
    return call


RUNTIME_CALL = re.compile(r"^(cuda|cu|hip)[A-Z]\w*$")


def cuda_launches(events: list[Any]) -> list[Launch]:
    """CUDA: device-side kernels, memcpys and memsets, each linked to the op that launched it.

    A device event names its operator by External id (``linked_correlation_id``, torch 2.12 and later).
    External ids and CUPTI correlation ids are two counters that both start at 1, so only operators may be
    found by External id: an unrelated runtime call can carry the same number. Where the External id names
    no operator (older Kineto wrote the correlation id there; torch 2.11 and older keep no link at all on
    the event), the launch is found through the runtime call with the device event's own correlation id
    (its ``id``), and the operator is the one that call ran inside."""
    runs = number_runs(events)
    spans = run_spans(events, runs)
    operators_by_id: dict[int, Any] = {}
    runtime_by_id: dict[int, Any] = {}
    for event in events:
        if device_kind(event) != "CPU":
            continue
        if _is_runtime_call(event):
            runtime_by_id.setdefault(event.id, event)
        elif _is_operator_activity(event):
            operators_by_id.setdefault(event.id, event)
    launches = []
    for event in events:
        if device_kind(event) != "CUDA":
            continue
        kind = cuda_kind(event)
        if kind is None:
            continue
        launcher = _launcher(event, operators_by_id, runtime_by_id)
        if launcher is None:
            continue
        run = run_index(launcher, runs, spans)
        if run is None:
            continue
        top = launching_top_op(launcher)
        start = float(event.time_range.start) if getattr(event, "time_range", None) else 0.0
        metadata = event_metadata(event)  # on torch 2.15 a dict made JSON: read once for the shape and the bytes
        shape = metadata_launch(metadata) if kind == "kernel" else None
        op, op_event = (None, None) if top.name == RUN_RANGE else (top.name, top)
        # top is the run range for a kernel launched straight from Python (a hand-written Triton kernel): no operator
        launches.append(
            Launch(
                event.name,
                kind,
                duration_us(event),
                run,
                op,
                op_event,
                start,
                bytes_in(metadata),
                shape=shape,
                call_event=library_call_of(launcher),
            )
        )
    launches.sort(key=lambda launch: (launch.run, launch.start_us))
    return launches


def _launcher(event: Any, operators_by_id: dict[int, Any], runtime_by_id: dict[int, Any]) -> Any:
    linked = getattr(event, "linked_correlation_id", 0) or 0
    if linked and linked in operators_by_id:
        return operators_by_id[linked]
    runtime = runtime_by_id.get(getattr(event, "id", 0) or 0)
    if runtime is None:
        return None
    # The operator the launch ran inside; a launch outside every operator has the run range as parent.
    return runtime.cpu_parent


def _is_runtime_call(event: Any) -> bool:
    activity = getattr(event, "activity_type", None)
    if activity:
        return str(activity).lower() in RUNTIME_ACTIVITIES
    return RUNTIME_CALL.match(event.name) is not None


def _is_operator_activity(event: Any) -> bool:
    activity = getattr(event, "activity_type", None)
    if activity:
        return str(activity).lower() in OPERATOR_ACTIVITIES
    return bool(getattr(event, "is_user_annotation", False)) or is_operator_name(event.name)


def device_event_count(events: list[Any]) -> int:
    """Device activities of any kind: none at all on a CUDA profile means the profiler lost them."""
    return sum(1 for event in events if device_kind(event) == "CUDA")


def launches_per_run(launches: list[Launch], runs: int) -> list[list[Launch]]:
    grouped: list[list[Launch]] = [[] for _ in range(runs)]
    for launch in launches:
        if 0 <= launch.run < runs:
            grouped[launch.run].append(launch)
    return grouped
