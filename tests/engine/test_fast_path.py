"""PyTorch's fast path for an eval-mode transformer or attention layer: one operator that runs many passes.

Under no_grad, an eval-mode ``TransformerEncoderLayer`` runs as ``aten::_transformer_encoder_layer_fwd`` and an
eval-mode ``MultiheadAttention`` as ``aten::_native_multi_head_attention``. Their C++ calls ATen operators for the
projections, attention, norms and feed-forward, each a pass over memory (a launch each on a GPU). Counted as one
kernel, the layer said "1 → 1" and moved only its input and output. The preview's side: ``test_preview_fast_path``.
"""

from __future__ import annotations

import pytest
import torch
from conftest import WriteScenario, measure
from support.locations import REPO
from torch.profiler import profile

from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.transport.client import EngineClient

ENCODER = REPO / "tests" / "data" / "modules" / "encoder_eval.py"
LAYER = "aten::_transformer_encoder_layer_fwd"
ATTENTION = "aten::_native_multi_head_attention"
SIZE = 2**16
BATCH, TOKENS, WIDTH = SIZE // (64 * 64), 64, 64


def _measured(report: ScenarioReport) -> ScenarioReport:
    assert report.error is None, f"{report.error.one_line()}\n{report.error.details}"
    assert report.eager is not None and report.compiled is not None
    return report


@pytest.fixture(scope="module")
def without_fast_path(engine: EngineClient, tmp_path_factory: pytest.TempPathFactory) -> ScenarioReport:
    """The same layer with its fast path switched off before it is built, measured once for the tests that read it."""
    path = tmp_path_factory.mktemp("fast_path") / "encoder_without_fast_path.py"
    path.write_text(
        ENCODER.read_text().replace("layer = nn.", "torch.backends.mha.set_fastpath_enabled(False)\nlayer = nn.", 1)
    )
    return _measured(measure(engine, path, size=SIZE))


def test_an_eval_mode_encoder_layer_is_its_passes_on_both_sides(engine: EngineClient) -> None:
    report = _measured(measure(engine, ENCODER, size=SIZE))
    assert report.eager is not None and report.compiled is not None
    for mode in (report.eager, report.compiled):
        assert {kernel.op for kernel in mode.kernels} == {LAYER}, "every pass is nested under the layer"
        assert mode.kernel_count >= 10, [kernel.name for kernel in mode.kernels]
        assert all(kernel.bytes_total for kernel in mode.kernels), "each pass has the bytes it moved"
    assert report.compiled.kernel_count == report.eager.kernel_count, "Inductor leaves the layer as it is"
    assert report.compiled.bytes_total == report.eager.bytes_total
    for mode in (report.eager, report.compiled):
        mm = next(kernel for kernel in mode.kernels if kernel.name == "aten::mm")
        # The input projection: x (B·T × W) by the packed q, k, v weight (W × 3W), all float32.
        assert mm.bytes_total == 4 * (BATCH * TOKENS * WIDTH + WIDTH * 3 * WIDTH + BATCH * TOKENS * 3 * WIDTH)
        assert mm.flops == 2 * BATCH * TOKENS * WIDTH * 3 * WIDTH, "its own product, not the layer's other matmuls"
    ideal = report.ideal_bytes or 0
    assert report.eager.bytes_total and report.eager.bytes_total > 10 * ideal, "not only its input and output"
    (note,) = [note for note in report.notes if LAYER in note]
    assert "ran compiled too" in note and "set_fastpath_enabled(False)" in note


def test_the_fast_path_switched_off_gives_inductor_the_layer(without_fast_path: ScenarioReport) -> None:
    """What the note advises works: the same layer without its fast path fuses, compiled."""
    report = without_fast_path
    assert report.eager is not None and report.compiled is not None
    names = {name for mode in (report.eager, report.compiled) for k in mode.kernels for name in (k.name, k.op)}
    assert LAYER not in names and ATTENTION not in names
    assert report.compiled.kernel_count < report.eager.kernel_count
    assert not [note for note in report.notes if "fast path" in note]


