"""Composite operators on the CPU: ``torch.logsumexp`` is one top-level operator that makes nine passes over
memory (a launch each on a GPU), and the eager table counts them, nested under it; an operator that hands its
work to one other (``relu`` to ``clamp_min``) or has a CPU kernel of its own (``sum``) stays one.

The course's CPU eager counts are checked against the CUDA preview's eager operators
(``tests/data/preview/course_sm90.jsonl``); where they differ on purpose, ``DIFFERENCES`` says why."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import WriteScenario, lesson_params, lesson_report, measure
from support.locations import DATA

from kernel_tui.engine.counting import events as ev
from kernel_tui.model.report.kernel import Kernel, nested_names
from kernel_tui.model.scenario.course import course_dir
from kernel_tui.model.scenario.scenario_file import find_scenarios, read_scenario
from kernel_tui.transport.client import EngineClient

PREVIEW = DATA / "preview" / "course_sm90.jsonl"
COURSE = [path for path in find_scenarios([course_dir()]) if not read_scenario(path).train]
"""The lessons the preview has counts for: it does not preview a training step (``TRAIN = True``)."""
LOGSUMEXP_PASSES = [
    "aten::amax",
    "aten::abs",
    "aten::eq",
    "aten::masked_fill_",
    "aten::sub",
    "aten::exp_",
    "aten::sum",
    "aten::log_",
    "aten::add_",
]

SEMAPHORES = (
    "on a GPU ATen splits a full float32 reduction of a million elements across blocks and clears their "
    "semaphores with a memset first (Reduce.cuh; a prediction until a GPU confirms it)"
)
DIFFERENCES = {
    "09_sum_of_squares.py": (2, 3, SEMAPHORES),
    "10_after_a_reduction.py": (2, 3, SEMAPHORES),
    "15_graph_break.py": (5, 6, SEMAPHORES),
    "19_host_and_device.py": (
        1,
        2,
        "on a GPU the result is copied to the host (a DtoH memcpy, a launch of its "
        "own); on the CPU it is already in host memory and nothing is copied",
    ),
}
"""Lesson: (CPU eager count, GPU preview eager count, why they differ)."""


@dataclass
class Range:
    start: float
    end: float

    def elapsed_us(self) -> float:
        return self.end - self.start


@dataclass(eq=False)
class Event:
    """The few attributes of a profiler FunctionEvent that ``events`` reads."""

    name: str
    time_range: Range
    cpu_parent: Event | None = None
    cpu_children: list[Event] = field(default_factory=list)
    device_type: str = "DeviceType.CPU"


def tree(name: str, *children: Event | str, at: list[float]) -> Event:
    start = at[0]
    at[0] += 1
    kids = [child if isinstance(child, Event) else tree(child, at=at) for child in children]
    event = Event(name, Range(start, at[0]))
    at[0] += 1
    for kid in kids:
        kid.cpu_parent = event
    event.cpu_children = kids
    return event


VIEWS = {
    "aten::empty",
    "aten::real",
    "aten::squeeze",
    "aten::as_strided",
    "aten::to",
    "aten::empty_strided",
    "aten::unsqueeze",
    "aten::select",
}
COMPOSITES = {"aten::logsumexp", "aten::_to_copy", "aten::copy_", "aten::to"}


def moves(name: str) -> bool:
    return name not in VIEWS


def own_kernel(name: str) -> bool:
    return name not in COMPOSITES


def profiled(*ops: Event) -> list[Event]:
    run = tree(ev.RUN_RANGE, *ops, at=[1000.0])
    found = []
    stack = [run]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(node.cpu_children)
    return found


def logsumexp(at: list[float]) -> Event:
    """As the profiler records ``torch.logsumexp(x, -1)`` on a CPU (torch 2.14)."""

    def scalar() -> Event:
        return tree("aten::to", tree("aten::_to_copy", "aten::empty_strided", "aten::copy_", at=at), at=at)

    inner = tree(
        "aten::logsumexp",
        "aten::real",
        tree("aten::amax", "aten::fill_", at=at),
        tree("aten::squeeze", "aten::as_strided", at=at),
        tree("aten::abs", "aten::empty", "aten::abs", at=at),
        tree("aten::eq", scalar(), at=at),
        "aten::masked_fill_",
        "aten::sub",
        "aten::exp_",
        tree("aten::sum", "aten::as_strided", "aten::fill_", at=at),
        "aten::log_",
        "aten::add_",
        at=at,
    )
    return tree("aten::logsumexp", "aten::empty", inner, at=at)


def test_a_composite_operator_is_as_many_kernels_as_its_passes() -> None:
    at = [0.0]
    events = profiled(logsumexp(at))
    launches = ev.cpu_launches(events, moves, own_kernel)
    assert [launch.name for launch in launches] == LOGSUMEXP_PASSES
    assert {launch.op for launch in launches} == {"aten::logsumexp"} and all(launch.nested for launch in launches)
    assert len(ev.cpu_launches(events, moves)) == 1, "without dispatch knowledge: the top-level operator"


def test_an_operator_that_delegates_to_one_or_has_its_own_kernel_stays_one() -> None:
    at = [0.0]
    relu = tree("aten::relu", "aten::clamp_min", at=at)
    total = tree("aten::sum", "aten::as_strided", "aten::fill_", "aten::unsqueeze", "aten::copy_", at=at)
    cast = tree("aten::to", tree("aten::_to_copy", "aten::empty_strided", "aten::copy_", at=at), at=at)
    launches = ev.cpu_launches(profiled(relu, total, cast), moves, own_kernel)
    assert [(launch.name, launch.nested) for launch in launches] == [
        ("aten::relu", False),
        ("aten::sum", False),
        ("aten::to", False),
    ]


def test_nested_passes_are_shown_under_their_composite() -> None:
    rows = [Kernel("aten::mul", "aten::mul", 1, 1.0, kind="op")]
    rows += [Kernel(name, name, 1, 1.0, kind="op", op="aten::logsumexp") for name in LOGSUMEXP_PASSES[:3]]
    assert nested_names(rows) == ["aten::mul", "aten::logsumexp ┬ amax", "  ├ abs", "  └ eq"]


def test_logsumexp_on_the_cpu_counts_its_passes_nested_and_credited(
    engine: EngineClient, write_scenario: WriteScenario
) -> None:
    path = write_scenario(
        "import torch\n\n\ndef fn(x):\n    return torch.logsumexp(x, dim=-1)\n\n\n"
        "def inputs(size, device):\n    return (torch.randn(size // 256, 256, device=device),)\n",
        name="logsumexp.py",
    )
    report = measure(engine, path, size=1 << 16)
    assert report.error is None, report.error
    assert report.eager is not None
    names = [kernel.name for kernel in report.eager.kernels]
    assert names == LOGSUMEXP_PASSES and report.eager.kernel_count == len(LOGSUMEXP_PASSES)
    assert {kernel.op for kernel in report.eager.kernels} == {"aten::logsumexp"}
    assert report.eager.kernels[0].bytes_total is not None
    assert report.eager.bytes_total == report.eager.kernels[0].bytes_total > 0, "the composite's bytes, once"
    fused = {name for kernel in report.eager.kernels for name in kernel.fused_into}
    assert all(kernel.fused_into for kernel in report.eager.kernels), "every pass went into the compiled kernel"
    assert report.compiled is not None
    assert fused <= {kernel.short_name for kernel in report.compiled.kernels}


def _preview_counts() -> dict[str, float]:
    counts = {}
    for line in PREVIEW.read_text().splitlines():
        report = json.loads(line)
        counts[Path(report["scenario"]).name] = report["eager"]["kernel_count"]
    return counts


@pytest.mark.slow
@pytest.mark.parametrize("path", lesson_params(COURSE))
def test_cpu_eager_counts_match_the_gpu_preview_or_say_why(engine: EngineClient, path: Path) -> None:
    report = lesson_report(engine, path)  # the claim test's measurement, when it ran first on this worker
    assert report.eager is not None, report.error
    gpu = _preview_counts()[path.name]
    cpu = report.eager.kernel_count
    if path.name in DIFFERENCES:
        expected_cpu, expected_gpu, reason = DIFFERENCES[path.name]
        assert (cpu, gpu) == (expected_cpu, expected_gpu), f"{path.name}: the listed difference ({reason}) changed"
    else:
        assert cpu == gpu, f"{path.name}: {cpu} eager kernels on the CPU, {gpu} on a GPU (preview)"
