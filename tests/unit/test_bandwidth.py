"""The copy-bandwidth ceiling: sized to fit the free memory, and an allocation failure is not a crash."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from kernel_tui.engine.counting import bandwidth
from kernel_tui.engine.counting.timing import time_call


def test_the_copy_fits_in_the_free_memory() -> None:
    assert bandwidth.copy_bytes("cuda", 80 * 2**30) == bandwidth.COPY_BYTES["cuda"]
    assert bandwidth.copy_bytes("cuda", 1 * 2**30) == 256 * 2**20
    assert bandwidth.copy_bytes("cuda", 0) == bandwidth.MIN_COPY_BYTES


def test_out_of_memory_halves_the_copy_until_it_fits(monkeypatch: pytest.MonkeyPatch) -> None:
    real_empty = torch.empty
    asked: list[int] = []

    def empty_with_little_memory(*shape: Any, **kwargs: Any) -> torch.Tensor:
        elements = shape[0] if shape and isinstance(shape[0], int) else 0
        asked.append(elements * 4)
        if elements * 4 > 32 * 2**20:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return real_empty(*shape, **kwargs)

    monkeypatch.setattr(bandwidth, "free_memory_bytes", lambda device: 2**40)
    monkeypatch.setattr(torch, "empty", empty_with_little_memory)  # the torch the engine's bandwidth module calls
    value = bandwidth.measure_ceiling_gbs("cpu")
    assert value is not None and value > 0
    assert asked[0] == bandwidth.COPY_BYTES["cpu"] and asked[-1] <= 32 * 2**20


def test_no_memory_at_all_gives_no_ceiling(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_memory(*shape: Any, **kwargs: Any) -> None:
        raise torch.OutOfMemoryError("CUDA out of memory")

    monkeypatch.setattr(bandwidth, "free_memory_bytes", lambda device: 0)
    monkeypatch.setattr(torch, "empty", no_memory)
    assert bandwidth.measure_ceiling_gbs("cpu") is None


def test_the_matmul_ceiling_costs_a_bounded_number_of_short_rounds_on_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """What keeps the measurement short is its shape, not the machine: at most ``MAX_ROUNDS`` rounds of
    ``ROUND_BUDGET_S`` each, on a product small enough that one call is a few GFLOP. How long that takes on this
    machine is ``bench/ceiling_cost.py``'s figure, a ratio against one matmul timed in the same run."""
    budgets: list[float] = []

    def recorded(call: Any, device: str, budget_s: float = 0.2) -> Any:
        budgets.append(budget_s)
        return time_call(call, device, budget_s=budget_s)

    monkeypatch.setattr(bandwidth, "time_call", recorded)
    value = bandwidth.measure_matmul_gflops("cpu", torch.float32)
    assert value is not None and value > 0
    assert bandwidth.MIN_ROUNDS <= len(budgets) <= bandwidth.MAX_ROUNDS
    assert set(budgets) == {bandwidth.ROUND_BUDGET_S}
    assert bandwidth.MAX_ROUNDS * bandwidth.ROUND_BUDGET_S <= 1.0
    assert 2 * bandwidth.MATMUL_SIDE["cpu"] ** 3 <= 4e9, "a few GFLOP a call: no round runs long past"
