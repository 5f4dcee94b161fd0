"""How each kernel was launched: grid, block, warps and threads on a GPU (real traces replayed, and the CUDA
preview), OpenMP threads on a CPU, elements per thread, and the ``launch`` field's JSON round trip.

The engine checks run on functions the course does not contain (a sigmoid of a difference, a sum of
exponentials, a matmul), so a lesson cannot pass by a kernel's coincidence."""

from __future__ import annotations

import gzip
import json
import math
import re
from typing import Any

import pytest
from conftest import WriteScenario, lesson_report, measure
from support.cuda_replay import TRACES, trace_events
from support.cuda_replay import replay as replay_trace
from support.locations import DATA

from kernel_tui.engine.counting import events as ev
from kernel_tui.engine.counting.launch_info import LIBRARY_NOTE, NOT_CUPTI_NOTE, cpu_launch, metadata_launch
from kernel_tui.engine.counting.profiling import kernel_rows
from kernel_tui.model.report.kernel import Kernel
from kernel_tui.model.report.launch import WARP_SIZE, KernelLaunch, launch_cells, launch_text
from kernel_tui.model.report.mode_result import ModeResult
from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.scenario.course import course_dir
from kernel_tui.transport.client import EngineClient
from kernel_tui.transport.protocol import Done, decode, encode

NVIDIA_TRACES = ["hta_simple_add.json.gz", "hta_triton_example_a100.json.gz", "tracelens_h100_bert_small.json.gz"]

# -- the field and its text --------------------------------------------------------------------------------------


def _report(launch: KernelLaunch | None) -> ScenarioReport:
    kernel = Kernel("triton_poi_fused_sigmoid_sub_0", "triton_poi_fused_sigmoid_sub_0", 1, None, launch=launch)
    mode = ModeResult(kernel_count=1, kernels=(kernel,), bytes_total=None, time_us=None)
    return ScenarioReport("s.py", "s", "cuda-preview", "H100", "2.14.1", 2**20, compiled=mode)


def test_launch_round_trips_through_json_and_the_protocol() -> None:
    launch = KernelLaunch(
        grid=(1024, 1, 1),
        block=(128, 1, 1),
        warps=4,
        threads=131072,
        elements=2**20,
        config={"XBLOCK": 1024},
        alternatives=("XBLOCK 512 · 8 warps",),
        note="a GPU times each config",
    )
    report = _report(launch)
    data = json.loads(json.dumps(report.to_dict()))
    row = data["compiled"]["kernels"][0]["launch"]
    assert row["grid"] == [1024, 1, 1] and row["block"] == [128, 1, 1] and row["threads"] == 131072
    assert row["elements_per_thread"] == 8
    read_back = ScenarioReport.from_dict(data)
    assert read_back.compiled is not None
    assert read_back.compiled.kernels[0].launch == launch
    message = decode(encode(Done(run_id=1, report=report)))
    assert isinstance(message, Done) and message.report.compiled is not None
    assert isinstance(message, Done) and message.report.compiled.kernels[0].launch == launch


def test_results_saved_before_launches_still_open() -> None:
    data = json.loads(json.dumps(_report(None).to_dict()))
    assert data["compiled"]["kernels"][0]["launch"] is None
    del data["compiled"]["kernels"][0]["launch"]
    read_back = ScenarioReport.from_dict(data)
    assert read_back.compiled is not None
    assert read_back.compiled.kernels[0].launch is None


def test_the_line_says_what_multiplies_out() -> None:
    gpu = KernelLaunch(grid=(1024, 1, 1), block=(128, 1, 1), warps=4, threads=131072, elements=2**20)
    assert launch_text(gpu) == "grid 1,024 × block 128 = 131,072 threads · 4 warps · 8 elements/thread"
    assert launch_cells(gpu) == ("1,024", "128", "4", "131,072", "8")
    few = KernelLaunch(grid=(1, 1, 1), block=(32, 1, 1), warps=1, threads=32, elements=8)
    assert launch_text(few) == "grid 1 × block 32 = 32 threads · 1 warp · 8 elements on 32 threads"
    cpu = KernelLaunch(threads=2, elements=2**20)
    assert launch_text(cpu) == "2 OpenMP threads · 524,288 elements/thread"
    assert launch_text(KernelLaunch(note=LIBRARY_NOTE)) == LIBRARY_NOTE
    assert launch_cells(cpu) == ("", "", "", "2", "524,288")


# -- a CPU: the generated C++'s parallel region ------------------------------------------------------------------

_CPP = 'extern "C"  void  kernel(const float* in_ptr0, float* out_ptr0)\n{\n%s\n}'


