"""The CUDA event classification, on profiler events built the way torch.profiler builds them.

No GPU here: the events are real ``FunctionEvent`` objects laid out on a timeline like a CUDA trace
(op ranges on the CPU, ``cudaLaunchKernel`` runtime calls, device-side kernels linked by correlation id,
and the device-side copies of annotations that must not count), and ``EventList`` builds the tree.
"""

from __future__ import annotations

import itertools

import pytest
from torch.autograd import DeviceType
from torch.autograd.profiler_util import EventList, FunctionEvent

from kernel_tui.engine.counting import events as ev
from kernel_tui.engine.counting.profiling import NoDeviceActivity, Profile, join_eager, kernel_rows
from kernel_tui.engine.counting.traffic import Traffic

ADD = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)"  # noqa: E501
RELU = "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul>)"  # noqa: E501


class Trace:
    """Builds a CUDA-like event list shaped as torch builds it from Kineto.

    Two counters, as on a real GPU: operators and annotations take External ids, runtime calls and device
    activities take CUPTI correlation ids; device work links to its operator's External id
    (``linked_correlation_id``) and shares its correlation id with the runtime call that launched it.
    ``legacy`` builds what torch 2.11 and older give: no ``linked_correlation_id``/``activity_type``."""

    def __init__(self, activity_types: bool = True, legacy: bool = False) -> None:
        self.events: list[FunctionEvent] = []
        self._external_ids = itertools.count(1)
        self._correlation_ids = itertools.count(1)
        self.activity_types = activity_types and not legacy
        self.legacy = legacy

    def _add(self, event: FunctionEvent) -> FunctionEvent:
        self.events.append(event)
        return event

    def cpu(self, name: str, start: float, end: float) -> FunctionEvent:
        activity = "user_annotation" if name == ev.RUN_RANGE or name.startswith("## ") else "cpu_op"
        return self._add(
            FunctionEvent(
                id=next(self._external_ids),
                name=name,
                thread=1,
                start_us=start,
                end_us=end,
                is_user_annotation=activity == "user_annotation",
                activity_type=activity if self.activity_types else None,
            )
        )

    def runtime(self, name: str, start: float, end: float, op: FunctionEvent | None) -> FunctionEvent:
        """A runtime call; ``op`` None is a call made outside any operator (``torch.cuda.synchronize()``)."""
        return self._add(
            FunctionEvent(
                id=next(self._correlation_ids),
                name=name,
                thread=1,
                start_us=start,
                end_us=end,
                linked_correlation_id=op.id if op is not None else 0,
                activity_type="cuda_runtime" if self.activity_types else None,
            )
        )

    def device(
        self,
        name: str,
        launcher: FunctionEvent,
        start: float,
        end: float,
        activity: str,
        correlation: int | None = None,
        metadata: str | None = None,
    ) -> FunctionEvent:
        return self._add(
            FunctionEvent(
                id=correlation if correlation is not None else next(self._correlation_ids),
                name=name,
                thread=7,
                start_us=start,
                end_us=end,
                device_type=DeviceType.CUDA,
                linked_correlation_id=launcher.id,
                is_user_annotation=activity == "gpu_user_annotation",
                activity_type=activity if self.activity_types else None,
                metadata_json=metadata,
            )
        )

    def launch(
        self,
        op: FunctionEvent,
        kernel: str,
        at: float,
        duration: float,
        activity: str = "kernel",
        metadata: str | None = None,
    ) -> None:
        runtime = self.runtime("cudaLaunchKernel", at, at + 1, op)
        self.device(kernel, op, at + 5, at + 5 + duration, activity, correlation=runtime.id, metadata=metadata)

    def built(self) -> list[FunctionEvent]:
        if self.legacy:
            for event in self.events:
                for attribute in ("linked_correlation_id", "activity_type", "external_id"):
                    vars(event).pop(attribute, None)
        events = EventList(self.events)
        events._build_tree()
        return list(events)


def eager_add_relu(trace: Trace, start: float) -> None:
    run = trace.cpu(ev.RUN_RANGE, start, start + 100)
    trace.device(ev.RUN_RANGE, run, start, start + 100, "gpu_user_annotation")
    add = trace.cpu("aten::add", start + 10, start + 30)
    trace.launch(add, ADD, start + 20, 12.0)
    trace.cpu("aten::relu", start + 40, start + 70)
    clamp = trace.cpu("aten::clamp_min", start + 45, start + 65)
    trace.launch(clamp, RELU, start + 50, 9.0)


def test_eager_kernels_are_device_events_linked_to_their_top_level_op() -> None:
    trace = Trace()
    eager_add_relu(trace, 0)
    launches = ev.cuda_launches(trace.built())
    assert [(launch.name, launch.kind, launch.op, launch.time_us) for launch in launches] == [
        (ADD, "kernel", "aten::add", 12.0),
        (RELU, "kernel", "aten::relu", 9.0),
    ]


