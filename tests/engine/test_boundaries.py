"""Why compiled kernels stayed apart: on functions the course does not contain, every boundary the engine
finds has a reason of the right kind, on the CPU (Inductor's C++ kernels, measured) and in the CUDA preview
(Inductor's Triton code generation), and a fully fused function has none.

The engine tests compile for real; the shared Inductor cache (``conftest``) keeps the C++ kernels warm, but the
scheduler runs every time (``fusion_watch`` bypasses Inductor's graph cache on purpose).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import measure
from support.locations import DATA

from kernel_tui.engine.compiler.boundaries import (
    compiled_boundaries,
    node_kernels,
    reason_kind,
    reason_words,
    wrapper_calls,
)
from kernel_tui.engine.compiler.fusion_watch import GraphFusion, NodeFacts, PairFacts
from kernel_tui.model.names.names import is_generated_kernel
from kernel_tui.model.report.boundary import EXPERIMENTS, KINDS, Boundary
from kernel_tui.model.report.kernel import Kernel
from kernel_tui.model.report.mode_result import ModeResult
from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.report.report_schema import checked_report
from kernel_tui.text.by_line import annotated_lines
from kernel_tui.text.parts.boundary_text import NOT_READ_IN_TRAINING, boundary_lines, kernel_note, pair_text
from kernel_tui.transport.client import EngineClient

BOUNDARIES = DATA / "boundaries"

# Per function, per device: the kind of each boundary in launch order, and whether the two sides of the
# reduction and the scatter share one C++ kernel (two loops of one kernel) on the CPU.
EXPECTED: dict[str, dict[str, list[str]]] = {
    "matmul_then_tanh.py": {"cpu": ["library"], "cuda-preview": ["library"]},
    "sum_then_scale.py": {"cpu": ["reduction"], "cuda-preview": ["reduction", "reduction"]},
    "break_between_chains.py": {"cpu": ["graph_break"], "cuda-preview": ["graph_break"]},
    "scatter_in_place.py": {"cpu": ["mutation", "mutation"], "cuda-preview": ["mutation", "mutation"]},
    "fully_fused.py": {"cpu": [], "cuda-preview": []},
    "two_encoder_layers.py": {"cpu": ["library"], "cuda-preview": ["library"]},
}


def _check(report: ScenarioReport, name: str) -> None:
    assert report.error is None, report.error.one_line()
    compiled = report.compiled
    assert compiled is not None
    # A library operator whose passes are rows nested under it (a fused layer on the CPU) goes by its own name.
    kernel_names = {kernel.name for kernel in compiled.kernels} | {kernel.op for kernel in compiled.kernels}
    assert [b.kind for b in compiled.boundaries] == EXPECTED[name][report.device], compiled.boundaries
    for boundary in compiled.boundaries:
        # Every boundary is between kernels the table shows, and has its reason in both voices.
        assert {boundary.producer, boundary.consumer} <= kernel_names, (boundary, kernel_names)
        assert boundary.kind in KINDS and boundary.reason and boundary.inductor
        assert boundary.lines and boundary.buffer_bytes, boundary
        assert boundary.experiment is None or boundary.experiment in EXPERIMENTS
    if name == "matmul_then_tanh.py":
        (library,) = compiled.boundaries
        assert "library call" in library.reason and library.experiment == "max_autotune"
        assert "extern" in library.inductor and library.lines == (14,)
        assert library.buffer_bytes == 64 * 64 * 4  # the product, float32
    if name == "break_between_chains.py":
        (crossing,) = compiled.boundaries
        assert "graph break at line 13" in crossing.reason and crossing.lines == (14,)
        assert crossing.producer != crossing.consumer and crossing.experiment == "fullgraph"
    if name == "sum_then_scale.py":
        last = compiled.boundaries[-1]
        assert "65,536" in last.reason and "needs the finished" in last.reason
    if name == "scatter_in_place.py":
        assert "in place" in compiled.boundaries[0].reason
    if name == "two_encoder_layers.py":
        # Two calls of one operator: not "two loops of one kernel", and not named by its overload (``default``).
        (layers,) = compiled.boundaries
        assert layers.producer == layers.consumer == "aten::_transformer_encoder_layer_fwd"
        assert layers.reason.startswith("the encoder layer (PyTorch's fast path) is a library call"), layers.reason
        assert pair_text(layers).startswith("aten::_transformer_encoder_layer_fwd → aten::_transformer_encoder")


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_cpu_boundary_has_a_reason_of_its_kind(engine: EngineClient, name: str) -> None:
    report = measure(engine, BOUNDARIES / name)
    _check(report, name)
    compiled = report.compiled
    assert compiled is not None
    one_kernel = [b for b in compiled.boundaries if b.producer == b.consumer and is_generated_kernel(b.producer)]
    # The C++ backend writes a reduction's loop and the loop after it into one kernel: the boundary says so.
    assert all(b.reason.startswith("two loops of one kernel") for b in one_kernel)
    if name in ("sum_then_scale.py", "scatter_in_place.py"):
        assert one_kernel == list(compiled.boundaries)
        assert "CppScheduling" in compiled.boundaries[0].inductor or "no shared data" in compiled.boundaries[0].inductor


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_preview_boundary_has_a_reason_of_its_kind(preview_engine: EngineClient, name: str) -> None:
    report = measure(preview_engine, BOUNDARIES / name)
    _check(report, name)
    compiled = report.compiled
    assert compiled is not None
    # Triton kernels hold one scheduler node each: a preview's boundaries are always between two launches.
    assert all(b.producer != b.consumer or not is_generated_kernel(b.producer) for b in compiled.boundaries)


def test_the_kind_follows_what_the_nodes_are() -> None:
    def node(**facts: object) -> NodeFacts:
        base: dict[str, object] = dict(
            name="op0", written=("buf0",), read=(), mutated=(), library=None, template=False, reduction=False,
            elements=1024, reduced=None, aten_ops=("add",), device="cpu",
        )  # fmt: skip
        return NodeFacts(**{**base, **facts})  # type: ignore[arg-type]

    pointwise = node()
    assert reason_kind(node(library="extern_kernels.mm"), pointwise, "node1 is extern") == "library"
    assert reason_kind(node(template=True), pointwise, "template epilogue not satisfied") == "template"
    assert reason_kind(node(reduction=True, elements=1, reduced=1024), pointwise, "") == "reduction"
    assert reason_kind(pointwise, node(mutated=("buf0",)), "no shared data") == "mutation"
    assert reason_kind(pointwise, node(elements=7), "nodes numel incompatibility") == "sizes"
    assert reason_kind(pointwise, pointwise, "exceeds max fusion") == "too_many"
    assert reason_kind(pointwise, pointwise, "will create cycle") == "order"
    assert reason_kind(pointwise, node(device="cuda"), "device mismatch (cpu vs cuda)") == "device"
    assert reason_kind(pointwise, pointwise, "Fusion will increase peak memory") == "declined"


def test_wrapper_calls_name_kernels_and_library_calls_with_their_buffers() -> None:
    # As Inductor 2.14 writes a wrapper's call(), CPU and GPU.
    source = """