def test_every_byte_the_dispatcher_saw_reaches_a_row(without_fast_path: ScenarioReport) -> None:
    """Under a dispatch mode, ``linear`` adds its bias with ``add``; profiled, with no mode, it runs ``add_``. Joined by
    name, that record went to the next ``add`` of the file, and every record after it was lost: this layer's eager
    side showed 5.3 MiB of its 11.2."""
    from kernel_tui.engine.counting.flops import eager_bytes_and_flops

    report = without_fast_path
    assert report.eager is not None
    layer = torch.nn.TransformerEncoderLayer(WIDTH, 4, dim_feedforward=128, batch_first=True).eval()
    previous = torch.backends.mha.get_fastpath_enabled()
    torch.backends.mha.set_fastpath_enabled(False)
    try:
        traffic, _ = eager_bytes_and_flops(layer, (torch.randn(BATCH, TOKENS, WIDTH),))
    finally:
        torch.backends.mha.set_fastpath_enabled(previous)
    assert any(record.name == "aten::add" for record in traffic), "the bias's add, as a dispatch mode sees it"
    assert report.eager.bytes_total == sum(record.bytes_total for record in traffic)


def test_dropout_in_eval_mode_launches_nothing_on_the_cpu(engine: EngineClient, write_scenario: WriteScenario) -> None:
    """``dropout`` with ``training=False`` returns its input; the profiler still records the operator."""
    source = (
        "import torch\nimport torch.nn.functional as F\n\n\ndef fn(x):\n"
        "    return F.dropout(x, 0.5, training=False) + 1\n\n\n"
        "def inputs(size, device):\n    return (torch.randn(size, device=device),)\n"
    )
    x = torch.randn(1024)
    with profile() as profiled:
        torch.nn.functional.dropout(x, 0.5, training=False)
    assert "aten::dropout" in {event.name for event in profiled.events()}
    report = _measured(measure(engine, write_scenario(source, "eval_dropout.py"), size=1024))
    assert report.eager is not None
    assert [kernel.name for kernel in report.eager.kernels] == ["aten::add"]


def test_on_a_gpu_the_layers_first_kernel_takes_all_its_passes_bytes() -> None:
    """A GPU's profiler names each of the layer's kernels by the layer alone (the operator that launched it): the
    first takes the passes' records of its own call together, as its eager side does; the next call of the layer
    (an ``nn.TransformerEncoder``'s second layer) keeps its own, and the kernel after the layers its own."""
    from kernel_tui.engine.counting.events import Launch
    from kernel_tui.engine.counting.profiling import join_compiled
    from kernel_tui.engine.counting.traffic import Traffic

    call = "aten._transformer_encoder_layer_fwd.default"

    def layer(number: int) -> list[Traffic]:
        return [
            Traffic("aten::mm", 100, 300, ("aten::mm",), call=call, layer_call=number),
            Traffic("aten::bmm", 200, 400, ("aten::bmm",), call=call, layer_call=number),
        ]

    traffic = [*layer(1), *layer(2), Traffic("triton_poi_fused_add_0", 50, 25, ("aten::add",))]
    calls = [object(), object()]  # each call's operator event, which launched its kernels
    launches = [
        *(Launch(name, "kernel", 1.0, 0, LAYER, event) for event in calls for name in ("sm90_gemm", "softmax_warp")),
        Launch("triton_poi_fused_add_0", "kernel", 1.0, 0, "triton_poi_fused_add_0"),
    ]
    first, rest, second, rest_of_second, after = join_compiled(launches, traffic)
    for whole in (first, second):
        assert whole is not None and (whole.name, whole.bytes_read, whole.bytes_written) == (LAYER, 300, 700)
        assert whole.aten_ops == ("aten::mm", "aten::bmm")
    assert rest is None and rest_of_second is None
    assert after is traffic[-1]


def test_the_note_says_nothing_of_a_compiled_side_that_did_not_run() -> None:
    from dataclasses import replace

    from kernel_tui.engine.stages.fast_path_note import fast_path_note
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.mode_result import ModeResult

    attention = Kernel("aten::mm", "mm", 1, 1.0, kind="op", op=ATTENTION)
    eager_only = ScenarioReport("a.py", "A", "cpu", "x", "2.14.1", 1, eager=ModeResult(1, (attention,), 1, None))
    assert fast_path_note(eager_only).notes == ()
    compiled = ModeResult(1, (Kernel("cpp_fused_0", "cpp_fused_0", 1, 1.0),), 1, None)
    (note,) = fast_path_note(replace(eager_only, compiled=compiled)).notes
    assert note.startswith(f"{ATTENTION} ran eagerly only")
