"""FLOPs per operator and per kernel, intensity and its class: the counting rules checked by hand on real
tensors through the dispatcher (no compile, fast), the roofline fields as they travel in a report, and (marked
``engine``) each kernel's own FLOPs in real runs."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
import torch
from conftest import WriteScenario, measure

from kernel_tui.engine.counting.flops import (
    OpFlops,
    compiled_kernel_flops,
    eager_flops,
    eager_kernel_flops,
    totals_by_op,
    with_flops,
    with_roofline_fields,
)
from kernel_tui.model.meaning.roofline import (
    COMPUTE_BOUND,
    MEMORY_BOUND,
    OVERHEAD_BOUND,
    dominant_bound,
    ridge_point,
    roof_time_us,
)
from kernel_tui.model.report.kernel import Kernel
from kernel_tui.model.report.mode_result import ModeResult
from kernel_tui.model.report.report import Ceilings, ScenarioReport
from kernel_tui.text.parts.roofline_text import format_bound, format_flops, format_intensity
from kernel_tui.text.render import scenario_view
from kernel_tui.transport.client import EngineClient

M, K, N = 8, 16, 4


def counted(fn: Callable[..., Any], *args: Any) -> list[tuple[str, int | None]]:
    return [(op.name, op.flops) for op in eager_flops(fn, args)]


def test_mm_is_two_operations_per_term() -> None:
    a, b = torch.randn(M, K), torch.randn(K, N)
    assert counted(torch.mm, a, b) == [("aten::mm", 2 * M * K * N)]


def test_addmm_counts_its_product_by_torchs_formula() -> None:
    bias, a, b = torch.randn(N), torch.randn(M, K), torch.randn(K, N)
    # torch.utils.flop_counter's addmm formula is the product's; the bias add is not a separate operator here.
    assert counted(torch.addmm, bias, a, b) == [("aten::addmm", 2 * M * K * N)]


def test_elementwise_is_one_operation_per_element_written_and_reduction_per_element_read() -> None:
    a, b = torch.randn(10, 100), torch.randn(100)  # b broadcasts: the add still writes 1000 elements
    assert counted(lambda a, b: (a + b).relu(), a, b) == [("aten::add", 1000), ("aten::relu", 1000)]
    assert counted(lambda a: a.sum(dim=1), a) == [("aten::sum", 1000)]
    assert counted(lambda a: a.amax(), a) == [("aten::amax", 1000)]


def test_copies_do_no_arithmetic_and_unknown_operators_stay_unknown() -> None:
    a = torch.randn(10, 100)
    assert counted(lambda a: a.t().contiguous(), a) == [("aten::clone", 0)]
    (sort,) = {name: flops for name, flops in counted(lambda a: torch.sort(a).values, a)}.items()
    assert sort == ("aten::sort", None)


def row(
    name: str,
    ops: tuple[str, ...],
    *,
    kind: str = "kernel",
    bytes_read: int = 100,
    time_us: float = 1.0,
    bytes_written: int = 100,
) -> Kernel:
    return Kernel(name, name, 1, time_us, bytes_read=bytes_read, bytes_written=bytes_written, kind=kind, aten_ops=ops)


OPS = [OpFlops("aten::mm", 1024), OpFlops("aten::add", 32), OpFlops("aten::relu", 32), OpFlops("aten::add", 8)]


def test_a_compiled_kernel_has_the_flops_of_the_operators_it_replaced() -> None:
    totals = totals_by_op(OPS)
    assert totals == {"aten::mm": 1024, "aten::add": 40, "aten::relu": 32}
    compiled = compiled_kernel_flops(
        [
            row("aten::addmm", ("aten::addmm", "aten::mm")),
            row("cpp_fused_add_relu_0", ("aten::add", "aten::relu")),
            row("Memcpy DtoH", (), kind="memcpy"),
            row("aten::_foreach_copy_", ("aten::_foreach_copy_",)),
        ],
        totals,
    )
    # A CUDA graph's input copy, like a host copy, moves data and computes nothing.
    assert [kernel.flops for kernel in compiled] == [1024, 40 + 32, 0, 0]


def test_work_split_between_kernels_is_unknown_not_zero() -> None:
    totals = totals_by_op(OPS)
    compiled = compiled_kernel_flops(
        [
            row("cpp_fused_add_0", ("aten::add",)),
            row("cpp_fused_add_relu_1", ("aten::add", "aten::relu")),
            row("cpp_fused_1", ()),
        ],
        totals,
    )
    assert [kernel.flops for kernel in compiled] == [None, None, None]
    eager = eager_kernel_flops(
        [row("aten::mm", ("aten::mm",)), row("aten::sort", ("aten::sort",))],
        totals_by_op([*OPS, OpFlops("aten::sort", None)]),
    )
    assert [kernel.flops for kernel in eager] == [1024, None]


def test_a_running_sum_is_one_operation_per_element_and_a_compiled_random_draw_has_flops() -> None:
    """Hugging Face's GPT-2 makes its position ids with ``cumsum``; a compiled dropout draws its seeds with a
    library ``randint``; a ResNet's max-pool gradient is a scatter, compiled: all were unknown, and so was each
    model's total (issue 56)."""
    from kernel_tui.engine.counting.flops import library_flops

    a = torch.randn(10, 100)
    assert counted(lambda a: a.cumsum(dim=1), a) == [("aten::cumsum", 1000)]
    a4 = torch.randn(1, 2, 8, 8)
    pooled, where = torch.ops.aten.max_pool2d_with_indices(a4, [2, 2])
    grad = torch.randn(pooled.shape)
    backward = counted(
        lambda g: torch.ops.aten.max_pool2d_with_indices_backward(g, a4, [2, 2], [2, 2], [0, 0], [1, 1], False, where),
        grad,
    )
    assert backward == [("aten::max_pool2d_with_indices_backward", 2 * 4 * 4)], "one add per gradient"
    assert counted(lambda s: torch.zeros(8).scatter_reduce_(0, torch.tensor([1, 1, 3]), s, "amax"), torch.randn(3))[
        -1
    ] == (
        "aten::scatter_reduce_",
        3,
    )
    seeds = torch.randint(0, 2**31, (3,))
    assert library_flops("aten::randint", (0, 2**31, [3]), {}, seeds) == 3
    # The CPU's attention may draw for its dropout, but is no draw: its FLOPs are its formula's, from eager.
    q = torch.randn(1, 2, 4, 8)
    out = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, q, q)
    assert library_flops("aten::_scaled_dot_product_flash_attention_for_cpu", (q, q, q), {}, out) is None


