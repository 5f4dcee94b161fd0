"""Rebuild torch.profiler's ``FunctionEvent`` list from a recorded Chrome/Kineto trace, as torch does.

torch turns each Kineto activity into one ``FunctionEvent`` (``torch.autograd.profiler._parse_kineto_results``)
and then nests the CPU ones with ``EventList._build_tree()``. The trace file holds the same activities as
JSON, so the same events can be rebuilt on a machine without a GPU and fed to the engine's CUDA path:

- operators and ``record_function`` ranges (``cpu_op``, ``user_annotation``): ``id`` is the trace's
  External id, ``linked_correlation_id`` 0;
- runtime and driver calls and Kineto ``overhead`` events: ``id`` is CUPTI's correlation id,
  ``linked_correlation_id`` the External id (0 when made outside any operator);
- device activities (``kernel``, ``gpu_memcpy``, ``gpu_memset``, ``gpu_user_annotation``, ``cuda_sync``):
  the same ids, ``device_type`` CUDA, ``activity_type`` the trace's ``cat``, and the activity's arguments as
  ``metadata_json`` (which is where Kineto's ``bytes`` of a memcpy or memset come from).

torch fills ``metadata_json`` only for a profiler given ``_ExperimentalConfig(expose_kineto_event_metadata=True)``;
by default it is empty (torch 2.11 and 2.14, ``shared/tools/gpu-audit/metadata_probe.py``). ``metadata=False``
rebuilds that default form, and ``ReplayedProfiler`` stands in for ``torch.profiler.profile``, giving the form
the profiler was configured for, so a test runs the engine's own profiling code on a real GPU's trace.

``legacy=True`` rebuilds what torch 2.11 and older give: the same events and the same ``.kernels`` lists,
but no ``linked_correlation_id``, ``activity_type`` or ``external_id`` attributes.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

from torch.autograd import DeviceType
from torch.autograd.profiler_util import EventList, FunctionEvent

from kernel_tui.engine.counting.events import RUN_RANGE
from support.locations import DATA

TRACES = DATA / "cuda_traces"

OPERATOR_CATS = {"cpu_op", "user_annotation"}
HOST_LINKED_CATS = {"cuda_runtime", "cuda_driver", "overhead"}
DEVICE_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "cuda_sync"}
DEVICE_WORK_CATS = {"kernel", "gpu_memcpy", "gpu_memset"}

# What plays the engine's RUN_RANGE in each recorded trace: the profiled steps of the program that recorded it.
OWN_RUNS = rf"^{re.escape(RUN_RANGE)}$"
STEPS = {
    "hta_triton_example_a100.json.gz": r"^Torch-Compiled Region: ",
    "hta_simple_add.json.gz": r"\|measure\|forward\]$",
    "hta_alexnet_a100.json.gz": r"\|measure\|forward\]$",
    "tracelens_h100_bert_small.json.gz": r"^ProfilerStep#\d+$",
    "tracelens_b200_vllm_compiled.json.gz": r"^execute_context_",
    "tracelens_torch_compile_triton_mi300x.json.gz": r"^## Call CompiledFxGraph ",
}


def steps_of(path: str | Path) -> str:
    """What counts as a profiled run in this trace: its entry in ``STEPS``, else the engine's own ranges."""
    return STEPS.get(Path(path).name, OWN_RUNS)