def call(self, args):
        arg0_1, arg1_1 = args
        buf0 = empty_strided_cpu((64, 64), (64, 1), torch.float32)
        extern_kernels.mm(arg0_1, arg1_1, out=buf0)
        buf1 = buf0; del buf0  # reuse
        cpp_fused_relu_0(buf1)
        triton_poi_fused_cos_2.run(buf0, buf2, 4096, stream=raw_stream0)
        buf3 = torch.ops.aten.sort.stable(buf2, dim=0)
        return (buf1, )
"""
    assert wrapper_calls(source) == [
        ("extern_kernels.mm", frozenset({"arg0_1", "arg1_1", "buf0"})),
        ("cpp_fused_relu_0", frozenset({"buf1"})),
        ("triton_poi_fused_cos_2", frozenset({"buf0", "buf2"})),
        ("torch.ops.aten.sort.stable", frozenset({"buf2", "buf3"})),
    ]


def _node(name: str, written: str, library: str | None = None) -> NodeFacts:
    return NodeFacts(
        name=name, written=(written,), read=(), mutated=(), library=library, template=False, reduction=False,
        elements=1024, reduced=None, aten_ops=(), device="cpu",
    )  # fmt: skip


ENCODER = "torch.ops.aten._transformer_encoder_layer_fwd.default"
ENCODER_AND_CONV_NODES = [
    _node("op0", "buf0", ENCODER),
    _node("op1", "buf1"),
    _node("op2", "buf2"),
    _node("op3", "buf3", "extern_kernels.convolution"),
    _node("op4", "buf4"),
]
"""An encoder layer in eval mode (one library call) beside a conv block, as Inductor 2.14 schedules them."""


@pytest.mark.parametrize(
    ("calls", "expected"),
    [
        (
            # C++: one kernel holds the two weight copies' loops; the encoder, node 0, is called last.
            """        cpp_fused_convolution_0(arg15_1, arg13_1, buf1, buf2)
        buf3 = extern_kernels.convolution(buf1, buf2, stride=(1, 1))
        cpp_fused__native_batch_norm_legit_no_training_relu_1(buf4, buf3, arg16_1)
        buf0 = torch.ops.aten._transformer_encoder_layer_fwd.default(arg0_1, arg1_1)""",
            [
                ENCODER,
                "cpp_fused_convolution_0",
                "cpp_fused_convolution_0",
                "extern_kernels.convolution",
                "cpp_fused__native_batch_norm_legit_no_training_relu_1",
            ],
        ),
        (
            # Triton: nodes 1 and 2 are kernels 1 and 0.
            """        triton_poi_fused_convolution_0.run(arg13_1, buf2, 864, stream=stream0)
        triton_poi_fused_convolution_1.run(arg15_1, buf1, 6144, stream=stream0)
        buf3 = extern_kernels.convolution(buf1, buf2, stride=(1, 1))
        triton_poi_fused_relu_2.run(buf4, buf3, arg16_1, 16384, stream=stream0)
        buf0 = torch.ops.aten._transformer_encoder_layer_fwd.default(arg0_1, arg1_1)""",
            [
                ENCODER,
                "triton_poi_fused_convolution_1",
                "triton_poi_fused_convolution_0",
                "extern_kernels.convolution",
                "triton_poi_fused_relu_2",
            ],
        ),
    ],
    ids=["cpu", "triton"],
)
def test_each_node_is_the_call_that_writes_its_buffer_whatever_order_the_wrapper_calls_them_in(
    calls: str, expected: list[str]
) -> None:
    # The encoder's node came first and its call last: every node after it was placed nowhere, and the conv
    # block's three boundaries were not shown (3 December).
    graph = GraphFusion(nodes=ENCODER_AND_CONV_NODES, wrapper=f"def call(self, args):\n{calls}\n")
    assert node_kernels(graph) == expected


def test_no_boundary_from_a_library_call_to_itself() -> None:
    """Attention's results are unpacked by a MultiOutput node with no kernel of its own: placed on the projection
    that reads it, it made a boundary from that ``addmm`` to itself after every attention (issue 56)."""
    attention = "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu.default"
    nodes = [
        _node("op5", "buf5", attention),
        _node("op6", "buf6", "MultiOutput"),
        _node("op7", "buf7", "extern_kernels.addmm"),
    ]
    wrapper = f"""def call(self, args):
        buf5 = {attention}(buf4, arg1_1)
        buf6 = buf5[0]
        buf7 = extern_kernels.addmm(arg2_1, buf6, arg3_1)
