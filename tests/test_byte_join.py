"""Every byte the dispatcher saw reaches a row: a dispatch mode's records, joined to a profiled run's launches.

The two runs spell some work differently. Under a dispatch mode ATen's composites take their out-of-place branch
(``linear`` adds its bias with ``add``; profiled, with no mode, it runs ``add_``), and a record joined by name went
to the next ``add`` of the file, losing every record between. Eager code inside a compiled call (an RNN Dynamo
falls back on) lost its bytes the same way on the compiled side. An eval-mode encoder layer's slow path:
``test_fast_path``.
"""

from __future__ import annotations

import torch
from conftest import WriteScenario, measure

from kernel_tui.engine.flops import eager_bytes_and_flops
from kernel_tui.engine.op_kinds import moves_data
from kernel_tui.model.report import ScenarioReport
from kernel_tui.transport.client import EngineClient

GRU = (
    "import torch\nfrom torch import nn\n\nrnn = nn.GRU(32, 32, batch_first=True)\n\n\n"
    "def fn(x):\n    return rnn(x)[0]\n\n\n"
    "def inputs(size, device):\n    return (torch.randn(size // (32 * 16), 16, 32, device=device),)\n"
)
GRU_SIZE = 2**14


def _measured(report: ScenarioReport) -> ScenarioReport:
    assert report.error is None, f"{report.error.one_line()}\n{report.error.details}"
    assert report.eager is not None and report.compiled is not None
    return report


def test_eager_code_in_a_compiled_call_keeps_its_bytes(engine: EngineClient, write_scenario: WriteScenario) -> None:
    """Dynamo does not trace an RNN module: the compiled call runs the GRU's operators eagerly, as eager does."""
    report = _measured(measure(engine, write_scenario(GRU, "gru.py"), size=GRU_SIZE))
    assert report.eager is not None and report.compiled is not None
    assert report.compiled.graph_breaks
    rnn = torch.nn.GRU(32, 32, batch_first=True)
    traffic, _ = eager_bytes_and_flops(rnn, (torch.randn(GRU_SIZE // (32 * 16), 16, 32),))
    dispatched = sum(record.bytes_total for record in traffic)
    assert report.eager.bytes_total == dispatched
    assert report.compiled.bytes_total == dispatched
    assert report.compiled.kernel_count == report.eager.kernel_count


def test_unsafe_chunk_is_the_views_chunk_makes() -> None:
    """``unsafe_chunk`` is ``chunk`` with its outputs' aliasing left out of the schema: a GRU step's gates are views
    of one matmul's result, and counted as a kernel each they were 32 launches of 182 in a 16-step GRU."""
    assert not moves_data("aten::chunk")
    assert not moves_data("aten::unsafe_chunk")
    assert not moves_data("aten::unsafe_split")
    assert moves_data("aten::add")