def _step(rows: list[Kernel], ops: list[OpFlops], recomputed: tuple[tuple[str, int | None], ...] = ()) -> Any:
    report = ScenarioReport("s.py", "s", "cpu", "EPYC", "2.14", 64)
    compiled = ModeResult(len(rows), tuple(rows), 100 * len(rows), None, recomputed_flops=recomputed)
    return with_flops(replace(report, compiled=compiled), ops, None).compiled


def test_a_training_steps_total_counts_the_work_its_backward_recomputes() -> None:
    """The partitioner recomputes a tanh in backward: the kernel that does it is given its FLOPs."""
    ops = [OpFlops("aten::tanh", 64), OpFlops("aten::tanh_backward", 64, "backward")]
    rows = [
        replace(row("k0", ("aten::tanh",)), section="forward"),
        replace(row("k1", ("aten::tanh", "aten::tanh_backward")), section="backward"),
    ]
    assert _step(rows, ops).kernels[1].flops is None, "a recomputed tanh is work backward's operators do not hold"
    step = _step(rows, ops, (("aten::tanh", 64),))
    assert [kernel.flops for kernel in step.kernels] == [64, 128] and step.flops == 192


def test_a_forward_kernel_named_for_a_backward_operator_leaves_the_steps_total_known() -> None:
    """AOTAutograd merges a layer norm's 1/σ of forward and of backward: a forward kernel is named for
    ``native_layer_norm_backward``, whose work the step's operators still count once."""
    ops = [OpFlops("aten::native_layer_norm", 100), OpFlops("aten::native_layer_norm_backward", 300, "backward")]
    both = ("aten::native_layer_norm", "aten::native_layer_norm_backward")
    rows = [
        replace(row("k0", both), section="forward"),
        replace(row("k1", ("aten::native_layer_norm_backward",)), section="backward"),
    ]
    assert _step(rows, ops).flops == 400


