"""The CUDA path on real GPU traces (A100, H100, B200, MI300X), replayed as torch builds its events.

Each trace is read twice: once as torch 2.12+ builds ``FunctionEvent``s (device work linked to its operator's
External id), once as torch 2.11 and older do (no link on the event). The expectation is computed from the
raw JSON, independently of the engine: every kernel, memcpy and memset launched inside a profiled step is
counted exactly once, under the operator its External id names (or, where the trace links it to none, the
operator its runtime call ran inside); syncs, overhead and annotation copies are not counted.
"""

from __future__ import annotations

import collections
import re
from pathlib import Path
from typing import Any

import pytest
from support.cuda_replay import ReplayedProfiler, steps_of, trace_events, trace_paths
from support.cuda_replay import replay as replay_trace
from support.locations import DATA

from kernel_tui.engine.counting import events as ev
from kernel_tui.engine.counting import profiling
from kernel_tui.engine.counting.profiling import join_eager
from kernel_tui.engine.counting.traffic import Traffic

TRACE_NAMES = [path.name for path in trace_paths()]


def expected_launches(path: Path) -> dict[tuple[str, float], dict[str, Any]]:
    """(name, start) of each device activity launched in a step, with the operator that launched it."""
    raw = trace_events(path)
    origin = min(e["ts"] for e in raw)
    step = re.compile(steps_of(path))
    steps = [
        (e["ts"], e["ts"] + e["dur"], e["tid"])
        for e in raw
        if e["cat"] in ("user_annotation", "cpu_op") and step.search(e["name"])
    ]
    operators = {e["args"]["External id"]: e for e in raw if e["cat"] in ("cpu_op", "user_annotation")}
    runtime = {e["args"]["correlation"]: e for e in raw if e["cat"] in ("cuda_runtime", "cuda_driver")}
    cpu = [e for e in raw if e["cat"] in ("cpu_op", "user_annotation")]
    expected = {}
    for event in raw:
        if event["cat"] not in ("kernel", "gpu_memcpy", "gpu_memset"):
            continue
        args = event["args"]
        launcher = operators.get(args.get("External id", 0) or -1)
        if launcher is None:
            call = runtime.get(args.get("correlation"))
            if call is None:
                continue
            enclosing = [
                e
                for e in cpu
                if e["tid"] == call["tid"]
                and e["ts"] <= call["ts"]
                and call["ts"] + call["dur"] <= e["ts"] + e["dur"]
                and not step.search(e["name"])
            ]
            launcher = max(enclosing, key=lambda e: e["ts"], default=call)
        inside = any(start <= launcher["ts"] <= end and tid == launcher["tid"] for start, end, tid in steps)
        if inside:
            expected[(event["name"], round(event["ts"] - origin, 3))] = launcher
    return expected


@pytest.fixture(scope="module", params=TRACE_NAMES)
def trace(request: pytest.FixtureRequest) -> Path:
    name: str = request.param
    return DATA / "cuda_traces" / name


@pytest.mark.parametrize("legacy", [False, True], ids=["torch>=2.12", "torch<2.12"])
def test_every_device_activity_in_a_step_is_counted_once_under_its_operator(trace: Path, legacy: bool) -> None:
    events = replay_trace(trace, legacy=legacy)
    launches = ev.cuda_launches(events)
    expected = expected_launches(trace)
    assert expected, f"{trace.name}: no device work found in its steps"
    origin = min(e["ts"] for e in trace_events(trace))
    seen = collections.Counter((launch.name, round(launch.start_us, 3)) for launch in launches)
    assert seen == collections.Counter(expected.keys())
    for launch in launches:
        launcher = expected[(launch.name, round(launch.start_us, 3))]
        if launch.op_event is None:
            assert launcher["cat"] in ("cuda_runtime", "cuda_driver"), launch.name  # launched outside any op
            continue
        below = {(node.name, round(node.time_range.start, 3)) for node in ev.subtree(launch.op_event)}
        named = (launcher["name"], round(launcher["ts"] - origin, 3))
        assert named in below, (launch.name, launch.op, launcher["name"])


def test_syncs_overhead_and_annotation_copies_are_never_counted(trace: Path) -> None:
    for legacy in (False, True):
        names = {launch.name for launch in ev.cuda_launches(replay_trace(trace, legacy=legacy))}
        assert not names & ev.SYNC_NAMES
        assert ev.RUN_RANGE not in names
        assert not any(name.startswith(("## ", "Activity Buffer", "Lazy Function")) for name in names)


