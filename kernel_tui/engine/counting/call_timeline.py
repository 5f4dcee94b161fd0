"""Split each profiled call into kernels, launch, dispatch, framework and idle device time, and keep the
timeline of the median call (``model/call_breakdown`` says what each part is).

Works on the profiler's ``FunctionEvent``s through the attributes ``events`` reads, so a recorded GPU trace
(``tests/support/cuda_replay.py``) goes through the same code as a live profile. The parts come from unions of
intervals taken in priority order: a part is the time its intervals add to the union of the parts before it.
"""

from __future__ import annotations

import functools
import statistics
from collections.abc import Iterable, Sequence
from typing import Any

from kernel_tui.engine.counting import events as ev
from kernel_tui.model.names.names import short_name
from kernel_tui.model.report.call_breakdown import PARTS, CallBreakdown, TimelineSpan

Interval = tuple[float, float]

FRAMEWORK_PREFIXES = (
    "TorchDynamo",  # the guard check and cache lookup before every compiled call
    "Torch-Compiled Region",
    "## Call CompiledFxGraph",
    "Pregraph bytecode",
    "AOTDispatcher",
    "CompiledFunction",
    "## Call CompiledFxGraph",
    "CUDAGraphNode",
)
"""Ranges that Dynamo, AOTAutograd and Inductor's wrapper record around a compiled call."""
SYNCHRONIZE = "Synchronize"
"""In the name of every runtime call that waits for the device (``cudaDeviceSynchronize``, ``cudaStreamSynchronize``,
``cudaEventSynchronize``, ``hipDeviceSynchronize``)."""
MAX_SPANS_PER_LANE = 200
"""Enough for an 80-column drawing many times over; a long step's thousands of spans would bloat every report
(beyond it, neighbouring spans are merged: ``timeline_dropped`` counts the spans merged away)."""


@functools.lru_cache(maxsize=4096)
def _short_name(name: str) -> str:
    """A step launches the same few kernels many times, and shortening a C++ template name is costly."""
    return short_name(name)


def is_framework(name: str) -> bool:
    return name.startswith(FRAMEWORK_PREFIXES) or "cudagraph" in name.lower()


def merged(intervals: Iterable[Interval]) -> list[Interval]:
    """The union of ``intervals`` as sorted, disjoint intervals."""
    union: list[Interval] = []
    for start, end in sorted(i for i in intervals if i[1] > i[0]):
        if union and start <= union[-1][1]:
            union[-1] = (union[-1][0], max(union[-1][1], end))
        else:
            union.append((start, end))
    return union


def length(intervals: Sequence[Interval]) -> float:
    return sum(end - start for start, end in intervals)


def clipped(intervals: Iterable[Interval], window: Interval) -> list[Interval]:
    low, high = window
    return [(max(start, low), min(end, high)) for start, end in intervals if end > low and start < high]


def _span(event: Any) -> Interval:
    return float(event.time_range.start), float(event.time_range.end)


def _run_parts(
    run_range: Any, work: list[tuple[str, Interval]], device: str
) -> tuple[dict[str, float], float, list[TimelineSpan]]:
    """One run's parts, its call time, and its timeline."""
    window = _span(run_range)
    host = [node for node in ev.subtree(run_range) if node is not run_range]
    launches = [node for node in host if ev._is_runtime_call(node) and SYNCHRONIZE not in node.name]
    waits = [node for node in host if ev._is_runtime_call(node) and SYNCHRONIZE in node.name]
    framework = [node for node in host if is_framework(node.name)]
    operators = [
        node
        for node in host
        if ev.is_operator_name(node.name) and not is_framework(node.name) and not ev._is_runtime_call(node)
    ]
    layers: dict[str, list[Interval]] = {
        "kernels": [interval for _, interval in work],
        "launch": [_span(node) for node in launches],
        "idle": [_span(node) for node in waits],
        "dispatch": [_span(node) for node in operators],
        "framework": [_span(node) for node in framework],
    }
    parts: dict[str, float] = {}
    covered: list[Interval] = []
    for name, intervals in layers.items():
        union = merged([*covered, *clipped(intervals, window)])
        parts[name] = length(union) - length(covered)
        covered = union
    call_us = window[1] - window[0]
    # The rest is Python running outside every recorded range: dispatch overhead, the profiler's own included.
    parts["dispatch"] += max(call_us - length(covered), 0.0)
    if device != "cuda":
        parts["idle"] = 0.0
    origin = window[0]
    spans = [
        *_lane("device", ((_short_name(name), interval) for name, interval in work), window, origin),
        *_lane("launch", ((node.name, _span(node)) for node in launches + waits), window, origin),
        *_lane("framework", ((node.name, _span(node)) for node in framework), window, origin),
        *_lane("host", ((node.name, _span(node)) for node in ev.top_level_ops(run_range)), window, origin),
    ]
    return parts, call_us, spans