def test_intensity_classes_against_a_given_ridge() -> None:
    kernels = with_roofline_fields(
        [
            Kernel("mm", "mm", 1, 10.0, bytes_read=300, bytes_written=100, flops=4000),
            Kernel("add", "add", 1, 5.0, bytes_read=800, bytes_written=400, flops=100),
            Kernel("sort", "sort", 1, 5.0, bytes_read=800, bytes_written=400),
        ],
        ridge=2.0,
    )
    assert [k.intensity for k in kernels] == [10.0, 100 / 1200, None]
    assert [k.bound for k in kernels] == [COMPUTE_BOUND, MEMORY_BOUND, None]
    assert kernels[0].gflops == pytest.approx(4000 / 10.0 / 1e3)
    assert with_roofline_fields(kernels, ridge=20.0)[0].bound == MEMORY_BOUND
    assert ridge_point(bandwidth_gbs=50.0, matmul_gflops=1000.0) == 20.0
    assert dominant_bound([(MEMORY_BOUND, 1.0), (COMPUTE_BOUND, 3.0), (None, 100.0)]) == (COMPUTE_BOUND, 0.75)


def test_far_below_both_roofs_is_overhead_bound_judged_on_the_work_not_the_load() -> None:
    ceilings = Ceilings(bandwidth_gbs=10.0, matmul_gflops=50.0)
    tiny = Kernel("mm", "mm", 1, 4.0, bytes_read=2048, bytes_written=1024, flops=8192)  # 16 by 16: 0.31 us at the roof
    quick = replace(tiny, time_us=0.4)
    large = Kernel("tanh", "tanh", 1, 30000.0, bytes_read=4 << 20, bytes_written=4 << 20, flops=1 << 20)
    shown = with_roofline_fields([tiny, quick, large], ceilings.ridge, ceilings)
    assert [k.bound for k in shown] == [OVERHEAD_BOUND, MEMORY_BOUND, MEMORY_BOUND], (
        "a slow large kernel (a busy machine) stays memory-bound; a tiny one near its roof keeps its side"
    )
    assert roof_time_us(8192, 3072, 10.0, 50.0) == pytest.approx(0.3072)
    assert format_bound(OVERHEAD_BOUND, short=True) == "ovhd"


def _report() -> ScenarioReport:
    eager = ModeResult(
        kernel_count=2,
        kernels=(
            row("aten::mm", ("aten::mm",), bytes_read=96, bytes_written=32, time_us=3.0),
            row("aten::sort", ("aten::sort",), time_us=1.0),
        ),
        bytes_total=328,
        time_us=4.0,
    )
    report = ScenarioReport("s.py", "s", "cpu", "EPYC", "2.14", 64, eager=eager)
    return with_flops(report, [OpFlops("aten::mm", 1024), OpFlops("aten::sort", None)], Ceilings(10.0, 40.0, "float32"))


def test_the_json_carries_flops_intensity_and_ceilings_and_unknown_is_null() -> None:
    report = _report()
    data = json.loads(json.dumps(report.to_dict()))
    assert data["ceilings"] == {
        "bandwidth_gbs": 10.0,
        "matmul_gflops": 40.0,
        "dtype": "float32",
        "conditions": None,
        "measured_at": None,
        "ridge": 4.0,
    }
    mm, sort = data["eager"]["kernels"]
    # 1,024 FLOPs take 0.03 us at the roof and the call took 3 us: far below both roofs.
    assert (mm["flops"], mm["intensity"], mm["bound"]) == (1024, 1024 / 128, OVERHEAD_BOUND)
    assert (sort["flops"], sort["intensity"], sort["bound"]) == (None, None, None)
    assert data["eager"]["flops"] is None and data["eager"]["intensity"] is None  # one operator not counted
    assert data["eager"]["bound"] == OVERHEAD_BOUND  # the only classified kernel time
    assert ScenarioReport.from_dict(data) == report


def test_unknown_flops_read_as_a_question_mark_never_zero() -> None:
    assert format_flops(None) == "?" and format_intensity(None) == "?"
    assert format_flops(0) == "0" and format_flops(2_147_483_648) == "2.15 G"
    from rich.console import Console

    console = Console(width=140, record=True)
    console.print(scenario_view(_report(), width=140))
    text = console.export_text()
    assert "ridge 4.00 FLOP/B" in text
    sort_line = next(line for line in text.splitlines() if "aten::sort" in line and "eager" in line)
    assert " ? " in sort_line and "unknown" in sort_line


def test_the_lab_report_has_the_roofline_as_a_table() -> None:
    from kernel_tui.text.markdown_report import scenario_markdown

    text = scenario_markdown(_report())
    assert "#### Compute or memory (roofline)" in text
    assert "Ceilings: copy 10.0 GB/s · matmul 40.0 GFLOP/s (float32) · ridge 4.00 FLOP/B." in text
    assert "| eager | `aten::mm` | 1.02 k | 8.00 | " in text and "| overhead-bound |" in text
    assert "| eager | `aten::sort` | ? | ? |" in text and "| unknown |" in text


