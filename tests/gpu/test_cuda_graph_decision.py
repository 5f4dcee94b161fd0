"""CUDA graphs (``reduce-overhead``) in the preview: Inductor's capture or skip of each graph, decided while
compiling for the fake GPU, with the skip's reason and the scenario's line that caused it."""

from __future__ import annotations

from conftest import WriteScenario, measure

from kernel_tui.model.report.cuda_graph_decision import skip_reason
from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.transport.client import EngineClient

CPU_TENSOR = """import torch

COMPILE = {compile}


def fn(a, counts):
    total = counts.sum()
    return (a * 2).relu() + total.to(a.device)


def inputs(size, device):
    return torch.randn(size, device=device), torch.arange(4.0)
"""
SUM_LINE = 7
NO_PARTITIONS = '{"options": {"triton.cudagraphs": True, "graph_partition": False}}'


def _previewed(engine: EngineClient, write: WriteScenario, compile_options: str, name: str) -> ScenarioReport:
    report = measure(engine, write(CPU_TENSOR.format(compile=compile_options), name), size=1024)
    assert report.error is None, report.error
    return report


def test_a_cpu_tensor_in_the_graph_names_the_skip_and_its_line(
    preview_engine: EngineClient, write_scenario: WriteScenario
) -> None:
    report = _previewed(preview_engine, write_scenario, NO_PARTITIONS, "cpu_tensor.py")
    assert report.compiled is not None
    (decision,) = report.compiled.cuda_graphs
    assert not decision.captured
    assert decision.reason is not None and decision.reason.startswith("cpu device")
    assert decision.line == SUM_LINE
    assert any("skipped: cpu device" in note and f"line {SUM_LINE}" in note for note in report.assumptions)


def test_reduce_overhead_partitions_the_cpu_work_out_instead(
    preview_engine: EngineClient, write_scenario: WriteScenario
) -> None:
    """torch's default graph partitioning captures the GPU part and runs the CPU operator outside the graph."""
    report = _previewed(preview_engine, write_scenario, '{"mode": "reduce-overhead"}', "partitioned.py")
    assert report.compiled is not None
    (decision,) = report.compiled.cuda_graphs
    assert decision.captured and decision.cpu_work
    assert "captured" in decision.text()


def test_a_compile_without_cuda_graphs_reports_no_decision(
    preview_engine: EngineClient, write_scenario: WriteScenario
) -> None:
    report = _previewed(preview_engine, write_scenario, "{}", "plain.py")
    assert report.compiled is not None and report.compiled.cuda_graphs == ()


def test_the_skip_reason_drops_torchs_doubled_prefix_and_keeps_the_deepest_line_of_the_file() -> None:
    message = (
        "skipping cudagraphs due to skipping cudagraphs due to cpu device (arg0_1). Found from : \n"
        '   File "/work/s.py", line 12, in fn\n     return helper(x)\n'
        '   File "/work/s.py", line 7, in helper\n     total = counts.sum()\n'
        '   File "/torch/x.py", line 99, in inner\n'
    )
    assert skip_reason(message, "/work/s.py") == ("cpu device (arg0_1)", 7)
    assert skip_reason("skipping cudagraphs due to mutated inputs (1 instances)", "/work/s.py") == (
        "mutated inputs (1 instances)",
        None,
    )


def test_on_a_real_gpu_the_watch_only_reads_and_inductors_own_skip_still_counts() -> None:
    """``stand_in=False`` (a measured GPU run): the skip Inductor logs is kept and still reaches torch's own
    logger and counter; leaving the watch puts Inductor's functions back."""
    from torch._dynamo.utils import counters
    from torch._inductor import output_code

    from kernel_tui.engine.compiler.cuda_graph_watch import CudaGraphWatch

    originals = (output_code.cudagraph_post_compile, output_code.log_cudagraph_skip_and_bump_counter)  # type: ignore[attr-defined]
    watch = CudaGraphWatch("/work/s.py")
    before = counters["inductor"]["cudagraph_skips"]
    with watch.watching(stand_in=False):
        output_code.log_cudagraph_skip_and_bump_counter(  # type: ignore[attr-defined]
            "skipping cudagraphs due to mutated inputs (1 instances). Found from : \n"
            ' File "/work/s.py", line 4, in fn\n'
        )
    assert counters["inductor"]["cudagraph_skips"] == before + 1
    assert [decision.text() for decision in watch.decisions] == [
        "graph 0 skipped: mutated inputs (1 instances), line 4"
    ]
    assert (output_code.cudagraph_post_compile, output_code.log_cudagraph_skip_and_bump_counter) == originals  # type: ignore[attr-defined]
