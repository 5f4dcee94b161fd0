"""Which line each operator came from: forward, through helpers, backward, the loss; and why, where none."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import WriteScenario
from support.locations import DATA

from kernel_tui.engine.counting.source_lines import DEFAULT_LOSS
from kernel_tui.engine.counting.traffic import Traffic, eager_traffic
from kernel_tui.engine.stages import training
from kernel_tui.engine.stages.loader import load_scenario


def traffic_of(path: Path, size: int = 64) -> list[Traffic]:
    scenario = load_scenario(path)
    step = training.measured_fn(scenario)
    args = scenario.make_inputs(size, "cpu")
    step(*args)  # warm, as measured: a step makes its seed gradient once
    return eager_traffic(step, args, str(path))


def by_name(records: list[Traffic]) -> dict[str, list[Traffic]]:
    named: dict[str, list[Traffic]] = {}
    for record in records:
        named.setdefault(record.name, []).append(record)
    return named


def test_forward_operators_carry_the_line_that_called_them() -> None:
    records = by_name(traffic_of(DATA / "which_line.py"))
    assert [(r.lines, r.unplaced) for r in records["aten::add"]] == [((6,), None)]
    assert [r.lines for r in records["aten::relu"]] == [(7,)]
    assert [r.lines for r in records["aten::mul"]] == [(8,)]


def test_backward_operators_carry_the_forward_line_they_differentiate() -> None:
    records = traffic_of(DATA / "which_line_training.py")
    records = [r for r in records if r.name.startswith("aten::")]  # not the profiler range around backward
    backward = records[[r.name for r in records].index("aten::sum") + 1 :]
    placed = {(r.name, r.lines) for r in backward}
    assert ("aten::mul", (8,)) in placed, "the gradient of r * 2 is a mul by 2, on line 8"
    assert ("aten::threshold_backward", (7,)) in placed, "ReLU's gradient is the relu line's"
    # The add hands its gradient to both inputs; the copy that keeps a.grad and b.grad apart stores line 6's.
    assert ("aten::copy_", (6,)) in placed
    assert all(r.lines for r in backward), backward


def test_the_default_loss_says_it_is_on_no_line_and_its_gradient_too() -> None:
    (total,) = by_name(traffic_of(DATA / "which_line_training.py"))["aten::sum"]
    assert total.lines == () and total.unplaced == DEFAULT_LOSS


def test_a_loss_of_the_files_own_is_on_its_line(write_scenario: WriteScenario) -> None:
    path = write_scenario(
        "import torch\n"
        "TRAIN = True\n"
        "def fn(a):\n"
        "    return a.relu()\n"
        "def loss(out):\n"
        "    return (out * out).sum()\n"
        "def inputs(size, device):\n"
        "    return (torch.randn(size, device=device),)\n"
    )
    records = by_name(traffic_of(path))
    assert [r.lines for r in records["aten::sum"]] == [(6,)]
    assert {r.lines for r in records["aten::mul"]} == {(6,)}, "out * out and its gradient: the loss line"


def test_a_helpers_operators_carry_the_helpers_line_and_the_line_that_called_it(write_scenario: WriteScenario) -> None:
    path = write_scenario(
        "import torch\n"
        "def scaled(x):\n"
        "    return x * 3\n"
        "def fn(a):\n"
        "    b = a.relu()\n"
        "    return scaled(b)\n"
        "def inputs(size, device):\n"
        "    return (torch.randn(size, device=device),)\n"
    )
    records = by_name(traffic_of(path))
    assert [r.lines for r in records["aten::mul"]] == [(3, 6)], "the helper's line first, then fn's call"
    assert [r.lines for r in records["aten::relu"]] == [(5,)]


@pytest.mark.parametrize("size", [16])
def test_lines_of_a_snippet_are_the_lines_typed(write_scenario: WriteScenario, size: int) -> None:
    path = write_scenario("# a comment\n\n(a + b).relu()\n", name="snippet.py")
    records = traffic_of(path, size)
    assert {r.lines for r in records} == {(3,)}