def test_norms_softmax_attention_and_convolution_are_counted() -> None:
    """Each by its decomposition's pointwise and reduction parts, or torch's formula of its shapes."""
    x = torch.randn(4, 8, 32)
    norm = torch.nn.LayerNorm(32)
    for name, flops in counted(lambda x: norm(x), x) + counted(lambda x: x.softmax(-1), x):
        assert flops, name
    assert all(flops for _, flops in counted(lambda x: torch.nn.functional.dropout(x, 0.1, training=True), x))
    batch = torch.nn.BatchNorm2d(3).eval()
    image = torch.randn(2, 3, 8, 8)
    assert all(flops for _, flops in counted(batch, image))
    conv = torch.nn.Conv2d(3, 5, 3, padding=1)
    ((_, conv_flops),) = counted(conv, image)
    assert conv_flops == 2 * (2 * 5 * 8 * 8) * (3 * 3 * 3)  # 2·outputs·(in channels·kernel)
    q = torch.randn(2, 2, 16, 8)
    (attention,) = counted(lambda q: torch.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True), q)
    assert attention[1] == 2 * (2 * 2 * 16 * 16 * 8) * 2  # scores and output: two products of 2·B·H·L·S·E


def test_a_gather_reads_the_rows_it_picks_not_the_table() -> None:
    from kernel_tui.engine.counting.flops import eager_bytes_and_flops

    table = torch.nn.Embedding(50_000, 64)
    ids = torch.randint(0, 50_000, (8, 16))
    (record,), _ = eager_bytes_and_flops(table, (ids,))
    rows = 8 * 16 * 64 * 4
    assert rows <= record.bytes_read <= 2 * rows, "the rows gathered (and the ids), not the 12.8 MB table"
    scores, targets = torch.randn(32, 10_000), torch.randint(0, 10_000, (32,))
    nll = [r for r in eager_bytes_and_flops(torch.nn.functional.nll_loss, (scores, targets))[0]]
    picked = 32 * 4 + 32 * 8  # one score per target, and the targets
    assert [r.name for r in nll] == ["aten::nll_loss_forward"] and nll[0].bytes_read <= 2 * picked


# FLOPs on each kernel's own row, in real runs: a bias-free nn.Linear in a training step (one operator, mm, in
# forward and in backward), and two products compiled as an mm and an addmm.

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


def _row_flops(rows: tuple[Kernel, ...], section: str | None = None) -> dict[str, int | None]:
    return {row.name: row.flops for row in rows if row.section == section}


@pytest.mark.engine
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


@pytest.mark.engine
def test_each_product_has_its_own_flops_compiled(engine: EngineClient, write_scenario: WriteScenario) -> None:
    report = measure(engine, write_scenario(TWO_PRODUCTS))
    assert report.error is None, report.error.one_line()
    assert report.compiled is not None and report.eager is not None
    rows = _row_flops(report.compiled.kernels)
    product = 2 * 64 * 128 * 256  # each of the two
    assert rows["aten::mm"] == product, rows
    assert rows["aten::addmm"] == product + 64 * 128, "the second product and the residual add it absorbed"
    assert report.compiled.flops == report.eager.flops == 2 * product + 64 * 256 + 64 * 128


def test_a_library_row_of_two_operators_products_counts_each_once() -> None:
    """Compiled for a GPU, a GPT's biased linears are ``extern_kernels.mm`` calls, each bias added in a kernel
    after, in one row with the bias-free head's ``mm``: the row's FLOPs, all given to ``mm``, left the ``addmm``
    products counted again by the bias kernels (the preview's GPT forward read 6.07 M for eager's 3.72 M)."""
    ops = [OpFlops("aten::addmm", 3000), OpFlops("aten::mm", 400)]
    library = [
        replace(
            row(
                "extern_kernels.addmm",
                ("aten::addmm",),
            ),
            op="aten::addmm",
            flops=1000,
        ),
        replace(
            row(
                "extern_kernels.mm",
                ("aten::mm",),
            ),
            op="aten::mm",
            flops=400 + 2000,
        ),
    ]
    bias = [row(f"triton_poi_fused_addmm_{n}", ("aten::addmm", "aten::view")) for n in range(2)]
    assert _step([*library, *bias], ops).flops == 3400


