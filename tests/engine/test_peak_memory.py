"""Peak memory, eager against compiled, on real torch and on functions the course does not contain.

The allocator's count on the CPU (``peak_memory.measured_peak``), the live storages of fake tensors and
Inductor's buffer plan read from its wrappers (the preview's two estimates) must agree with each other and with
what the code does: a chain of pointwise operators holds at least two arrays at its peak eager and one, its
output, compiled. Tolerances are the claims' (``expect.TOLERANCE``): the allocator also counts the few bytes of
a Python number made a tensor.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import torch
from conftest import WriteScenario, lesson_report, measure
from torch._subclasses.fake_tensor import FakeTensorMode

from kernel_tui.engine.compiler.buffer_plan import combined_plan, wrapper_plan
from kernel_tui.engine.compiler.recompute import partitioned_recompute
from kernel_tui.engine.counting.peak_memory import measured_peak, running_peak, tracked_peak
from kernel_tui.engine.stages.memory_report import called_wrapper_sources
from kernel_tui.engine.stages.training import default_loss
from kernel_tui.model.report.mode_result import ModeResult
from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.scenario.course import course_dir
from kernel_tui.model.scenario.expect import TOLERANCE
from kernel_tui.text.baseline import compare
from kernel_tui.text.markdown_report import scenario_markdown
from kernel_tui.text.parts.memory_text import memory_line
from kernel_tui.transport.client import EngineClient

TOL = TOLERANCE["eager_peak"]
SIZE = 2**16
ARRAY = SIZE * 4


def reassigned_chain(x: torch.Tensor) -> torch.Tensor:
    """Six steps, one name: Python drops each result as soon as the next one is assigned."""
    y = x.tanh()
    y = y * 3
    y = y.sigmoid()
    y = y.neg()
    y = y - 0.5
    return y.reciprocal()


def named_chain(x: torch.Tensor) -> torch.Tensor:
    """Four steps, four names: every result lives until the function returns."""
    first = x.sigmoid()
    second = first.tanh()
    third = second.neg()
    return third.exp()


def arrays(peak_bytes: int) -> float:
    return peak_bytes / ARRAY


@pytest.fixture(scope="module")
def x() -> torch.Tensor:
    return torch.randn(SIZE)


@pytest.fixture(scope="module")
def compiled() -> dict[str, Callable[..., torch.Tensor]]:
    functions = {"reassigned": torch.compile(reassigned_chain), "named": torch.compile(named_chain)}
    with torch.no_grad():
        for function in functions.values():
            function(torch.randn(SIZE))
    return functions


@pytest.mark.parametrize(("fn", "eager_arrays"), [(reassigned_chain, 2), (named_chain, 4)])
def test_a_pointwise_chain_peaks_at_two_arrays_or_more_eager_and_one_compiled(
    x: torch.Tensor,
    compiled: dict[str, Callable[..., torch.Tensor]],
    fn: Callable[..., torch.Tensor],
    eager_arrays: int,
) -> None:
    eager = measured_peak(lambda: fn(x), "cpu")
    assert eager.source.startswith("CPU allocator")
    assert arrays(eager.bytes) == pytest.approx(eager_arrays, abs=TOL)
    assert arrays(eager.bytes) >= 2 - TOL
    name = "reassigned" if fn is reassigned_chain else "named"
    compiled_peak = measured_peak(lambda: compiled[name](x), "cpu")
    assert arrays(compiled_peak.bytes) == pytest.approx(1, abs=TOL), "compiled allocates its output alone"


@pytest.mark.parametrize("fn", [reassigned_chain, named_chain])
def test_the_live_storages_of_fake_tensors_agree_with_the_allocator(x: torch.Tensor, fn: Callable[..., Any]) -> None:
    measured = measured_peak(lambda: fn(x), "cpu")
    fake_mode = FakeTensorMode()
    with fake_mode:
        fake_x = torch.empty(SIZE)
        estimated = tracked_peak(lambda: fn(fake_x), "fake")
    assert arrays(estimated.bytes) == pytest.approx(arrays(measured.bytes), abs=TOL)
    assert estimated.allocations == (6 if fn is reassigned_chain else 4), "one result per operator"


@pytest.mark.parametrize("name", ["reassigned", "named"])
def test_inductors_plan_agrees_with_the_allocator_on_the_cpu(
    x: torch.Tensor, compiled: dict[str, Callable[..., torch.Tensor]], name: str
) -> None:
    sources = called_wrapper_sources(compiled[name], (x,))
    assert len(sources) == 1, "one graph, one wrapper, whatever else this process compiled"
    plan = combined_plan(sources)
    assert plan is not None and plan.peak_bytes == measured_peak(lambda: compiled[name](x), "cpu").bytes
    assert (plan.allocated, plan.reused, plan.freed_early) == (1, 0, 0)


@pytest.mark.engine  # compiles in the test process
def test_the_plan_follows_reuse_and_early_frees_of_a_live_compile() -> None:
    def matmuls(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        return torch.mm(torch.mm(a, b).relu(), c).sigmoid()

    args = tuple(torch.randn(256, 256) for _ in range(3))
    function = torch.compile(matmuls)
    sources = called_wrapper_sources(function, args)
    plan = wrapper_plan(sources[0])
    # Each library matmul writes a buffer the pointwise kernel after it updates in place (``# reuse``), and the
    # first is freed once the second matmul has read it.
    assert (plan.allocated, plan.reused, plan.freed_early) == (2, 2, 1)
    assert plan.peak_bytes == 2 * 256 * 256 * 4 == measured_peak(lambda: function(*args), "cpu").bytes


@pytest.mark.engine  # compiles in the test process
def test_across_a_graph_break_the_plan_holds_what_the_first_graph_returned(x: torch.Tensor) -> None:
    def broken(x: torch.Tensor) -> torch.Tensor:
        y = (x * 2).sin()
        torch._dynamo.graph_break()
        return (y + 1).cos()

    function = torch.compile(broken)
    sources = called_wrapper_sources(function, (x,))
    assert len(sources) == 2, "one wrapper per graph"
    plan = combined_plan(sources)
    measured = measured_peak(lambda: function(x), "cpu").bytes
    assert plan is not None and plan.peak_bytes == measured
    assert arrays(measured) == pytest.approx(2, abs=TOL), "y stays alive while the second graph writes the result"


def test_a_symbolic_shape_or_an_unplanned_buffer_leaves_the_peak_unknown() -> None:
    call = "def call(self, args):\n"
    symbolic = call + "    buf0 = empty_strided_cpu((s0, ), (1, ), torch.float32)\n    return (buf0, )\n"
    fallback = call + "    buf0 = torch.ops.aten.sort.stable(arg0_1)\n    del buf0\n    return ()\n"
    assert wrapper_plan(symbolic).peak_bytes is None and wrapper_plan(symbolic).allocated == 1
    assert wrapper_plan(fallback).peak_bytes is None and wrapper_plan(fallback).freed_early == 1
    assert wrapper_plan("no wrapper here").allocated == 0
    assert running_peak([8, -8, 100, -50, 20, -70]) == 100
    assert running_peak([-100, 10]) == 0, "above what the call started with: older memory freed lowers the level"
    assert running_peak([-100]) == 0, "never negative"


SECTION_PEAKS = f"""
import json, torch
from kernel_tui.engine.counting.peak_memory import measured_peak
from kernel_tui.engine.stages.training import TrainingStep, default_loss