def test_annotation_copies_and_work_outside_a_run_do_not_count() -> None:
    trace = Trace()
    warm_up = trace.cpu("aten::add", 0, 5)
    trace.launch(warm_up, ADD, 1, 3.0)
    eager_add_relu(trace, 100)
    names = [launch.name for launch in ev.cuda_launches(trace.built())]
    assert names == [ADD, RELU]
    assert ev.RUN_RANGE not in names


def test_compiled_triton_kernel_is_linked_through_the_graph_annotation() -> None:
    trace = Trace()
    run = trace.cpu(ev.RUN_RANGE, 0, 100)
    trace.device(ev.RUN_RANGE, run, 0, 100, "gpu_user_annotation")
    region = trace.cpu("Torch-Compiled Region: 0/0", 5, 95)
    graph = trace.cpu("## Call CompiledFxGraph fabc123 ##", 10, 90)
    trace.device("## Call CompiledFxGraph fabc123 ##", graph, 10, 90, "gpu_user_annotation")
    assert region is not None
    launch = trace.cpu("triton_poi_fused_add_relu_0", 20, 40)
    trace.launch(launch, "triton_poi_fused_add_relu_0", 25, 14.0)
    (only,) = ev.cuda_launches(trace.built())
    assert (only.name, only.kind, only.op, only.time_us) == (
        "triton_poi_fused_add_relu_0",
        "kernel",
        "triton_poi_fused_add_relu_0",
        14.0,
    )


def test_memcpy_and_memset_are_listed_as_such() -> None:
    trace = Trace()
    trace.cpu(ev.RUN_RANGE, 0, 200)
    to_cpu = trace.cpu("aten::to", 10, 100)
    trace.cpu("aten::_to_copy", 12, 98)
    copy = trace.cpu("aten::copy_", 20, 95)
    trace.launch(copy, "Memcpy DtoH (Device -> Pageable)", 30, 40.0, activity="gpu_memcpy")
    zeros = trace.cpu("aten::zeros", 110, 150)
    fill = trace.cpu("aten::fill_", 115, 145)
    trace.launch(fill, "Memset (Device)", 120, 2.0, activity="gpu_memset")
    launches = ev.cuda_launches(trace.built())
    assert [(launch.kind, launch.op) for launch in launches] == [("memcpy", "aten::to"), ("memset", "aten::zeros")]
    assert to_cpu is not None and zeros is not None


def test_older_torch_without_activity_types_is_classified_by_name() -> None:
    trace = Trace(activity_types=False)
    run = trace.cpu(ev.RUN_RANGE, 0, 200)
    trace.device(ev.RUN_RANGE, run, 0, 200, "")
    copy = trace.cpu("aten::copy_", 10, 50)
    trace.launch(copy, "Memcpy HtoD (Pageable -> Device)", 15, 20.0)
    add = trace.cpu("aten::add", 60, 90)
    trace.launch(add, ADD, 65, 5.0)
    launches = ev.cuda_launches(trace.built())
    assert [launch.kind for launch in launches] == ["memcpy", "kernel"]


def test_kernel_rows_count_calls_and_time_per_run() -> None:
    trace = Trace()
    eager_add_relu(trace, 0)
    eager_add_relu(trace, 1000)
    launches = ev.cuda_launches(trace.built())
    rows = kernel_rows(ev.launches_per_run(launches, 2), [None, None])
    assert [(row.short_name, row.calls, row.time_us, row.op) for row in rows] == [
        ("vectorized_elementwise_kernel<add>", 1, 12.0, "aten::add"),
        ("vectorized_elementwise_kernel<clamp_scalar>", 1, 9.0, "aten::relu"),
    ]


def profiled_add_relu(trace: Trace, runs: int) -> None:
    """What the engine records on a GPU: a synchronize outside any operator before each run (CUPTI ids that
    then equal later operators' External ids), runs of add+relu, and CUPTI's own start-up calls."""
    trace.runtime("cuLaunchKernelEx", 0, 1, None)
    for run in range(runs):
        start = 1000 * (run + 1)
        trace.runtime("cudaDeviceSynchronize", start - 50, start - 40, None)
        eager_add_relu(trace, start)


def test_unlinked_runtime_calls_sharing_an_operators_id_take_no_kernels() -> None:
    trace = Trace()
    profiled_add_relu(trace, 5)
    built = trace.built()
    operator_ids = {e.id for e in built if e.activity_type == "cpu_op"}
    unlinked_ids = {e.id for e in built if e.activity_type == "cuda_runtime" and not e.linked_correlation_id}
    assert operator_ids & unlinked_ids, "the two counters must collide, as on a real GPU"
    per_run = ev.launches_per_run(ev.cuda_launches(built), 5)
    assert [[launch.op for launch in run] for run in per_run] == [["aten::add", "aten::relu"]] * 5