def test_a_decomposed_graphs_own_operators_are_counted_by_the_same_rules() -> None:
    """A training preview's graphs are decomposed before Inductor compiles them: their kernels name ``prims.iota``
    (an arange), a cast, an embedding's gradient as an accumulating masked put, none of which eager ran."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    from kernel_tui.engine.counting.flops import graph_flops

    def step(ids: torch.Tensor, grad: torch.Tensor) -> torch.Tensor:
        positions: torch.Tensor = torch.ops.prims.iota(
            16, start=0, step=1, dtype=torch.int64, device="cpu", requires_grad=False
        )
        table = torch.zeros(96, 64)
        mask = ids.ge(0).unsqueeze(-1)
        put = torch.ops.aten._unsafe_masked_index_put_accumulate(table, mask, [ids], grad)
        half: torch.Tensor = torch.ops.prims.convert_element_type(put, torch.float16)
        return half.sum() + positions.sum()

    with FakeTensorMode(allow_non_fake_inputs=True) as fake:
        ids, grad = fake.from_tensor(torch.zeros(2, 16, dtype=torch.int64)), fake.from_tensor(torch.zeros(2, 16, 64))
        graph = torch.fx.experimental.proxy_tensor.make_fx(step)(ids, grad)
    counted = {(op.name, op.flops) for op in graph_flops(graph, "backward")}
    assert {("prims.iota", 0), ("prims.convert_element_type", 0)} <= counted
    assert ("aten::_unsafe_masked_index_put_accumulate", 2 * 16 * 64) in counted, "one add per gradient put"
    assert ("aten::ge", 2 * 16) in counted


def test_a_compiled_max_pool_that_keeps_offsets_is_counted_as_the_max_pool() -> None:
    """Inductor decomposes a ResNet's max-pool into one that keeps each maximum's offset in its window, then
    makes the indices backward needs from the offsets: the pool's work, and none."""
    import torch._inductor.lowering  # registers the prims Inductor's decompositions use

    from kernel_tui.engine.counting.flops import op_flops

    x, window = torch.randn(2, 8, 16, 16), ([3, 3], [2, 2], [1, 1])
    pool = torch.ops.aten.max_pool2d_with_indices.default
    eager = op_flops("aten::max_pool2d_with_indices", pool, (x, *window), {}, pool(x, *window))
    prim = torch.ops.prims._low_memory_max_pool_with_offsets.default
    values, offsets = prim(x, *window, [1, 1], False)
    assert eager == values.numel() * 3 * 3, "one comparison per element of each window"
    plain = torch.ops.aten.max_pool2d.default  # what eager runs where no index is kept (torch 2.11, no grad)
    assert op_flops("aten::max_pool2d", plain, (x, *window), {}, plain(x, *window)) == eager
    assert op_flops("prims::_low_memory_max_pool_with_offsets", prim, (x, *window, [1, 1], False), {}, offsets) == eager
    to_indices = torch.ops.prims._low_memory_max_pool_offsets_to_indices.default
    args = (offsets, [3, 3], [16, 16], *window[1:], [1, 1])
    assert op_flops("prims::_low_memory_max_pool_offsets_to_indices", to_indices, args, {}, to_indices(*args)) == 0


def test_a_constant_made_from_python_data_is_copied_with_no_arithmetic() -> None:
    """nanoGPT's ``x[:, [-1], :]`` puts its index list in the graph as a constant, copied fresh on each call
    (``lift_fresh_copy``): with no rule, its FLOPs were unknown, and so were those of the preview's compiled
    training step."""
    from kernel_tui.engine.counting.flops import op_flops

    copy = torch.ops.aten.lift_fresh_copy.default
    index = torch.tensor([-1])
    assert op_flops("aten::lift_fresh_copy", copy, (index,), {}, copy(index)) == 0


def test_a_compiled_in_place_fallback_is_counted_as_the_graphs_operator() -> None:
    """Inductor runs a backward graph's ``index_put`` (nanoGPT's gradient of ``x[:, [-1], :]``) as a copy and the
    fallback kernel ``aten.index_put_``: the in-place name the graph never held left the compiled step's FLOPs
    unknown in the preview."""
    from kernel_tui.engine.counting.flops import OpFlops, _replaced_total
    from kernel_tui.model.report.kernel import Kernel

    put = Kernel(
        "aten.index_put_", "aten.index_put_", 1, None, 8, 8, section="backward", aten_ops=("aten::index_put_",)
    )
    ops = [OpFlops("aten::index_put", 64, "backward")]
    assert _replaced_total([put], ops, "backward") == 64
