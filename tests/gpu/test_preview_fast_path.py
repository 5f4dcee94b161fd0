"""The CUDA preview and PyTorch's fast path for an eval-mode transformer or attention layer (``test_fast_path``).

The preview traces ``fn`` under a torch-function mode of its own (``SdpaAsOnGpu``), and any such mode makes a module's
fast path decline: its eager side ran the encoder layer's slow path (18 operators) where a GPU, with no mode, runs the
one fused operator, and compiled showed that operator (18 → 1). The preview cannot count the operator's passes: its
row keeps one launch, marked a lower bound, and the summary says ``≥``.
"""

from __future__ import annotations

from conftest import WriteScenario, measure
from support.locations import REPO

from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.text.formatting import summary_line
from kernel_tui.transport.client import EngineClient

ENCODER = REPO / "tests" / "data" / "modules" / "encoder_eval.py"
LAYER = "aten::_transformer_encoder_layer_fwd"
ATTENTION = "aten::_native_multi_head_attention"
SIZE = 2**16


def _measured(report: ScenarioReport) -> ScenarioReport:
    assert report.error is None, f"{report.error.one_line()}\n{report.error.details}"
    assert report.eager is not None and report.compiled is not None
    return report


def test_the_preview_runs_the_fast_path_eagerly_as_a_gpu_would(
    preview_engine: EngineClient,
) -> None:
    report = _measured(measure(preview_engine, ENCODER, size=SIZE))
    assert report.eager is not None and report.compiled is not None
    for mode in (report.eager, report.compiled):
        assert [kernel.name for kernel in mode.kernels] == [LAYER]
        assert mode.count_is_lower_bound
    assert "launches ≥1 → ≥1" in summary_line(report)
    assert any("ran compiled too" in note for note in report.notes)


def test_attention_compiled_is_traced_through_while_eager_takes_the_fast_path(
    preview_engine: EngineClient, write_scenario: WriteScenario
) -> None:
    """``MultiheadAttention``'s fast path declines under Dynamo, so compiled has its operators: the note says the
    fast path ran eagerly only."""
    source = (
        "import torch\nfrom torch import nn\n\nattention = nn.MultiheadAttention(64, 4, batch_first=True).eval()\n\n\n"
        "def fn(x):\n    return attention(x, x, x, need_weights=False)[0]\n\n\n"
        "def inputs(size, device):\n    return (torch.randn(size // (64 * 64), 64, 64, device=device),)\n"
    )
    report = _measured(measure(preview_engine, write_scenario(source, "attention.py"), size=SIZE))
    assert report.eager is not None and report.compiled is not None
    assert [kernel.name for kernel in report.eager.kernels] == [ATTENTION]
    assert ATTENTION not in {kernel.name for kernel in report.compiled.kernels}
    assert not report.compiled.count_is_lower_bound
    (note,) = [note for note in report.notes if ATTENTION in note]
    assert "ran eagerly only" in note
