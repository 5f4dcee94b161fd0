"""Lesson 20's roofline claims, measured on CPU: the large matmul is compute-bound and the elementwise op
memory-bound, eager and compiled alike, whatever the machine's load (its intensity class, never its time);
FLOPs are the lesson's hand counts, and a compiled kernel has those of the operators it replaced. Also
lesson 20 on the CUDA preview, where FLOPs and intensity follow from shapes alone."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from conftest import measure
from support.locations import REPO

from kernel_tui.model.meaning.roofline import COMPUTE_BOUND, MEMORY_BOUND, OVERHEAD_BOUND
from kernel_tui.model.report.kernel import Kernel
from kernel_tui.transport.client import EngineClient

LESSON = REPO / "scenarios" / "20_matmul_against_elementwise.py"
SIDE = 1024
MATMUL_FLOPS = 2 * SIDE**3
"""The lesson's hand count: a multiply and an add per term, 1024 terms per element of a 1024×1024 product."""
TANH_FLOPS = SIDE * SIDE
"""One operation per element written."""


def by_ops(kernels: Sequence[Kernel]) -> dict[str, Kernel]:
    return {"mm" if any("mm" in op for op in kernel.aten_ops) else "tanh": kernel for kernel in kernels}


@pytest.mark.slow
def test_the_matmul_is_compute_bound_and_the_tanh_memory_bound_on_cpu(engine: EngineClient) -> None:
    report = measure(engine, LESSON)
    assert report.error is None, report.error and report.error.one_line()
    assert report.ceilings is not None and report.ceilings.ridge is not None
    # The lesson's intensities, by hand: 2·1024³ operations on three 4 MiB matrices; one per element on two.
    assert all(check.ok for check in report.expect.values())
    for mode in (report.eager, report.compiled):
        assert mode is not None
        kernels = by_ops(mode.kernels)
        assert kernels["mm"].flops == MATMUL_FLOPS and kernels["tanh"].flops == TANH_FLOPS
        assert kernels["mm"].intensity == pytest.approx(MATMUL_FLOPS / (3 * 4 * SIDE * SIDE))
        assert kernels["tanh"].intensity == pytest.approx(TANH_FLOPS / (2 * 4 * SIDE * SIDE))
        assert kernels["mm"].bound == COMPUTE_BOUND, (kernels["mm"].intensity, report.ceilings)
        assert kernels["tanh"].bound == MEMORY_BOUND, (kernels["tanh"].intensity, report.ceilings)
        assert mode.flops == MATMUL_FLOPS + TANH_FLOPS
    assert report.compiled is not None
    assert report.eager is not None
    assert report.compiled.flops == report.eager.flops  # fusion moves data, it does not change the arithmetic


@pytest.mark.slow
def test_a_16_by_16_matmul_is_neither_compute_nor_memory_bound_but_overhead_bound(engine: EngineClient) -> None:
    """The lesson: at 16 by 16 the call "lands far below both ceilings". It was called compute-bound (its
    intensity is past a CPU's ridge); its time at the roof is a fraction of a microsecond, and one call
    costs more than that whatever the load."""
    report = measure(engine, LESSON, size=16 * 16)
    assert report.error is None, report.error and report.error.one_line()
    for mode in (report.eager, report.compiled):
        assert mode is not None
        matmul = by_ops(mode.kernels)["mm"]
        assert matmul.bound == OVERHEAD_BOUND, (matmul.time_us, matmul.intensity, report.ceilings)


@pytest.mark.slow
def test_on_the_cuda_preview_flops_and_intensity_are_shown_too(preview_engine: EngineClient) -> None:
    report = measure(preview_engine, LESSON)
    assert report.error is None, report.error and report.error.one_line()
    assert report.compiled is not None
    compiled = by_ops(report.compiled.kernels)
    assert compiled["mm"].flops == MATMUL_FLOPS and compiled["tanh"].flops == TANH_FLOPS
    assert compiled["mm"].intensity == pytest.approx(MATMUL_FLOPS / (3 * 4 * SIDE * SIDE))
    assert compiled["mm"].bound is None  # no GPU measured: no ridge to class it by