def forward(a, b):
    return default_loss((a * b).tanh())

a, b = torch.randn({SIZE}, requires_grad=True), torch.randn({SIZE}, requires_grad=True)
peaks = {{}}
for name, step in (("eager", TrainingStep(forward)), ("compiled", TrainingStep(torch.compile(forward)))):
    step(a, b)
    peak = measured_peak(lambda: step(a, b), "cpu")  # measured before the next step is made
    peaks[name] = [peak.forward, peak.backward, peak.bytes]
print(json.dumps(peaks))
"""


@pytest.mark.engine  # compiles, in an interpreter of its own
def test_each_section_of_a_training_step_has_a_peak() -> None:
    # In a fresh interpreter, as in an engine: in an xdist worker after other in-process compiles, the compiled
    # backward once wrote one gradient's array fewer (a fresh clone's suite; alone it never did).
    done = subprocess.run([sys.executable, "-c", SECTION_PEAKS], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    peaks = json.loads(done.stdout.splitlines()[-1])
    for forward, backward, peak in peaks.values():
        assert forward is not None and backward is not None
        assert arrays(backward) >= 2 - TOL, "backward writes both gradients"
        assert peak == max(forward, backward)
    # Eager keeps tanh's result for its backward; the partitioner recomputes it from the inputs instead.
    assert arrays(peaks["eager"][0]) >= 1 - TOL
    assert arrays(peaks["compiled"][0]) < TOL


def test_the_partitioner_says_what_it_recomputes_and_what_it_does_not() -> None:
    def tanh_step(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return default_loss((a * b).tanh())

    def layer_norm_step(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return default_loss(torch.nn.functional.layer_norm(x, (x.shape[-1],), weight, bias))

    pair = (torch.randn(SIZE, requires_grad=True), torch.randn(SIZE, requires_grad=True))
    # One multiply and one tanh per element, done again in backward.
    assert partitioned_recompute(tanh_step, pair) == (
        ("aten::mul", "aten::tanh"),
        (("aten::mul", SIZE), ("aten::tanh", SIZE)),
    )
    rows = (torch.randn(64, 1024, requires_grad=True), torch.randn(1024, requires_grad=True), torch.randn(1024))
    # Layer norm saves each row's mean and spread: its backward's arithmetic is its own, nothing recomputed.
    assert partitioned_recompute(layer_norm_step, rows) == ((), ())

    def data_dependent(x: torch.Tensor) -> torch.Tensor:
        return default_loss(x[x > 0])

    assert partitioned_recompute(data_dependent, (torch.randn(SIZE, requires_grad=True),)) == ((), ())


TANH_STEP = '''"""A product through tanh, trained"""
import torch

TRAIN = True
SIZE = 2**16


def fn(a, b):
    return (a * b).tanh()


def inputs(size, device):
    return torch.randn(size, device=device), torch.randn(size, device=device)
'''


def test_a_step_names_what_its_compiled_backward_recomputes(
    engine: EngineClient, write_scenario: WriteScenario
) -> None:
    report = measure(engine, write_scenario(TANH_STEP))
    assert report.error is None and report.eager is not None and report.compiled is not None
    assert report.compiled.recomputed == ("aten::mul", "aten::tanh"), "the product and its tanh, from the inputs"
    # The backward kernel that recomputes them is given their FLOPs: the step's total is known (issue 56).
    assert report.compiled.recomputed_flops == (("aten::mul", SIZE), ("aten::tanh", SIZE))
    backward = [row for row in report.compiled.kernels if row.section == "backward"]
    assert backward and all(row.flops is not None for row in backward), [(r.name, r.flops) for r in backward]
    assert report.compiled.flops is not None and report.eager.flops is not None
    assert report.compiled.flops >= report.eager.flops, "the same work, and the recomputed work again"
    assert report.compiled.saved_bytes == 0 and report.saved_transfers("eager") == pytest.approx(1, abs=TOL)
    for mode in ("eager", "compiled"):
        assert report.peak_arrays(mode, "forward") is not None and report.peak_arrays(mode, "backward") is not None
    assert "compiled backward recomputes mul, tanh instead of keeping the results" in (memory_line(report) or "")


def test_the_summary_names_both_peaks_and_the_plan() -> None:
    eager = ModeResult(5, (), None, None, peak_bytes=4 * ARRAY, peak_arrays=4.0, buffers_allocated=4)
    planned = ModeResult(
        1,
        (),
        None,
        None,
        peak_bytes=ARRAY,
        peak_arrays=1.0,
        buffers_allocated=1,
        buffers_reused=0,
        buffers_freed_early=0,
    )
    report = ScenarioReport("s.py", "s", "cpu", "cpu", "2.14", SIZE, eager=eager, compiled=planned, array_bytes=ARRAY)
    line = memory_line(report)
    assert line is not None
    assert line.startswith("peak memory 1.0 MiB (4.0×) → 256.0 KiB (1.0×)")
    assert "compiled buffers: 1 allocated, 0 reused, 0 freed early, against eager's 4 results" in line
    assert (
        memory_line(ScenarioReport("s.py", "s", "cpu", "cpu", "2.14", SIZE, eager=ModeResult(1, (), 0, None))) is None
    )
    grown = replace(report, compiled=replace(planned, peak_bytes=6 * ARRAY))
    assert "compiled peaks higher" in (memory_line(grown) or "")
    assert compare(report, grown).growth() == ["compiled peak memory 256.0 KiB → 1.5 MiB"]
    assert compare(grown, report).growth() == []
    assert ScenarioReport.from_dict(report.to_dict()) == report
    assert line in scenario_markdown(report).splitlines(), "the lab report carries the memory line"


POINTWISE_LESSONS = [
    "01_one_add.py",
    "02_add_relu.py",
    "03_elementwise_chain.py",
    "06_broadcasting.py",
    "07_in_place.py",
    "08_dtype_casts.py",
    "15_graph_break.py",
    "29_memory_at_the_peak.py",
]


@pytest.mark.parametrize("name", POINTWISE_LESSONS)
def test_the_preview_estimates_the_cpus_peaks_for_the_pointwise_lessons(
    engine: EngineClient, preview_engine: EngineClient, name: str
) -> None:
    path = Path(course_dir()) / name
    _assert_same_peaks(lesson_report(engine, path), measure(preview_engine, path))


UNSEEN = '''"""Two inputs, a kept intermediate"""
import torch


def fn(x, y):
    t = x.tanh()
    s = (t * y).sigmoid()
    return (s - t).neg()


def inputs(size, device):
    return torch.randn(size, device=device), torch.randn(size, device=device)
'''


def test_the_preview_estimates_the_cpus_peaks_where_the_course_does_not_look(
    engine: EngineClient, preview_engine: EngineClient, write_scenario: WriteScenario
) -> None:
    path = write_scenario(UNSEEN)
    cpu = measure(engine, path)
    _assert_same_peaks(cpu, measure(preview_engine, path))
    # ``t`` and ``s`` keep their arrays, and ``s - t`` is alive while ``neg`` writes the result: four at once.
    assert cpu.peak_arrays("eager") == pytest.approx(4, abs=TOL)
    assert cpu.peak_arrays("compiled") == pytest.approx(1, abs=TOL)


def _assert_same_peaks(cpu: ScenarioReport, preview: ScenarioReport) -> None:
    assert cpu.error is None and preview.error is None
    for mode in ("eager", "compiled"):
        measured, estimated = cpu.peak_arrays(mode), preview.peak_arrays(mode)
        assert measured is not None and estimated is not None, mode
        assert estimated == pytest.approx(measured, abs=TOL), f"{mode}: preview {estimated}, CPU {measured}"
    preview_compiled = preview.compiled
    assert preview_compiled is not None and "estimate" in (preview_compiled.peak_source or "")


def test_the_chart_draws_the_peaks_against_size_and_says_why_when_it_cannot() -> None:
    import plotext

    from kernel_tui.model.report.report import SweepPoint
    from kernel_tui.ui.widgets.charts.chart_modes import ChartData, chart_mode

    memory = chart_mode("memory").drawing()
    points = [SweepPoint(2**n, 1.0, 1.0, eager_peak_bytes=5 * 4 * 2**n, compiled_peak_bytes=4 * 2**n) for n in (12, 10)]
    data = ChartData(points, "", None, None, (None, None))
    assert [label for label, _, _ in memory.legend(data)] == ["eager", "compiled"]
    plotext.clear_figure()
    drawn = memory.draw(plotext, data, plain=True, size=(80, 20))
    assert drawn == {"eager": ([1024, 4096], [20480, 81920]), "compiled": ([1024, 4096], [4096, 16384])}
    in_place = ChartData(
        [SweepPoint(1024, 1.0, 1.0, eager_peak_bytes=0, compiled_peak_bytes=0)], "", None, None, (None, None)
    )
    plotext.clear_figure()
    assert memory.draw(plotext, in_place, plain=True, size=(80, 20)) == {}
    assert memory.legend(in_place) == []
