"""The CUDA event classification, on profiler events built the way torch.profiler builds them.

No GPU here: the events are real ``FunctionEvent`` objects laid out on a timeline like a CUDA trace
(op ranges on the CPU, ``cudaLaunchKernel`` runtime calls, device-side kernels linked by correlation id,
and the device-side copies of annotations that must not count), and ``EventList`` builds the tree.
"""

from __future__ import annotations

import itertools

from torch.autograd import DeviceType
from torch.autograd.profiler_util import EventList, FunctionEvent

from kernel_tui.engine import events as ev
from kernel_tui.engine.profiling import kernel_rows

ADD = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)"  # noqa: E501
RELU = "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul>)"  # noqa: E501


class Trace:
    """Builds a CUDA-like event list: CPU ranges nest by time, device work links by correlation id."""

    def __init__(self, activity_types: bool = True) -> None:
        self.events: list[FunctionEvent] = []
        self._ids = itertools.count(1)
        self.activity_types = activity_types

    def cpu(self, name: str, start: float, end: float, linked: int = 0) -> FunctionEvent:
        event = FunctionEvent(
            id=next(self._ids), name=name, thread=1, start_us=start, end_us=end,
            linked_correlation_id=linked, activity_type="cpu_op" if self.activity_types else None,
        )
        self.events.append(event)
        return event

    def device(self, name: str, launcher: FunctionEvent, start: float, end: float, activity: str) -> None:
        self.events.append(
            FunctionEvent(
                id=next(self._ids), name=name, thread=7, start_us=start, end_us=end,
                device_type=DeviceType.CUDA, linked_correlation_id=launcher.id,
                activity_type=activity if self.activity_types else None,
            )
        )

    def launch(self, op: FunctionEvent, kernel: str, at: float, duration: float, activity: str = "kernel") -> None:
        runtime = self.cpu("cudaLaunchKernel", at, at + 1, linked=op.id)
        runtime.activity_type = "cuda_runtime" if self.activity_types else None
        self.device(kernel, op, at + 5, at + 5 + duration, activity)

    def built(self) -> list[FunctionEvent]:
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


def test_eager_kernels_are_device_events_linked_to_their_top_level_op():
    trace = Trace()
    eager_add_relu(trace, 0)
    launches = ev.cuda_launches(trace.built())
    assert [(launch.name, launch.kind, launch.op, launch.time_us) for launch in launches] == [
        (ADD, "kernel", "aten::add", 12.0),
        (RELU, "kernel", "aten::relu", 9.0),
    ]


def test_annotation_copies_and_work_outside_a_run_do_not_count():
    trace = Trace()
    warm_up = trace.cpu("aten::add", 0, 5)
    trace.launch(warm_up, ADD, 1, 3.0)
    eager_add_relu(trace, 100)
    names = [launch.name for launch in ev.cuda_launches(trace.built())]
    assert names == [ADD, RELU]
    assert ev.RUN_RANGE not in names


def test_compiled_triton_kernel_is_linked_through_the_graph_annotation():
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
        "triton_poi_fused_add_relu_0", "kernel", "triton_poi_fused_add_relu_0", 14.0
    )


def test_memcpy_and_memset_are_listed_as_such():
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


def test_older_torch_without_activity_types_is_classified_by_name():
    trace = Trace(activity_types=False)
    run = trace.cpu(ev.RUN_RANGE, 0, 200)
    trace.device(ev.RUN_RANGE, run, 0, 200, "")
    copy = trace.cpu("aten::copy_", 10, 50)
    trace.launch(copy, "Memcpy HtoD (Pageable -> Device)", 15, 20.0)
    add = trace.cpu("aten::add", 60, 90)
    trace.launch(add, ADD, 65, 5.0)
    launches = ev.cuda_launches(trace.built())
    assert [launch.kind for launch in launches] == ["memcpy", "kernel"]


def test_kernel_rows_count_calls_and_time_per_run():
    trace = Trace()
    eager_add_relu(trace, 0)
    eager_add_relu(trace, 1000)
    launches = ev.cuda_launches(trace.built())
    rows = kernel_rows(ev.launches_per_run(launches, 2), [None, None])
    assert [(row.short_name, row.calls, row.time_us, row.op) for row in rows] == [
        ("vectorized_elementwise_kernel<add>", 1, 12.0, "aten::add"),
        ("vectorized_elementwise_kernel<clamp_scalar>", 1, 9.0, "aten::relu"),
    ]