def trace_events(path: str | Path) -> list[dict[str, Any]]:
    """The complete ('X') activities of a trace file, gzipped or not."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        data = json.load(handle)
    events = data["traceEvents"] if isinstance(data, dict) else data
    return [e for e in events if e.get("ph") == "X" and e.get("cat") in OPERATOR_CATS | HOST_LINKED_CATS | DEVICE_CATS]


def replay(
    path: str | Path, *, legacy: bool = False, steps: str | None = None, metadata: bool = True, typed: bool = False
) -> list[FunctionEvent]:
    """``FunctionEvent``s as ``prof.events()`` would list them for this trace.

    With ``steps`` (a regex; default: the trace's entry in ``STEPS``), the CPU ranges it matches are renamed
    to the engine's ``RUN_RANGE``: they are the runs the engine's CUDA path counts kernels in. ``metadata=False``:
    what a profiler not asked for Kineto's metadata gives, an empty ``metadata_json``. ``typed=True``: torch
    2.15's form, no ``metadata_json`` but ``metadata``, a dict keyed as the trace's arguments (None unexposed)."""
    raw = trace_events(path)
    # A trace the engine saved itself (``make gpu-check``) has its own run ranges already.
    step_pattern = re.compile(steps if steps is not None else steps_of(path))
    origin = min(e["ts"] for e in raw)
    built: list[FunctionEvent] = []
    for entry in raw:
        cat, args = entry["cat"], entry.get("args", {})
        external = int(args.get("External id", 0) or 0)
        on_device = cat in DEVICE_CATS
        if cat in OPERATOR_CATS:
            event_id, linked = external, 0
        else:
            event_id, linked = int(args.get("correlation", 0) or 0), external
        name = entry["name"]
        if cat in ("user_annotation", "gpu_user_annotation", "cpu_op") and step_pattern.search(name):
            name = RUN_RANGE
        start = float(entry["ts"]) - origin
        event = FunctionEvent(
            id=event_id,
            name=name,
            thread=entry.get("tid", 0),
            start_us=start,
            end_us=start + float(entry.get("dur", 0)),
            device_type=DeviceType.CUDA if on_device else DeviceType.CPU,
            device_index=int(args.get("device", 0) or 0) if on_device else 0,
            is_user_annotation=cat in ("user_annotation", "gpu_user_annotation"),
            activity_type=cat,
            metadata_json=json.dumps(args)[1:-1] if on_device and metadata else "",
            external_id=external,
            linked_correlation_id=linked,
        )
        if typed:
            for attribute in ("_metadata_json", "metadata_json"):
                vars(event).pop(attribute, None)
            event.metadata = dict(args) if on_device and metadata else None
        built.append(event)
    _link_like_torch(built)
    if legacy:
        for event in built:
            for attribute in ("linked_correlation_id", "activity_type", "external_id"):
                vars(event).pop(attribute, None)
    events = EventList(built)
    events._build_tree()
    return list(events)


def _link_like_torch(events: list[FunctionEvent]) -> None:
    """What ``_parse_kineto_results`` does after building the events (the same in torch 2.4 to 2.14):
    every unlinked CPU event whose ``id`` some device event links to gets that event in ``.kernels``.

    This keeps torch's own flaw: an unlinked runtime call whose CUPTI id equals an operator's External id
    gets that operator's kernels too."""
    by_linked: dict[int, list[FunctionEvent]] = {}
    frontend = []
    for event in events:
        if event.linked_correlation_id > 0:
            by_linked.setdefault(event.linked_correlation_id, []).append(event)
        elif event.activity_type != "overhead":
            frontend.append(event)
    for event in frontend:
        if event.device_type != DeviceType.CPU or event.id not in by_linked:
            continue
        for linked in by_linked[event.id]:
            if linked.device_type == DeviceType.CUDA:
                event.append_kernel(linked.name, linked.device_index, linked.time_range.elapsed_us())
            else:
                linked.thread = event.thread


def exposes_metadata(experimental_config: Any) -> bool:
    """Whether a profiler given this experimental config fills ``FunctionEvent.metadata_json``."""
    from torch._C._profiler import _ExperimentalConfig

    if experimental_config is None:
        return False
    default = _ExperimentalConfig().__getstate__()
    exposed = _ExperimentalConfig(expose_kineto_event_metadata=True).__getstate__()
    assert isinstance(default, tuple) and isinstance(exposed, tuple)  # its settings, in order
    flag = [index for index, (off, on) in enumerate(zip(default, exposed)) if off != on]
    state = experimental_config.__getstate__()
    assert isinstance(state, tuple)
    return bool(flag) and all(state[index] == exposed[index] for index in flag)


class ReplayedProfiler:
    """Stands in for ``torch.profiler.profile``: the events a GPU profile of ``path`` gave, with Kineto's
    metadata only where the profiler was asked for it, as torch does."""

    def __init__(self, path: str | Path, *, legacy: bool = False, typed: bool = False) -> None:
        self.path = path
        self.legacy = legacy
        self.typed = typed
        self.metadata = False

    def __call__(self, activities: Any = None, experimental_config: Any = None, **ignored: Any) -> ReplayedProfiler:
        self.metadata = exposes_metadata(experimental_config)
        return self

    def __enter__(self) -> ReplayedProfiler:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def events(self) -> list[FunctionEvent]:
        return replay(self.path, legacy=self.legacy, metadata=self.metadata, typed=self.typed)

    def export_chrome_trace(self, path: str) -> None:
        Path(path).write_bytes(gzip.decompress(Path(self.path).read_bytes()))


def trace_paths() -> list[Path]:
    return sorted(TRACES.glob("*.json.gz"))