"""
    pairs = [PairFacts(0, 1, "buf5", 64, False, ()), PairFacts(1, 2, "buf6", 64, False, ())]
    found = compiled_boundaries([GraphFusion(nodes=nodes, pairs=pairs, wrapper=wrapper)], [], [])
    assert [(b.producer, b.consumer, b.buffer) for b in found] == [(attention, "extern_kernels.addmm", "buf5")]


def test_a_library_boundary_names_whose_code_the_call_runs() -> None:
    copy = _node("op1", "buf1")

    def words(library: str, device: str) -> str:
        call = replace(_node("op3", "buf3", library), device=device)
        return reason_words("library", replace(copy, device=device), call, "buf1", "")

    assert "(cuDNN)" in words("extern_kernels.convolution", "cuda")
    assert "(oneDNN)" in words("extern_kernels.convolution", "cpu")
    assert "(cuBLAS)" in words("extern_kernels.addmm", "cuda")
    assert "(an ATen operator's own kernel)" in words(ENCODER, "cuda")


def _saved_report() -> ScenarioReport:
    lines = (DATA / "preview" / "course_sm90.jsonl").read_text().splitlines()
    data = next(json.loads(line) for line in lines if "27_why_kernels_stay_apart" in line)
    return ScenarioReport.from_dict(data)


def test_boundaries_survive_json_and_the_schema() -> None:
    report = _saved_report()
    assert report.compiled is not None and report.compiled.boundaries
    assert all(isinstance(b, Boundary) and isinstance(b.lines, tuple) for b in report.compiled.boundaries)
    data = report.to_dict()
    checked_report(data)
    assert ScenarioReport.from_dict(json.loads(json.dumps(data))) == report


def test_boundaries_read_under_the_tables_on_the_lines_and_on_the_rows() -> None:
    report = _saved_report()
    compiled = report.compiled
    assert compiled is not None and report.source is not None and report.eager is not None
    under = boundary_lines(compiled)
    assert 0 < len(under) <= len(compiled.boundaries) and all(line.startswith("apart: ") for line in under)
    assert "try the variant max_autotune" in under[0]
    by_line = annotated_lines(report.source, report)
    assert any("apart: " in line and "[library]" in line for line in by_line)
    matmul = next(kernel for kernel in compiled.kernels if kernel.name == "extern_kernels.mm")
    division = next(kernel for kernel in compiled.kernels if "div" in kernel.name)
    assert "library" in kernel_note(division, compiled) and kernel_note(matmul, compiled) == ""
    eager_mm = next(kernel for kernel in report.eager.kernels if "mm" in kernel.name)
    assert "[library]" in kernel_note(eager_mm, compiled, eager=True)


def _block_boundary(block: int) -> Boundary:
    return Boundary(
        producer=f"cpp_fused_native_layer_norm_{2 * block}",
        consumer=f"cpp_fused_gelu_{2 * block + 1}",
        buffer=f"buf{block}",
        buffer_bytes=1024,
        kind="library",
        reason="the matmul is a library call (mkldnn / a BLAS): it cannot take the GELU as an epilogue",
        inductor="",
        experiment="max_autotune",
    )


def test_a_models_boundaries_read_one_line_per_reason_and_module_blocks_folded() -> None:
    """Twelve blocks that stay apart for one reason are one line, not twelve (issue 56)."""
    boundaries = tuple(_block_boundary(block) for block in range(12))
    kernels = tuple(
        Kernel(f"cpp_fused_gelu_{2 * block + 1}", "k", 1, None, module=f"model.h.{block}.mlp") for block in range(12)
    )
    compiled = ModeResult(12, kernels, 0, None, boundaries=boundaries)
    (line,) = boundary_lines(compiled)
    assert line == (
        "apart: cpp_fused_native_layer_norm_0 → cpp_fused_gelu_1 (buf0, 1.0 KiB) and 11 more, 12.0 KiB in all in "
        "model.h.*.mlp (×12) [library]: the matmul is a library call (mkldnn / a BLAS): it cannot take the GELU as an "
        "epilogue; try the variant max_autotune (options={'max_autotune': True})"
    )


def test_a_training_step_says_why_it_has_no_boundaries_and_names_its_layout_conversions() -> None:
    step = ModeResult(1, (Kernel("cpp_fused_mul_0", "k", 1, None, section="backward"),), 0, None)
    assert boundary_lines(step) == [NOT_READ_IN_TRAINING]
    copy = Kernel("cpp_fused_0", "k", 1, None, bytes_read=2**20, bytes_written=2**20, section="forward", layout="why")
    assert boundary_lines(replace(step, kernels=(copy, *step.kernels))) == [
        NOT_READ_IN_TRAINING,
        "layout: cpp_fused_0 moves 2.0 MiB per call of fn: why",
    ]
    assert boundary_lines(replace(step, kernels=(replace(step.kernels[0], section=None),))) == []


@pytest.mark.parametrize(
    ("boundary", "problem"),
    [
        (1, "compiled.boundaries.0: is a number 1, not an object"),
        ({"producer": "a"}, "compiled.boundaries.0.consumer: is missing"),
        ("lines", "compiled.boundaries.0.lines.0: is text 'x', not a whole number"),
    ],
)
def test_a_saved_file_with_a_broken_boundary_is_refused_in_one_line(
    tmp_path: Path, boundary: object, problem: str
) -> None:
    from kernel_tui.model.storage.results_file import ResultsFileError, read_results

    data = _saved_report().to_dict()
    first = data["compiled"]["boundaries"][0]
    data["compiled"]["boundaries"] = [{**first, "lines": ["x"]} if boundary == "lines" else boundary]
    saved = tmp_path / "saved.jsonl"
    saved.write_text(json.dumps(data) + "\n")
    with pytest.raises(ResultsFileError) as refused:
        read_results(saved)
    assert str(refused.value) == f"{saved}: line 1: not a kernel-tui report ({problem})"
