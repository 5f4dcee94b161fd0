"""FLOPs on each kernel's own row, in real runs: a bias-free ``nn.Linear`` in a training step (one operator,
``mm``, in forward and in backward), and two products compiled as an ``mm`` and an ``addmm``."""

from __future__ import annotations

import pytest
from conftest import WriteScenario, measure

from kernel_tui.model.report.kernel import Kernel
from kernel_tui.transport.client import EngineClient

pytestmark = pytest.mark.engine

LINEAR_STEP = """
import torch
from torch import nn

TRAIN = True
layer = nn.Linear(256, 256, bias=False)


def fn(x):
    return layer(x)


def inputs(size, device):
    return (torch.randn(64, 256, device=device),)
"""

TWO_PRODUCTS = """
import torch
import torch.nn.functional as F


def fn(h, w1, w2):
    return F.gelu(h @ w1) @ w2 + h


def inputs(size, device):
    h, w1, w2 = (64, 128), (128, 256), (256, 128)
    return torch.randn(h, device=device), torch.randn(w1, device=device), torch.randn(w2, device=device)
"""


def _flops(rows: tuple[Kernel, ...], section: str | None = None) -> dict[str, int | None]:
    return {row.name: row.flops for row in rows if row.section == section}


def test_a_bias_free_linear_has_its_flops_in_a_training_step(
    engine: EngineClient, write_scenario: WriteScenario
) -> None:
    report = measure(engine, write_scenario(LINEAR_STEP))
    assert report.error is None, report.error.one_line()
    product = 2 * 64 * 256 * 256
    for mode in (report.eager, report.compiled):
        assert mode is not None
        assert all(row.flops is not None for row in mode.kernels), [(r.name, r.section, r.flops) for r in mode.kernels]
        forward = [row.flops for row in mode.kernels if row.section == "forward" and "mm" in row.aten_ops[0]]
        backward = [row.flops for row in mode.kernels if row.section == "backward" and row.flops]
        assert forward == [product] and sum(backward) == 2 * product  # x's gradient and the weight's
        assert mode.flops == 3 * product + 64 * 256  # and the default loss's sum


def test_each_product_has_its_own_flops_compiled(engine: EngineClient, write_scenario: WriteScenario) -> None:
    report = measure(engine, write_scenario(TWO_PRODUCTS))
    assert report.error is None, report.error.one_line()
    assert report.compiled is not None and report.eager is not None
    rows = _flops(report.compiled.kernels)
    product = 2 * 64 * 128 * 256  # each of the two
    assert rows["aten::mm"] == product, rows
    assert rows["aten::addmm"] == product + 64 * 128, "the second product and the residual add it absorbed"
    assert report.compiled.flops == report.eager.flops == 2 * product + 64 * 256 + 64 * 128