@pytest.mark.parametrize(
    ("body", "threads"),
    [
        ("    #pragma omp parallel num_threads(6)\n    {\n        #pragma omp for\n    }", 6),
        ("    #pragma omp parallel\n    {\n        int tid = omp_get_thread_num();\n    }", 3),
        ("    for(int64_t x0=0; x0<8L; x0+=16L) {}", 1),
    ],
)
def test_cpu_threads_come_from_the_parallel_region(body: str, threads: int) -> None:
    assert cpu_launch(_CPP % body, runtime_threads=3) == KernelLaunch(threads=threads)


def test_triton_code_has_no_cpu_threads() -> None:
    assert cpu_launch("@triton.jit\ndef triton_poi_fused_0(in_ptr0, xnumel, XBLOCK: tl.constexpr): pass", 3) is None


# -- a GPU: the profiler's kernel events, replayed from real traces ----------------------------------------------


def _raw_kernels(name: str) -> dict[tuple[str, float], dict[str, Any]]:
    raw = trace_events(TRACES / name)
    origin = min(e["ts"] for e in raw)
    return {(e["name"], float(e["ts"]) - origin): e["args"] for e in raw if e["cat"] == "kernel"}


@pytest.mark.parametrize("name", NVIDIA_TRACES)
def test_every_kernel_launch_carries_the_traces_grid_block_and_occupancy(name: str) -> None:
    expected = _raw_kernels(name)
    launches = [launch for launch in ev.cuda_launches(replay_trace(TRACES / name)) if launch.kind == "kernel"]
    assert launches, "the trace has kernels inside its steps"
    for launch in launches:
        args = expected[(launch.name, launch.start_us)]
        shape = launch.shape
        assert shape is not None, launch.name
        assert shape.grid is not None and shape.block is not None
        assert list(shape.grid) == args["grid"] and list(shape.block) == args["block"]
        assert shape.threads == math.prod(args["grid"]) * math.prod(args["block"])
        assert shape.warps == -(-math.prod(args["block"]) // WARP_SIZE)
        assert shape.registers_per_thread == args["registers per thread"]
        assert shape.shared_memory == args["shared memory"]
        assert shape.occupancy_pct == args["est. achieved occupancy %"]


def test_memcpys_have_no_launch() -> None:
    copies = [launch for launch in ev.cuda_launches(replay_trace(TRACES / "hta_simple_add.json.gz"))]
    copies = [launch for launch in copies if launch.kind != "kernel"]
    assert copies and all(launch.shape is None for launch in copies)


def test_a_triton_kernels_row_gets_its_launch() -> None:
    events = replay_trace(TRACES / "hta_triton_example_a100.json.gz")
    per_run = ev.launches_per_run(ev.cuda_launches(events), len(ev.number_runs(events)))
    rows = kernel_rows(per_run, [None] * len(per_run[0]), per_run[0])
    (row,) = [row for row in rows if row.name.startswith("triton_")]
    assert row.launch == KernelLaunch(
        grid=(1, 1, 1), block=(128, 1, 1), warps=4, threads=128, registers_per_thread=16, shared_memory=0,
        occupancy_pct=0.0,
    )  # fmt: skip


def test_a_rocm_trace_keeps_grid_and_block_but_derives_nothing() -> None:
    with gzip.open(TRACES / "tracelens_torch_compile_triton_mi300x.json.gz", "rt") as handle:
        kernels = [e for e in json.load(handle)["traceEvents"] if e.get("cat") == "kernel"]
    args = kernels[0]["args"]
    launch = metadata_launch(json.dumps(args)[1:-1])
    assert launch is not None and launch.grid is not None
    assert launch is not None and list(launch.grid) == args["grid"] and launch.threads is None
    assert launch.note == NOT_CUPTI_NOTE


def test_a_kernel_source_the_preview_cannot_read_leaves_its_launch_unknown_with_the_reason() -> None:
    from kernel_tui.engine.counting.launch_info import TritonLaunchPlan

    launch = TritonLaunchPlan("def broken(:\n").launch((), elements=8)
    assert launch.threads is None and launch.elements == 8
    assert launch.note is not None
    assert launch.note.startswith("the preview could not read this kernel's launch config: SyntaxError")


def test_metadata_without_a_grid_is_no_launch() -> None:
    assert metadata_launch('"bytes": 4096, "device": 0') is None
    assert metadata_launch(None) is None


# -- the CUDA preview and a CPU, on functions the course does not contain -------------------------------------------

SIGMOID_OF_DIFFERENCE = '''"""sigmoid of a difference"""
import torch


def fn(a, b):
    return torch.sigmoid(a - b)


def inputs(size, device):
    return torch.randn(size, device=device), torch.randn(size, device=device)
'''

SUM_OF_EXPONENTIALS = '''"""sum of exponentials"""
import torch


def fn(x):
    return x.exp().sum()


def inputs(size, device):
    return (torch.randn(size, device=device),)
'''

MATMUL = '''"""a matmul"""
import torch


def fn(a, b):
    return a @ b


def inputs(size, device):
    return torch.randn(256, 256, device=device), torch.randn(256, 256, device=device)
'''


def _multiplies_out(launch: KernelLaunch | None, elements: int) -> KernelLaunch:
    assert launch is not None and launch.grid is not None and launch.block is not None
    assert launch.warps is not None
    assert launch.block == (WARP_SIZE * launch.warps, 1, 1)
    assert launch.threads == math.prod(launch.grid) * math.prod(launch.block)
    assert launch.elements == elements
    assert launch.elements_per_thread == elements / launch.threads
    return launch


def test_a_fused_pointwise_kernels_launch_in_the_preview(
    preview_engine: EngineClient, write_scenario: WriteScenario
) -> None:
    report = measure(preview_engine, write_scenario(SIGMOID_OF_DIFFERENCE), size=2**20)
    assert report.error is None
    assert report.compiled is not None
    (kernel,) = report.compiled.kernels
    launch = _multiplies_out(kernel.launch, 2**20)
    assert launch.config is not None
    xblock = launch.config["XBLOCK"]
    assert launch.grid == (2**20 // xblock, 1, 1)
    assert (xblock, launch.warps, launch.elements_per_thread) == (1024, 4, 8)
    assert launch.alternatives == ("XBLOCK 512 · 8 warps",), "the other config a GPU times"
    assert any(line.startswith("launches: where Inductor offers several configs") for line in report.assumptions)
    assert report.eager is not None
    assert all(row.launch is not None and row.launch.threads is None for row in report.eager.kernels)


def test_a_full_sums_two_kernels_show_their_launches(
    preview_engine: EngineClient, write_scenario: WriteScenario
) -> None:
    report = measure(preview_engine, write_scenario(SUM_OF_EXPONENTIALS), size=2**20)
    assert report.error is None
    assert report.compiled is not None
    split, final = report.compiled.kernels
    first = _multiplies_out(split.launch, 2**20)
    assert first.grid is not None and first.config is not None
    partials = math.prod(first.grid)
    second = _multiplies_out(final.launch, partials)
    assert re.match(r"triton_red_", split.name) and re.match(r"triton_per_", final.name)
    assert second.grid is not None
    assert first.config["R0_BLOCK"] > 0 and math.prod(second.grid) == 1
    assert first.elements_per_thread is not None
    assert first.elements_per_thread > 1, "each thread of the split loops over several elements"


def test_a_library_call_says_its_launch_cannot_be_known(
    preview_engine: EngineClient, write_scenario: WriteScenario
) -> None:
    report = measure(preview_engine, write_scenario(MATMUL))
    assert report.compiled is not None
    (mm,) = [row for row in report.compiled.kernels if row.name == "extern_kernels.mm"]
    assert mm.launch is not None and mm.launch.threads is None and mm.launch.note == LIBRARY_NOTE


@pytest.mark.parametrize(("size", "parallel"), [(8, False), (2**20, True)])
def test_a_cpu_kernel_shows_its_threads(
    engine: EngineClient, write_scenario: WriteScenario, size: int, parallel: bool
) -> None:
    report = measure(engine, write_scenario(SIGMOID_OF_DIFFERENCE), size=size)
    assert report.error is None
    assert report.compiled is not None
    (kernel,) = report.compiled.kernels
    assert kernel.launch is not None and kernel.launch.grid is None
    assert kernel.launch.threads == (report.threads if parallel else 1)
    assert kernel.launch.elements == size


def test_results_files_of_the_repository_open_without_launches() -> None:
    saved = sorted(DATA.glob("**/*.jsonl"))
    assert saved
    for path in saved:
        for line in path.read_text().splitlines():
            ScenarioReport.from_dict(json.loads(line))


@pytest.mark.xdist_group("25_threads_and_warps")  # beside the lesson's claim test: one measurement
def test_lesson_25s_cpu_kernel_splits_one_loop_and_gives_the_other_to_one_thread(engine: EngineClient) -> None:
    """What lesson 25 says of the C++ beyond its claims: the million-element loop under ``omp for``, the
    8-element loop under ``omp single``, in one parallel region on every thread PyTorch uses."""
    report = lesson_report(engine, course_dir() / "25_threads_and_warps.py")
    assert report.compiled is not None
    (kernel,) = report.compiled.kernels
    assert kernel.launch is not None and kernel.launch.threads == report.threads
    assert report.threads is not None and kernel.code is not None
    if report.threads > 1:
        loops = re.findall(
            r"#pragma omp (for|single)\s*\{?\s*(?:\{\s*)*for\(.*?<static_cast<int64_t>\((\d+)L\)", kernel.code
        )
        assert loops == [("for", str(2**20)), ("single", "8")]
