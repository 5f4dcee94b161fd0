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

from kernel_tui.engine.counting.flops import eager_bytes_and_flops
from kernel_tui.engine.counting.op_kinds import moves_data
from kernel_tui.model.report.report import ScenarioReport
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


def test_a_training_steps_sections_keep_every_byte(engine: EngineClient, write_scenario: WriteScenario) -> None:
    """SDPA with dropout runs its math on the CPU, forward and backward. Its ``_safe_softmax``, which the dispatcher
    sees whole, is a composite inside ``scaled_dot_product_attention``: its record went to no pass, and its later
    passes, with no bytes of their own, made the forward's bytes unknown. In backward, the ``copy_`` that
    AccumulateGrad runs went to the ``mul`` before it, whose profiled subtree holds a ``copy_`` of its own that no
    dispatch mode records: the backward's bytes were unknown too ("bytes — → 1.9 MiB")."""
    source = (
        "import torch\nimport torch.nn.functional as F\n\nTRAIN = True\n\n\n"
        "def fn(q, k, v):\n    return F.scaled_dot_product_attention(q, k, v, dropout_p=0.1)\n\n\n"
        "def inputs(size, device):\n    shape = (size // (4 * 32 * 16), 4, 32, 16)\n"
        "    return tuple(torch.randn(shape, device=device) for _ in range(3))\n"
    )
    report = _measured(measure(engine, write_scenario(source, "attention_step.py"), size=2**14))
    assert report.eager is not None
    forward, backward = report.eager.section("forward"), report.eager.section("backward")
    softmax = [k for k in forward if k.name == "aten::softmax"]
    assert softmax and all(k.bytes_total for k in softmax), "the _safe_softmax record is on its first pass"
    copies = [k for k in backward if k.name == "aten::copy_"]
    assert copies and all(k.bytes_total for k in copies), "AccumulateGrad's copy keeps its record"
    assert report.eager.forward_bytes is not None and report.eager.backward_bytes is not None
    assert report.eager.forward_bytes + report.eager.backward_bytes == report.eager.bytes_total


def test_an_operator_with_a_kernel_of_its_own_runs_it_though_it_has_a_composition_too(
    engine: EngineClient, write_scenario: WriteScenario
) -> None:
    """``silu_backward`` has a CPU kernel and a ``CompositeImplicitAutograd`` one: the mode must run the kernel, not
    decompose it into sigmoid, mul and add (its row read "—" and its bytes went to the next ``mul``)."""
    source = (
        "import torch\n\nTRAIN = True\n\n\ndef fn(a, b):\n    return torch.nn.functional.silu(a) * b\n\n\n"
        "def inputs(size, device):\n    return torch.randn(size, device=device), torch.randn(size, device=device)\n"
    )
    report = _measured(measure(engine, write_scenario(source, "silu_step.py"), size=2**16))
    assert report.eager is not None
    (silu,) = [k for k in report.eager.section("backward") if k.name == "aten::silu_backward"]
    assert silu.bytes_total == 3 * 2**16 * 4, "reads the gradient and the input, writes the input's gradient"
    assert report.eager.forward_bytes is not None and report.eager.backward_bytes is not None
    assert report.eager.forward_bytes + report.eager.backward_bytes == report.eager.bytes_total


def test_a_profiler_range_moves_no_data_and_leaves_the_flops_known() -> None:
    """A model's code may mark a range (``record_function``, as Hugging Face's and the training step's do): its
    enter and exit reach the dispatcher with no tensor in or out, and counted as operators with unknown FLOPs
    they made a whole training step's total unknown (issue 56)."""
    from kernel_tui.engine.counting.flops import eager_flops

    assert not moves_data("profiler::_record_function_enter_new")
    assert not moves_data("profiler::_record_function_exit")

    def marked(x: torch.Tensor) -> torch.Tensor:
        with torch.profiler.record_function("step"):
            return x + 1

    ops = eager_flops(marked, (torch.randn(64),))
    assert [(op.name, op.flops) for op in ops] == [("aten::add", 64)]
