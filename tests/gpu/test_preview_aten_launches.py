"""Eager launches in the CUDA preview where ATen's CUDA source launches more than one kernel per operator.

The counts are predictions from ATen's source (``kernel_tui.engine.preview.aten_cuda``), and each such row says so.
``logsumexp``'s passes are checked against what the same ATen code really calls on this CPU (the composite is
device-generic C++), so that part is not only read from the source.
"""

from __future__ import annotations

import pytest
import torch
from conftest import WriteScenario, measure
from torch.profiler import ProfilerActivity, profile

from kernel_tui.engine.preview import aten_cuda
from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.transport.client import EngineClient

HEADER = "import torch\n\nSIZE = 1 << 20\n\n\n"


def preview(engine: EngineClient, write_scenario: WriteScenario, name: str, body: str, inputs: str) -> ScenarioReport:
    source = HEADER + body + f"\n\ndef inputs(size, device):\n    return {inputs}\n"
    report = measure(engine, write_scenario(source, f"{name}.py"))
    assert report.error is None, f"{report.error.one_line()}\n{report.error.details}"
    assert report.eager is not None
    return report


def rows(report: ScenarioReport) -> list[tuple[str, float, str | None]]:
    assert report.eager is not None
    return [(kernel.name, kernel.calls, kernel.kind) for kernel in report.eager.kernels]


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        (1 << 20, [("Memset (Device)", 1, "memset"), ("aten::sum", 1, "op")]),
        (1 << 18, [("aten::sum", 1, "op")]),
    ],
)
def test_a_large_full_reduction_clears_its_semaphores_first(
    preview_engine: EngineClient,
    write_scenario: WriteScenario,
    size: int,
    expected: list[tuple[str, int, str]],
) -> None:
    report = preview(
        preview_engine,
        write_scenario,
        f"sum_{size}",
        "def fn(x):\n    return x.sum()\n",
        f"(torch.randn({size}, device=device),)",
    )
    assert rows(report) == expected
    assert report.eager is not None and report.eager.kernel_count == len(expected)
    predicted = [kernel.predicted for kernel in report.eager.kernels]
    assert all(predicted) if size >= aten_cuda.GLOBAL_REDUCE_MIN else not any(predicted)


def test_a_row_reduction_is_one_kernel(preview_engine: EngineClient, write_scenario: WriteScenario) -> None:
    report = preview(
        preview_engine, write_scenario, "rows", "def fn(x):\n    return x.sum(dim=-1)\n",
        "(torch.randn(1024, 1024, device=device),)",
    )  # fmt: skip
    assert rows(report) == [("aten::sum", 1, "op")]


def test_logsumexp_runs_its_passes(preview_engine: EngineClient, write_scenario: WriteScenario) -> None:
    report = preview(
        preview_engine, write_scenario, "lse", "def fn(x):\n    return torch.logsumexp(x, -1)\n",
        "(torch.randn(1024, 1024, device=device),)",
    )  # fmt: skip
    assert [name for name, _, _ in rows(report)] == [f"aten::{step}" for step in aten_cuda.LOGSUMEXP_PASSES]
    assert report.eager is not None and report.eager.kernel_count == 9
    assert all(kernel.op == "aten::logsumexp" and kernel.predicted for kernel in report.eager.kernels)
    # The input is read by amax, sub, exp_ and sum, and written by sub and exp_: six arrays' worth.
    assert report.eager.transfers == pytest.approx(6, abs=0.05)


def test_the_logsumexp_passes_are_those_aten_calls() -> None:
    """ATen's logsumexp is device-generic C++: on this CPU the profiler shows the operators it calls."""
    x = torch.randn(64, 64)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        torch.logsumexp(x, -1)
    # The public operator wraps the implementation's call of itself; the passes are the inner one's children.
    inner = [event for event in prof.events() if event.name == "aten::logsumexp" and len(event.cpu_children) > 2]
    assert len(inner) == 1
    called = [child.name for child in inner[0].cpu_children]
    doing_work = [name for name in called if name.split("::")[-1] in aten_cuda.LOGSUMEXP_PASSES]
    assert doing_work == [f"aten::{step}" for step in aten_cuda.LOGSUMEXP_PASSES]


def test_a_one_dimensional_cumsum_is_two_cub_kernels(
    preview_engine: EngineClient, write_scenario: WriteScenario
) -> None:
    report = preview(
        preview_engine,
        write_scenario,
        "scan",
        "def fn(x):\n    return x.cumsum(0)\n",
        "(torch.randn(size, device=device),)",
    )
    assert rows(report) == [("DeviceScanInitKernel", 1, "kernel"), ("aten::cumsum", 1, "op")]


def test_item_copies_through_a_pinned_buffer(preview_engine: EngineClient, write_scenario: WriteScenario) -> None:
    report = preview(
        preview_engine,
        write_scenario,
        "item",
        "def fn(x):\n    return x * x[0].item()\n",
        "(torch.randn(16, device=device),)",
    )
    assert ("Memcpy DtoH (Device -> Pinned)", 1, "memcpy") in rows(report)


def test_a_sort_says_its_count_is_a_lower_bound(preview_engine: EngineClient, write_scenario: WriteScenario) -> None:
    report = preview(
        preview_engine,
        write_scenario,
        "sort",
        "def fn(x):\n    return x.sort().values\n",
        "(torch.randn(size, device=device),)",
    )
    assert report.eager is not None
    sort = next(kernel for kernel in report.eager.kernels if kernel.name == "aten::sort")
    assert sort.predicted and "lower bound" in sort.predicted
