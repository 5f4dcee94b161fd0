"""A graph's C++ kernels are compiled once: the watched compile (why kernels stayed apart) and an engine that
compiled other scenarios before reuse them, rather than running g++ again for a kernel that differs only in
the graph count Inductor writes into its profiler name."""

from __future__ import annotations

import os
import random
from pathlib import Path

from conftest import WriteScenario, measure
from support.locations import DATA

from kernel_tui.transport.client import EngineClient

BEFORE = DATA / "add_relu.py"


def _kernel_sources_with(constant: str) -> list[Path]:
    cache = Path(os.environ["TORCHINDUCTOR_CACHE_DIR"])
    return [path for path in cache.rglob("*.cpp") if constant in path.read_text(errors="replace")]


def test_a_new_graph_after_others_is_compiled_to_one_cpp_kernel(
    engine: EngineClient, write_scenario: WriteScenario
) -> None:
    # A constant no earlier run compiled: the kernel's source is new to the suite's Inductor cache.
    constant = repr(1 + random.randrange(1, 2**20) / 2**21)
    path = write_scenario(
        "import torch\n"
        "def inputs(size, device):\n"
        "    return (torch.randn(size, device=device),)\n"
        "def fn(x):\n"
        f"    return (x * {constant}).relu()\n"
    )
    assert measure(engine, BEFORE).error is None  # the shared engine has compiled a graph before this one
    report = measure(engine, path)
    assert report.error is None and report.compiled is not None
    assert [kernel.short_name for kernel in report.compiled.kernels] == ["cpp_fused_mul_relu_0"]
    sources = _kernel_sources_with(constant)
    assert len(sources) == 1, f"one kernel compiled {len(sources)} times: {sorted(map(str, sources))}"