def test_b200_kernels_land_under_their_operators_not_under_runtime_calls() -> None:
    path = DATA / "cuda_traces" / "tracelens_b200_vllm_compiled.json.gz"
    launches = ev.cuda_launches(replay_trace(path))
    ops = {launch.op for launch in launches}
    assert not {op for op in ops if op and ev.RUNTIME_CALL.match(op)}
    gathers = [launch for launch in launches if "vectorized_gather_kernel" in launch.name]
    assert gathers and all(launch.op and launch.op.startswith("aten::") for launch in gathers)
    nvjet = [launch for launch in launches if launch.name.startswith("nvjet_")]
    assert nvjet and all(launch.op and "::" in launch.op for launch in nvjet)


def test_an_operators_bytes_go_to_its_kernel_not_to_a_memset_before_it(trace: Path) -> None:
    """An operator's dispatched bytes land on one launch: its first kernel where it launched one."""
    launches = ev.cuda_launches(replay_trace(trace))
    ops = {id(launch.op_event): launch.op_event for launch in launches if launch.op_event is not None}
    traffic = [Traffic(op.name, 100, 50) for op in sorted(ops.values(), key=lambda op: op.time_range.start)]
    joined = join_eager(launches, traffic)
    holders: dict[int, list[ev.Launch]] = collections.defaultdict(list)
    for launch, record in zip(launches, joined):
        if record is not None and record.bytes_read == 100:
            holders[id(launch.op_event)].append(launch)
    assert holders
    for op_id, (holder,) in holders.items():
        kinds = {launch.kind for launch in launches if id(launch.op_event) == op_id}
        assert holder.kind == "kernel" or "kernel" not in kinds


def test_memcpy_bytes_come_from_the_trace() -> None:
    path = DATA / "cuda_traces" / "hta_alexnet_a100.json.gz"
    copies = [launch for launch in ev.cuda_launches(replay_trace(path)) if launch.kind in ("memcpy", "memset")]
    assert copies and all(launch.device_bytes and launch.device_bytes > 0 for launch in copies)
    # torch's default form carries no metadata: there the bytes are unknown, never a wrong number.
    bare = [launch for launch in ev.cuda_launches(replay_trace(path, metadata=False)) if launch.kind != "kernel"]
    assert bare and all(launch.device_bytes is None for launch in bare)


@pytest.mark.parametrize(
    ("legacy", "typed"),
    [(False, False), (True, False), (False, True)],
    ids=["torch2.12-2.14", "torch<2.12", "torch2.15"],
)
def test_the_engines_profiler_asks_for_the_metadata_that_carries_memcpy_bytes(
    monkeypatch: pytest.MonkeyPatch, legacy: bool, typed: bool
) -> None:
    """The engine's own profiling code on an A100 trace, the events in the form its profiler options ask for:
    without ``expose_kineto_event_metadata`` a real GPU's memcpys and memsets have no bytes."""
    path = DATA / "cuda_traces" / "hta_alexnet_a100.json.gz"
    monkeypatch.setattr(profiling, "profile", ReplayedProfiler(path, legacy=legacy, typed=typed))
    monkeypatch.setattr(profiling, "l2_flush", lambda device: lambda: None)
    monkeypatch.setattr(profiling, "synchronize", lambda device: None)
    profiled = profiling.profile_launches(lambda: None, "cuda", runs=2)
    copies = [launch for launch in profiled.reference if launch.kind in ("memcpy", "memset")]
    assert copies and all(launch.device_bytes and launch.device_bytes > 0 for launch in copies)


def test_a_step_nested_in_itself_does_not_make_the_empty_run_the_reference() -> None:
    """HTA's traces nest each profiled step in a range of the same name: the outer reads 0 launches. The runs
    tie (one each), and the reference must be the run that lost nothing."""
    for name in ("hta_alexnet_a100.json.gz", "hta_simple_add.json.gz"):
        events = replay_trace(DATA / "cuda_traces" / name)
        per_run = ev.launches_per_run(ev.cuda_launches(events), len(ev.number_runs(events)))
        assert sorted(len(run) for run in per_run)[0] == 0, name  # the trace still has the empty outer run
        profile = profiling.Profile(per_run)
        assert len(profile.reference) == max(len(run) for run in per_run) > 0
        assert len(profile.agreeing) == 1 and profile.agreeing[0] is profile.reference


def test_the_common_count_prefers_the_run_that_lost_nothing_only_on_a_tie() -> None:
    assert profiling.common_count([0, 40]) == 40
    assert profiling.common_count([40, 0]) == 40
    assert profiling.common_count([38, 40, 40]) == 40
    assert profiling.common_count([41, 40, 40]) == 40  # a majority still decides
