"""Training steps (``TRAIN = True``): forward, loss and backward measured as one step, split into sections.

The course's lessons 21-23 check the claims end to end (``tests/engine/test_course.py``); here are the parts
underneath: reading ``TRAIN``, the step itself (eager, no compile), which events are backward (CPU, and a
CUDA trace whose backward ran on the autograd engine's own thread), the report's new fields in JSON, the
CLI's text, a scenario with its own loss through a real engine (one compile of two graphs), and the
preview's refusal.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import torch
from conftest import WriteScenario, measure
from rich.console import Console
from torch.autograd.profiler_util import EventList, FunctionEvent

from kernel_tui.engine.counting import events as ev
from kernel_tui.engine.stages.loader import with_grad
from kernel_tui.engine.stages.training import TrainingStep, default_loss, saved_bytes, section_of
from kernel_tui.model.report.kernel import Kernel
from kernel_tui.model.report.mode_result import ModeResult
from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.scenario.scenario_file import ScenarioFileError, parse_scenario
from kernel_tui.text.render import scenario_view
from kernel_tui.transport.client import EngineClient

OWN_LOSS = '''"""A step with its own loss"""
import torch

TRAIN = True
SIZE = 4096


def fn(x, offsets):
    return x.relu() + offsets


def loss(output):
    return (output * output).mean()


def inputs(size, device):
    return torch.randn(size, device=device), torch.arange(size, device=device)
'''


# -- reading the file ------------------------------------------------------------------------------


def test_train_and_loss_are_read_without_running_the_file() -> None:
    info = parse_scenario(OWN_LOSS, Path("own_loss.py"))
    assert info.train and info.has_loss
    source = '"""t"""\ndef fn(x):\n    return x\ndef inputs(size, device):\n    return ()\n'
    plain = parse_scenario(source, Path("p.py"))
    assert not plain.train and not plain.has_loss


def test_train_must_be_a_boolean() -> None:
    with pytest.raises(ScenarioFileError, match="TRAIN must be True or False") as raised:
        parse_scenario('"""t"""\n\nTRAIN = 1\n', Path("t.py"))
    assert raised.value.line == 3


def test_section_claims_are_known_keys() -> None:
    source = '"""t"""\nEXPECT = {"eager_saved": 1, "cpu": {"compiled_backward": 2, "eager_forward": 3}}\n'
    info = parse_scenario(source, Path("t.py"))
    assert info.claims_for("cpu") == {"eager_saved": 1, "compiled_backward": 2, "eager_forward": 3}


# -- the step, eagerly -------------------------------------------------------------------------------------


def _relu_step() -> TrainingStep:
    return TrainingStep(lambda a, b: default_loss((a + b).relu()))


def test_only_floating_inputs_require_grad() -> None:
    x, index = with_grad((torch.randn(4), torch.arange(4)))
    assert x.requires_grad and x.is_leaf
    assert not index.requires_grad


def test_each_step_computes_the_same_gradients_instead_of_accumulating() -> None:
    a, b = with_grad((torch.randn(64), torch.randn(64)))
    step = _relu_step()
    loss, grad_a, grad_b = step(a, b)
    expected = ((a + b) > 0).float()
    assert torch.equal(grad_a, expected) and torch.equal(grad_b, expected)
    assert loss.item() == pytest.approx((a + b).relu().sum().item())
    _, again, _ = step(a, b)
    assert torch.equal(again, expected), "the second step added to the first step's gradient"


def test_a_step_without_a_floating_point_input_says_why_it_cannot_train() -> None:
    step = TrainingStep(lambda index: default_loss(index * 2))
    with pytest.raises(ValueError, match="TRAIN = True, but the loss depends on no floating-point input"):
        step(*with_grad((torch.arange(4),)))


def test_saved_bytes_count_what_forward_keeps_besides_the_inputs() -> None:
    a, b = with_grad((torch.randn(1024), torch.randn(1024)))
    assert saved_bytes(_relu_step(), (a, b)) == 1024 * 4  # the ReLU's result; a and b are not counted
    kept_input = TrainingStep(lambda x, y: default_loss(x * y))  # mul keeps both of its inputs: nothing new
    assert saved_bytes(kept_input, (a, b)) == 0
    assert saved_bytes(lambda x: x, (a,)) is None, "a forward-only fn has no backward to save for"


def test_the_default_loss_adds_no_kernel_of_its_own_beyond_one_sum_per_output() -> None:
    from kernel_tui.engine.counting.traffic import eager_traffic

    ops = [record.name for record in eager_traffic(lambda x, y: default_loss((x, y)), (torch.ones(8), torch.ones(8)))]
    assert ops == ["aten::sum", "aten::sum", "aten::add"]


# -- which events are backward -----------------------------------------------------------------------------


def _event(name: str, start: float, end: float, thread: int = 1) -> FunctionEvent:
    return FunctionEvent(id=int(start * 10), name=name, thread=thread, start_us=start, end_us=end)


def _built(events: list[FunctionEvent]) -> list[FunctionEvent]:
    listed = EventList(events)
    listed._build_tree()
    return list(listed)


def test_cpu_kernels_inside_backward_are_the_backward_section() -> None:
    run = _event(ev.RUN_RANGE, 0, 100)
    add = _event("aten::add", 1, 10)
    backward = _event(ev.BACKWARD_RANGE, 20, 90)
    node = _event(f"{ev.AUTOGRAD_NODE}: ReluBackward0", 21, 40)
    relu_backward = _event("ReluBackward0", 22, 39)
    threshold = _event("aten::threshold_backward", 23, 38)
    accumulate = _event(f"{ev.AUTOGRAD_NODE}: torch::autograd::AccumulateGrad", 41, 60)
    grad = _event("torch::autograd::AccumulateGrad", 42, 59)
    copy = _event("aten::copy_", 43, 58)
    events = _built([run, add, backward, node, relu_backward, threshold, accumulate, grad, copy])
    launches = ev.cpu_launches(events, lambda name: name != "aten::empty")
    assert [(launch.name, section_of(launch)) for launch in launches] == [
        ("aten::add", "forward"),
        ("aten::threshold_backward", "backward"),
        ("aten::copy_", "backward"),
    ]


def test_cuda_backward_on_the_autograd_thread_belongs_to_the_run_it_ran_in() -> None:
    """On CUDA the autograd engine runs backward nodes on a thread of its own: outside every run range by the
    event tree, inside one by time, since ``backward()`` waits for them."""
    from torch.autograd import DeviceType

    run = _event(ev.RUN_RANGE, 0, 100)
    add = _event("aten::add", 1, 10)
    launch_add = FunctionEvent(
        id=1001, name="cudaLaunchKernel", thread=1, start_us=2, end_us=3, activity_type="cuda_runtime"
    )
    backward = _event(ev.BACKWARD_RANGE, 20, 90)
    node = _event(f"{ev.AUTOGRAD_NODE}: ReluBackward0", 30, 50, thread=2)
    threshold = _event("aten::threshold_backward", 31, 49, thread=2)
    launch_threshold = FunctionEvent(
        id=1002, name="cudaLaunchKernel", thread=2, start_us=32, end_us=33, activity_type="cuda_runtime"
    )
    before = _event(f"{ev.AUTOGRAD_NODE}: ReluBackward0", 200, 210, thread=2)  # the run thrown away, say
    late = _event("aten::threshold_backward", 201, 209, thread=2)
    launch_late = FunctionEvent(
        id=1003, name="cudaLaunchKernel", thread=2, start_us=202, end_us=203, activity_type="cuda_runtime"
    )
    kernels = [
        FunctionEvent(
            id=correlation,
            name=name,
            thread=7,
            start_us=start,
            end_us=start + 2,
            device_type=DeviceType.CUDA,
            activity_type="kernel",
        )
        for correlation, name, start in (
            (1001, "add_kernel", 4),
            (1002, "threshold_kernel", 34),
            (1003, "threshold_kernel", 204),
        )
    ]
    events = _built(
        [run, add, launch_add, backward, node, threshold, launch_threshold, before, late, launch_late, *kernels]
    )
    launches = ev.cuda_launches(events)
    assert [(launch.name, launch.run, launch.op, section_of(launch)) for launch in launches] == [
        ("add_kernel", 0, "aten::add", "forward"),
        ("threshold_kernel", 0, "aten::threshold_backward", "backward"),
    ]


# -- the report and its text -------------------------------------------------------------------------------


def _training_report() -> ScenarioReport:
    kernels = (
        Kernel("aten::add", "aten::add", 1, 10.0, 8, 4, kind="op", section="forward"),
        Kernel("aten::threshold_backward", "aten::threshold_backward", 1, 10.0, 8, 4, kind="op", section="backward"),
    )
    eager = ModeResult(
        2,
        kernels,
        24,
        20.0,
        forward_launches=1,
        backward_launches=1,
        forward_bytes=12,
        backward_bytes=12,
        saved_bytes=4096,
    )
    compiled = replace(eager, saved_bytes=1024)
    return ScenarioReport("s.py", "step", "cpu", "cpu", "2.x", 1024, eager=eager, compiled=compiled, array_bytes=4096)


def test_sections_and_saved_bytes_survive_json() -> None:
    report = _training_report()
    back = ScenarioReport.from_dict(report.to_dict())
    assert back == report
    assert back.eager is not None
    assert [kernel.section for kernel in back.eager.kernels] == ["forward", "backward"]
    assert report.eager is not None
    assert back.eager.section("backward") == (report.eager.kernels[1],)
    assert back.saved_transfers("eager") == 1.0 and back.saved_transfers("compiled") == 0.25


def test_json_from_before_training_steps_still_loads() -> None:
    data = _training_report().to_dict()
    for mode in ("eager", "compiled"):
        for key in ("forward_launches", "backward_launches", "forward_bytes", "backward_bytes", "saved_bytes"):
            del data[mode][key]
        for kernel in data[mode]["kernels"]:
            del kernel["section"]
    old = ScenarioReport.from_dict(data)
    assert old.eager is not None and not old.eager.is_training
    assert old.eager.saved_bytes is None and old.eager.kernels[0].section is None
    assert old.saved_transfers("eager") is None


def _text(report: ScenarioReport) -> str:
    console = Console(width=160, record=True)
    console.print(scenario_view(report, 160))
    return console.export_text()


def test_the_cli_heads_each_section_and_sums_them_up() -> None:
    text = _text(_training_report())
    lines = text.splitlines()
    forward_row = next(index for index, line in enumerate(lines) if line.startswith("│forward"))
    backward_row = next(index for index, line in enumerate(lines) if line.startswith("│backward"))
    assert "aten::add" in lines[forward_row + 1] and "threshold_backward" in lines[backward_row + 1]
    assert "forward: launches 1 → 1, bytes 12 B → 12 B" in text
    assert "saved for backward 4.0 KiB (1.0×) → 1.0 KiB (0.25×)" in text


# -- through the engine ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_step_with_its_own_loss_is_measured_in_sections(engine: EngineClient, write_scenario: WriteScenario) -> None:
    # A variant of a training step compiles the step too: sections and saved bytes of its own.
    report = measure(engine, write_scenario(OWN_LOSS + 'VARIANTS = {"dyn": {"dynamic": True}}\n'))
    assert report.error is None, f"{report.error.one_line()}\n{report.error.details}"
    variant = report.variants["dyn"].measured
    assert variant is not None and variant.forward_launches and variant.backward_launches
    assert variant.saved_bytes is not None and report.eager is not None and report.eager.saved_bytes is not None
    assert variant.saved_bytes < report.eager.saved_bytes
    assert report.eager is not None and report.compiled is not None
    eager_forward = [kernel.name for kernel in report.eager.section("forward")]
    assert "aten::mean" in eager_forward, f"the file's loss(), not the default sum: {eager_forward}"
    for mode in (report.eager, report.compiled):
        assert mode.forward_launches and mode.backward_launches
        assert mode.forward_launches + mode.backward_launches == mode.kernel_count
        assert all(kernel.section in ("forward", "backward") for kernel in mode.kernels)
    # Only x is floating point: the step returns the loss and x's gradient, not one for the offsets.
    assert report.signature == "x: (4096,) float32, offsets: (4096,) int64 → (() float32, (4096,) float32)"
    assert report.eager.saved_bytes is not None and report.compiled.saved_bytes is not None
    assert report.compiled.saved_bytes < report.eager.saved_bytes
    text = _text(report)
    assert "│forward" in text and "│backward" in text and "saved for backward" in text


def test_the_preview_shows_a_training_steps_forward_and_backward_triton_kernels(
    write_scenario: WriteScenario, preview_engine: EngineClient
) -> None:
    """The autograd engine cannot run on fake CUDA tensors; the step is traced on the CPU and its forward and
    backward graphs are generated for the GPU (Triton, not C++), each kernel in its section."""
    report = measure(preview_engine, write_scenario(OWN_LOSS))
    assert report.error is None, f"{report.error.one_line()}\n{report.error.details}"
    assert report.eager is not None and report.compiled is not None
    compiled = {section: [k.name for k in report.compiled.section(section)] for section in ("forward", "backward")}
    for section, names in compiled.items():
        assert names and all(name.startswith("triton_") for name in names), (section, names)
    assert report.compiled.forward_launches and report.compiled.backward_launches
    eager_forward = [kernel.name for kernel in report.eager.section("forward")]
    assert "aten::mean" in eager_forward and "aten::relu" in eager_forward, eager_forward
    assert [kernel.name for kernel in report.eager.section("backward")], "backward ran no operator"
    assert report.eager.saved_bytes is not None and report.compiled.saved_bytes is not None
    assert any("traced on the CPU" in line for line in report.assumptions)