def test_torch_before_2_12_links_device_work_through_the_runtime_call() -> None:
    trace = Trace(legacy=True)
    profiled_add_relu(trace, 5)
    built = trace.built()
    assert not hasattr(built[0], "linked_correlation_id")
    per_run = ev.launches_per_run(ev.cuda_launches(built), 5)
    assert [[(launch.name, launch.op) for launch in run] for run in per_run] == [
        [(ADD, "aten::add"), (RELU, "aten::relu")]
    ] * 5


def test_syncs_and_profiler_overhead_are_not_device_work() -> None:
    for activity_types in (True, False):
        trace = Trace(activity_types=activity_types)
        run = trace.cpu(ev.RUN_RANGE, 0, 200)
        trace.device(ev.RUN_RANGE, run, 0, 200, "gpu_user_annotation")
        item = trace.cpu("aten::item", 10, 100)
        trace.launch(item, "Memcpy DtoH (Device -> Pageable)", 20, 3.0, activity="gpu_memcpy")
        sync = trace.runtime("cudaStreamSynchronize", 30, 90, item)
        trace.device("Stream Sync", item, 35, 85, "cuda_sync", correlation=sync.id)
        trace.device("Context Sync", item, 86, 88, "cuda_sync")
        overhead = trace.runtime("Activity Buffer Request", 50, 60, None)
        overhead.activity_type = "overhead" if activity_types else None
        assert [launch.kind for launch in ev.cuda_launches(trace.built())] == ["memcpy"]


def test_memset_and_memcpy_carry_the_bytes_the_profiler_recorded() -> None:
    trace = Trace()
    trace.cpu(ev.RUN_RANGE, 0, 200)
    linear = trace.cpu("aten::linear", 10, 100)
    trace.launch(
        linear,
        "Memset (Device)",
        20,
        1.0,
        activity="gpu_memset",
        metadata='"device": 0, "stream": 7, "correlation": 9, "bytes": 20736',
    )
    trace.launch(linear, "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32", 40, 8.0)
    memset, gemm = ev.cuda_launches(trace.built())
    assert (memset.kind, memset.device_bytes) == ("memset", 20736)
    assert (gemm.kind, gemm.device_bytes) == ("kernel", None)


def test_a_memset_before_a_gemm_gets_its_own_bytes_and_the_gemm_the_operators() -> None:
    trace = Trace()
    trace.cpu(ev.RUN_RANGE, 0, 200)
    linear = trace.cpu("aten::linear", 10, 100)
    trace.cpu("aten::addmm", 12, 98)
    trace.launch(linear, "Memset (Device)", 20, 1.0, activity="gpu_memset", metadata='"bytes": 4096')
    trace.launch(linear, "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32", 40, 8.0)
    launches = ev.cuda_launches(trace.built())
    memset, gemm = join_eager(launches, [Traffic("aten::addmm", 3_000_000, 1_000_000)])
    assert memset is not None
    assert (memset.bytes_read, memset.bytes_written) == (0, 4096)
    assert gemm is not None
    assert (gemm.bytes_read, gemm.bytes_written) == (3_000_000, 1_000_000)


def test_a_run_that_lost_records_neither_sets_the_counts_nor_the_bytes() -> None:
    """CUDA 13.0's CUPTI can drop a session's first device records: a run with fewer launches is reported,
    and counts and bytes come from the runs that agree."""
    trace = Trace()
    for run in range(5):
        eager_add_relu(trace, 1000 * run)
    per_run = ev.launches_per_run(ev.cuda_launches(trace.built()), 5)
    per_run[2] = per_run[2][:1]  # the ReLU's record lost in the third run
    profiled = Profile(per_run)
    assert len(profiled.reference) == 2 and len(profiled.agreeing) == 4
    assert profiled.note == "profiled runs disagree: 2 launches in most, run 3: 1"
    rows = kernel_rows(profiled.agreeing, [Traffic("aten::add", 8, 4), Traffic("aten::relu", 4, 4)], profiled.reference)
    assert [(row.calls, row.bytes_total) for row in rows] == [(1, 12), (1, 8)]
    assert Profile([per_run[0]] * 5).note is None


def test_a_cuda_profile_without_launches_for_work_that_was_dispatched_is_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from kernel_tui.engine.stages import measure

    monkeypatch.setattr(measure, "profile_launches", lambda call, device, trace_path=None: Profile([[]] * 5))
    with pytest.raises(NoDeviceActivity):
        measure._mode_result(lambda: None, "cuda", 4, join_eager, [Traffic("aten::add", 8, 4)])
    views_only = measure._mode_result(lambda: None, "cuda", 4, join_eager, [])
    assert views_only.kernel_count == 0 and views_only.bytes_total == 0