def _lane(lane: str, items: Iterable[tuple[str, Interval]], window: Interval, origin: float) -> list[TimelineSpan]:
    spans = []
    for name, interval in items:
        for start, end in clipped([interval], window):
            spans.append(TimelineSpan(lane, name, round(start - origin, 3), round(end - origin, 3)))
    return spans


def _work(launches: Sequence[ev.Launch], device: str) -> dict[int, list[tuple[str, Interval]]]:
    """Per run, each launch's name and interval: a GPU's device activity, a CPU operator's inclusive time."""
    per_run: dict[int, list[tuple[str, Interval]]] = {}
    for launch in launches:
        if device == "cuda":
            interval = (launch.start_us, launch.start_us + launch.time_us)
        elif launch.op_event is not None:
            interval = _span(launch.op_event)
        else:
            continue
        per_run.setdefault(launch.run, []).append((launch.name, interval))
    return per_run


def _holds_a_run(run_range: Any) -> bool:
    return any(node.name == ev.RUN_RANGE for node in ev.subtree(run_range) if node is not run_range)


def _quartiles(values: Sequence[float]) -> tuple[float, float]:
    if len(values) < 2:
        return (values[0], values[0]) if values else (0.0, 0.0)
    quartiles = statistics.quantiles(values, n=4, method="inclusive")
    return (quartiles[0], quartiles[2])


def _iqr(values: Sequence[float]) -> float:
    low, high = _quartiles(values)
    return high - low


def _kept(spans: list[TimelineSpan]) -> tuple[list[TimelineSpan], int]:
    """At most ``MAX_SPANS_PER_LANE`` per lane, in time order. A lane with more has its neighbours merged
    across its smallest gaps, only as many as it takes, so the lane covers the same time: dropping short spans
    instead drew idle gaps where thousands of short kernels ran."""
    kept: list[TimelineSpan] = []
    for lane in dict.fromkeys(span.lane for span in spans):
        in_lane = sorted((span for span in spans if span.lane == lane), key=lambda s: (s.start_us, s.end_us))
        kept.extend(_merged_to(in_lane, MAX_SPANS_PER_LANE))
    kept.sort(key=lambda span: (span.start_us, span.lane))
    return kept, len(spans) - len(kept)


def _merged_to(spans: list[TimelineSpan], most: int) -> list[TimelineSpan]:
    """``spans`` (in start order) with the ``len(spans) - most`` smallest gaps between neighbours closed; a
    merged span keeps its name only if all its parts had it."""
    if len(spans) <= most:
        return spans
    reach = [spans[0].end_us]
    for span in spans[1:]:
        reach.append(max(reach[-1], span.end_us))
    gaps = sorted(range(1, len(spans)), key=lambda index: spans[index].start_us - reach[index - 1])
    closed = set(gaps[: len(spans) - most])
    merged_spans = [spans[0]]
    for index in range(1, len(spans)):
        span, last = spans[index], merged_spans[-1]
        if index in closed:
            name = last.name if span.name == last.name else "several"
            merged_spans[-1] = TimelineSpan(last.lane, name, last.start_us, max(last.end_us, span.end_us))
        else:
            merged_spans.append(span)
    return merged_spans


def call_breakdown(events: list[Any], launches: Sequence[ev.Launch], device: str) -> CallBreakdown | None:
    """The parts of the profiled calls in ``events`` (each inside a ``RUN_RANGE``), ``launches`` being the
    kernels the engine found in them; None when no run was recorded."""
    runs = ev.number_runs(events)
    if not runs:
        return None
    by_run = _work(launches, device)
    ranges = sorted((event for event in events if id(event) in runs), key=lambda event: runs[id(event)])
    # A step range nested in one of the same name (HTA's traces): the inner one is the call, the outer's kernels
    # belong to the inner.
    ranges = [run_range for run_range in ranges if not _holds_a_run(run_range)] or ranges
    measured = [_run_parts(run_range, by_run.get(runs[id(run_range)], []), device) for run_range in ranges]
    calls = [call for _, call, _ in measured]
    median_call = statistics.median(calls)
    _, _, spans = min(measured, key=lambda run: abs(run[1] - median_call))
    timeline, dropped = _kept(spans)
    medians = {name: statistics.median(parts[name] for parts, _, _ in measured) for name in PARTS}
    spreads = {name: _iqr([parts[name] for parts, _, _ in measured]) for name in PARTS}
    shares = [parts["kernels"] / call if call > 0 else 0.0 for parts, call, _ in measured]
    return CallBreakdown(
        call_us=median_call,
        call_iqr_us=_iqr(calls),
        kernels_us=medians["kernels"],
        launch_us=medians["launch"],
        dispatch_us=medians["dispatch"],
        framework_us=medians["framework"],
        idle_us=medians["idle"] if device == "cuda" else None,
        iqr_us=spreads if device == "cuda" else {k: v for k, v in spreads.items() if k != "idle"},
        runs=len(measured),
        timeline=tuple(timeline),
        timeline_dropped=dropped,
        kernels_share=statistics.median(shares),
        kernels_share_range=_quartiles(shares),
    )
