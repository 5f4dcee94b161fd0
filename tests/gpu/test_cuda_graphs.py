"""``mode="reduce-overhead"``: the kernels' bytes come from a twin without CUDA graphs, plus the input copy."""

from __future__ import annotations

import torch
from torch.autograd import DeviceType
from torch.autograd.profiler_util import EventList, FunctionEvent

from kernel_tui.engine.counting import events as ev
from kernel_tui.engine.counting.cuda_graphs import FOREACH_COPY, graph_input_copies, twin_compile_options
from kernel_tui.engine.counting.profiling import join_compiled
from kernel_tui.engine.counting.traffic import Traffic


def test_cuda_graph_modes_get_a_twin_without_graphs_and_other_modes_none() -> None:
    twin = twin_compile_options({"mode": "reduce-overhead", "dynamic": False})
    assert twin is not None and twin["dynamic"] is False and "mode" not in twin
    assert twin["options"]["triton.cudagraphs"] is False
    autotune = twin_compile_options({"mode": "max-autotune"})
    assert autotune is not None and autotune["options"]["max_autotune"] is True
    assert twin_compile_options({"options": {"triton.cudagraphs": True}}) == {"options": {"triton.cudagraphs": False}}
    assert twin_compile_options({}) is None
    assert twin_compile_options({"mode": "max-autotune-no-cudagraphs"}) is None
    assert twin_compile_options({"dynamic": True}) is None


def test_the_input_copy_reads_and_writes_each_input_once() -> None:
    a, b = torch.ones(1024), torch.ones(1024)
    (copy,) = graph_input_copies((a, b, 3))
    assert (copy.name, copy.bytes_read, copy.bytes_written) == (FOREACH_COPY, 8192, 8192)


def test_a_replay_joins_the_copy_and_each_kernel_to_their_bytes() -> None:
    """The replay as a profile shows it: the input copy under ``_foreach_copy_``, then the graph's kernels,
    all launched by the one ``cudaGraphLaunch`` and carrying its correlation id. A ``record_function`` range
    pushes no External id, so the replay and its kernels link to no operator (linked id 0)."""
    run = FunctionEvent(
        id=1,
        name=ev.RUN_RANGE,
        thread=1,
        start_us=0,
        end_us=100,
        activity_type="user_annotation",
        is_user_annotation=True,
    )
    copy = FunctionEvent(id=2, name=FOREACH_COPY, thread=1, start_us=5, end_us=15, activity_type="cpu_op")
    graph = FunctionEvent(
        id=3,
        name="## Call CompiledFxGraph fabc ##",
        thread=1,
        start_us=20,
        end_us=90,
        activity_type="user_annotation",
        is_user_annotation=True,
    )
    launch_copy = FunctionEvent(
        id=11,
        name="cudaLaunchKernel",
        thread=1,
        start_us=6,
        end_us=7,
        activity_type="cuda_runtime",
        linked_correlation_id=2,
    )
    replay = FunctionEvent(
        id=12,
        name="cudaGraphLaunch",
        thread=1,
        start_us=30,
        end_us=40,
        activity_type="cuda_runtime",
        linked_correlation_id=0,
    )

    def device(name: str, correlation: int, linked: int, start: float) -> FunctionEvent:
        return FunctionEvent(
            id=correlation,
            name=name,
            thread=7,
            start_us=start,
            end_us=start + 2,
            device_type=DeviceType.CUDA,
            activity_type="kernel",
            linked_correlation_id=linked,
        )

    events = EventList(
        [
            run,
            copy,
            graph,
            launch_copy,
            replay,
            device("void at::native::multi_tensor_apply_kernel<...>", 11, 2, 10),
            device("sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32", 12, 0, 45),
            device("triton_poi_fused_add_relu_0", 12, 0, 50),
        ]
    )
    events._build_tree()
    launches = ev.cuda_launches(list(events))
    assert [launch.op for launch in launches] == [FOREACH_COPY, graph.name, graph.name]
    records = [Traffic(FOREACH_COPY, 8, 8), Traffic("aten::mm", 16, 4), Traffic("triton_poi_fused_add_relu_0", 8, 4)]
    joined = join_compiled(launches, records)
    assert [(r.name, r.bytes_read, r.bytes_written) for r in joined if r is not None] == [
        (FOREACH_COPY, 8, 8),
        ("aten::mm", 16, 4),
        ("triton_poi_fused_add_relu_0", 8, 4),
    ]
