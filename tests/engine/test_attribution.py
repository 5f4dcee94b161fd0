"""Attribution that is complete: every eager operator's work is credited to the compiled kernel that did it; and
every kernel of a model knows the ``nn.Module`` that launched it and, compiled, the lines of the nodes it fused.

The models (``tests/data/models/``) are a two-block GPT of width 64 defined in a file of its own that the scenario
imports, and a small conv net with a SwiGLU head whose file multiplies on two lines. Each is measured once per test
process (``_measured``) and read by several tests.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import measure
from rich.console import Console
from support.locations import REPO

from kernel_tui.engine.counting.attribution import attribute
from kernel_tui.model.report.figures import module_figure
from kernel_tui.model.report.hotspots import HotKernel, HotModule, hotspots
from kernel_tui.model.report.kernel import Kernel, ModuleWork
from kernel_tui.model.report.mode_result import ModeResult
from kernel_tui.model.report.module_table import ModuleRow, folded_modules, module_table
from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.storage.results_file import read_results, saved_form
from kernel_tui.text.kernel_order import in_order
from kernel_tui.text.parts.hotspot_text import hotspot_line
from kernel_tui.text.parts.module_text import module_table_view
from kernel_tui.text.render import scenario_view
from kernel_tui.transport.client import EngineClient

MODELS = REPO / "tests" / "data" / "models"
GPT, GPT_MODEL, CONV = MODELS / "gpt_scenario.py", MODELS / "tiny_gpt.py", MODELS / "conv_net.py"
_REPORTS: dict[Path, ScenarioReport] = {}


def eager(name: str, *ops: str, line: int = 1) -> Kernel:
    return Kernel(name, name, 1, 1.0, 8, 8, kind="op", aten_ops=ops or (name,), lines=(line,))


def compiled(name: str, *ops: str, code: str | None = None, kind: str = "kernel", nbytes: int | None = 8) -> Kernel:
    return Kernel(name, name, 1, 1.0, nbytes, nbytes, kind=kind, aten_ops=ops, code=code)


def test_an_in_place_operator_is_the_work_of_its_functional_name() -> None:
    (add_,), (kernel,) = attribute((eager("aten::add_"),), (compiled("cpp_fused_add_copy__0"),))
    assert add_.fused_into == ("cpp_fused_add_copy__0",) and kernel.aten_ops == ("aten::add_",)


def test_a_library_call_credits_every_operator_it_combines() -> None:
    rows = (eager("aten::matmul", "aten::mm", line=10), eager("aten::add", line=10), eager("aten::relu", line=11))
    (mm, add, relu), (addmm, fused) = attribute(
        rows, (compiled("aten::addmm", "aten::addmm", kind="op"), compiled("cpp_fused_relu_0"))
    )
    assert mm.fused_into == add.fused_into == ("aten::addmm",) and relu.fused_into == ("cpp_fused_relu_0",)
    assert set(addmm.aten_ops) >= {"aten::mm", "aten::add"} and addmm.lines == (10,)


def test_an_operator_that_only_places_data_goes_with_its_consumer() -> None:
    (cat, relu), (kernel,) = attribute((eager("aten::cat"), eager("aten::relu")), (compiled("cpp_fused_relu_0"),))
    assert cat.fused_into == relu.fused_into == ("cpp_fused_relu_0",)
    assert set(kernel.aten_ops) == {"aten::cat", "aten::relu"}


def test_the_code_tells_what_a_kernel_computes_beyond_its_name() -> None:
    code = "void kernel(const float* in_ptr0, float* out_ptr0) { auto tmp1 = tmp0.cos(); auto tmp2 = tmp1 / tmp3; }"
    kernels = (compiled("cpp_fused_div_0", code=code),)
    (cos, div), _ = attribute((eager("aten::cos"), eager("aten::div")), kernels)
    assert cos.fused_into == div.fused_into == ("cpp_fused_div_0",)
    triton = "tmp1 = tl_math.sin(tmp0)"
    (sin,), _ = attribute((eager("aten::sin"),), (compiled("triton_poi_fused_0", code=triton),))
    assert sin.fused_into == ("triton_poi_fused_0",)


def test_code_run_eagerly_between_graphs_keeps_its_eager_bytes() -> None:
    item = Kernel("aten::item", "aten::item", 1, 1.0, 4, 0, kind="op", aten_ops=("aten::_local_scalar_dense",))
    _, (between,) = attribute((item,), (compiled("aten::item", kind="op", nbytes=None),))
    assert (between.bytes_read, between.bytes_written, between.aten_ops) == (4, 0, ("aten::_local_scalar_dense",))


def _measured(engine: EngineClient, path: Path) -> ScenarioReport:
    if path not in _REPORTS:
        _REPORTS[path] = measure(engine, path, size=2**12)
    return _REPORTS[path]


def _line_of(path: Path, text: str) -> int:
    """The line of ``path`` that holds ``text``."""
    return next(number for number, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def _kernel(report: ScenarioReport, mode: str, part: str) -> Kernel:
    result = report.mode(mode)
    assert result is not None
    return next(kernel for kernel in result.kernels if part in kernel.name)


MODEL_PARAMS = [pytest.param(path, id=path.stem, marks=pytest.mark.xdist_group("module_paths")) for path in (GPT, CONV)]


@pytest.mark.parametrize("path", MODEL_PARAMS)
def test_every_kernel_of_a_model_knows_its_module(engine: EngineClient, path: Path) -> None:
    _check_modules(_measured(engine, path), "model" if path == GPT else "net")


def test_the_preview_names_the_modules_of_a_gpus_kernels(preview_engine: EngineClient) -> None:
    report = measure(preview_engine, GPT, size=2**12, arch=90)
    _check_modules(report, "model")
    swiglu = _kernel(report, "compiled", "silu")
    assert swiglu.name.startswith("triton_") and dict(swiglu.module_calls) == {"model.h.0.mlp": 1, "model.h.1.mlp": 1}
    assert swiglu.stack[0] == f"{GPT_MODEL}:{_line_of(GPT_MODEL, 'F.silu(self.gate(x)) * self.up(x)')}"
    # A preview times nothing: its hotspots are shares of the bytes each kernel moves.
    assert [(hot.mode, hot.measure) for hot in report.hotspots] == [("eager", "bytes"), ("compiled", "bytes")]
    assert all(hot.modules and hot.modules[0].path for hot in report.hotspots)


def _check_modules(report: ScenarioReport, root: str) -> None:
    for mode in ("eager", "compiled"):
        result = report.mode(mode)
        assert result is not None and result.kernels
        for kernel in result.kernels:
            assert kernel.module is not None and kernel.module.startswith(root), (mode, kernel.name, kernel.module)
            calls = dict(kernel.module_calls)
            assert sum(calls.values()) == kernel.calls, (mode, kernel.name, calls)
            assert all(module.startswith(kernel.module) for module in calls), (kernel.module, calls)
    # The per-module table holds every launch of the call, eager and compiled.
    assert report.modules and report.eager is not None and report.compiled is not None
    assert sum(row.eager_launches or 0 for row in report.modules) == pytest.approx(report.eager.kernel_count)
    assert sum(row.compiled_launches or 0 for row in report.modules) == pytest.approx(report.compiled.kernel_count)
    assert ScenarioReport.from_dict(report.to_dict()).modules == report.modules


@pytest.mark.xdist_group("module_paths")
def test_the_gpts_kernels_name_its_blocks_and_point_into_its_own_file(engine: EngineClient) -> None:
    report = _measured(engine, GPT)
    linear = _kernel(report, "eager", "linear")  # ten nn.Linear calls, two blocks of five, one row
    assert dict(linear.module_calls) == {
        f"model.h.{block}.{layer}": 1
        for block in (0, 1)
        for layer in ("attn.qkv", "attn.proj", "mlp.gate", "mlp.up", "mlp.down")
    }
    assert linear.stack[0] == f"{GPT_MODEL}:{_line_of(GPT_MODEL, 'self.qkv(x).split')}"  # eager: Python's own stack
    # Each layer's part of the row's time is its own launch's, as the profiler timed it: not a tenth each.
    assert len(linear.launch_time_us) == 10 and linear.time_us is not None
    own = {work.path: work.time_us or 0.0 for work in linear.module_work}
    assert set(own) == set(dict(linear.module_calls)), linear.module_work
    assert all(work.time_us is not None for work in linear.module_work), linear.module_work
    qkv = next(row for row in report.modules if row.path == "model.h.0.attn.qkv")
    assert qkv.eager_time_us == pytest.approx(linear.time_us * own["model.h.0.attn.qkv"] / sum(own.values()))
    swiglu = _kernel(report, "compiled", "silu")
    assert dict(swiglu.module_calls) == {"model.h.0.mlp": 1, "model.h.1.mlp": 1} and swiglu.module == "model.h"
    gated = _line_of(GPT_MODEL, "F.silu(self.gate(x)) * self.up(x)")
    # Nearest frame first: the line that multiplied, then the block that called the MLP, then the GPT's loop.
    assert swiglu.stack[:3] == (
        f"{GPT_MODEL}:{gated}",
        f"{GPT_MODEL}:{_line_of(GPT_MODEL, 'x + self.mlp(self.ln_2(x))')}",
        f"{GPT_MODEL}:{_line_of(GPT_MODEL, 'x = block(x)')}",
    )
    assert swiglu.lines == (_line_of(GPT, "return model(x)"),)  # the scenario's own line of it
    gate = _kernel(report, "compiled", "aten::mm")
    assert {f"model.h.{block}.mlp.{layer}" for block in (0, 1) for layer in ("gate", "up", "down")} == set(
        dict(gate.module_calls)
    )
    shown = Console(width=120, record=True, color_system=None)
    shown.print(scenario_view(report, 120))
    text = shown.export_text()
    assert "by module" in text and "model.h.*.mlp" in text and "×2" in text, text
    _check_hotspots(report, text)


def _check_hotspots(report: ScenarioReport, text: str) -> None:
    """Each mode's hotspot (issue 56): its kernels' shares are of the mode's kernel time, its modules the folded
    table's rows with their shares, most first; printed under the summary line and written in the JSON."""
    assert [(hot.mode, hot.measure) for hot in report.hotspots] == [("eager", "time"), ("compiled", "time")]
    for hot in report.hotspots:
        result = report.mode(hot.mode)
        assert result is not None
        total = sum(kernel.time_us or 0.0 for kernel in result.kernels)
        shares = sorted(((kernel.time_us or 0.0) / total for kernel in result.kernels), reverse=True)
        assert [kernel.share for kernel in hot.kernels] == pytest.approx(shares[:3])
        assert all(kernel.modules and kernel.modules[0].startswith("model") for kernel in hot.kernels)
        folded = {module.path: getattr(module.row, f"{hot.mode}_share") for module in folded_modules(report.modules)}
        # Most first; the modules of one row of launches share it by their own launches' times (ten nn.Linear calls
        # in one aten::linear).
        assert [module.share for module in hot.modules] == sorted(filter(None, folded.values()), reverse=True)[:3]
        assert all(folded[module.path] == module.share for module in hot.modules)
        heading = f"hotspot, {hot.mode}, of kernel time: {hot.kernels[0].short_name} "
        assert any(line.startswith(heading) and "layers: model" in line for line in text.splitlines()), text
    written = json.loads(json.dumps(report.to_dict()))["hotspots"]
    assert [(hot["mode"], len(hot["kernels"])) for hot in written] == [("eager", 3), ("compiled", 3)]
    assert ScenarioReport.from_dict(written_report := report.to_dict()).hotspots == report.hotspots, written_report


@pytest.mark.xdist_group("module_paths")
def test_a_compiled_kernels_lines_are_those_of_the_nodes_it_fused(engine: EngineClient) -> None:
    report = _measured(engine, CONV)
    scaled, gated = _line_of(CONV, "x = x * 2.0"), _line_of(CONV, "F.silu(self.gate(x)) * self.up(x)")
    swiglu = _kernel(report, "compiled", "silu")
    # Named by operators, the kernel that multiplies the gate took the scaling's line too: both run a ``mul``.
    assert gated in swiglu.lines and scaled not in swiglu.lines, swiglu.lines
    assert swiglu.stack[0] == f"{CONV}:{gated}" and swiglu.module == "net.head"
    scaling = next(k for k in report.compiled.kernels if "mul" in k.name and "silu" not in k.name)  # type: ignore[union-attr]
    assert scaled in scaling.lines and gated not in scaling.lines and scaling.module == "net", scaling
    norm = _kernel(report, "eager", "batch_norm")
    assert dict(norm.module_calls) == {"net.stages.0.norm": 1, "net.stages.1.norm": 1}


def test_repeated_blocks_fold_into_one_row_with_their_spread() -> None:
    rows = [
        ModuleRow(f"model.h.{index}.attn", 2, 1, 10.0 + index, 5.0 + index, 100, 50, None, None, 0.1, 0.1)
        for index in range(12)
    ]
    rows.append(ModuleRow("model.ln_f", 1, 1, 2.0, 1.0, 10, 10, None, None, 0.01, 0.01))
    attn, norm = folded_modules(rows)
    assert (attn.path, attn.repeats, attn.spread_us) == ("model.h.*.attn", 12, (5.0, 16.0))
    assert (attn.row.eager_launches, attn.row.compiled_launches, attn.row.compiled_bytes) == (24, 12, 600)
    assert (norm.path, norm.repeats, norm.spread_us) == ("model.ln_f", 1, None)
    # Too many rows for the table: the blocks' modules are summed into their parents, launches kept.
    rows += [ModuleRow(f"model.h.{index}.mlp.{name}", 1, 1, 1.0, 1.0, 1, 1) for index in range(12) for name in "abc"]
    assert [module.path for module in folded_modules(rows, most=3)] == ["model.h.*.attn", "model.h.*.mlp", "model.ln_f"]
    folded = folded_modules(rows, most=2)
    assert [module.path for module in folded] == ["model.h.*", "model.ln_f"]
    assert sum(module.row.eager_launches or 0 for module in folded) == sum(row.eager_launches or 0 for row in rows)


def test_a_row_of_several_modules_gives_each_the_time_of_its_own_launches() -> None:
    """Nine products in one row (issue 56): the lm_head's wide one took most of the row's time, and the per-module
    table gives its module that time, not a ninth of the row's (a compiled row on the CPU, timed per launch)."""
    from kernel_tui.engine.counting.module_paths import launch_time_by_module

    modules = ["model.lm_head", *(f"model.h.{index}.mlp" for index in range(8))]
    launch_us = (500.0, *(50.0 for _ in range(8)))
    row = Kernel(
        "aten::linear",
        "aten::linear",
        9,
        900.0,
        450,
        450,
        module="model",
        module_calls=tuple((module, 1) for module in modules),
        launch_time_us=launch_us,
        module_work=tuple(ModuleWork(path, time_us=spent) for path, spent in launch_time_by_module(modules, launch_us)),
    )
    table = {row.path: row for row in module_table(ModeResult(9, (row,), 900, 900.0), None)}
    assert table["model.lm_head"].eager_time_us == pytest.approx(500.0)
    assert table["model.lm_head"].eager_share == pytest.approx(500 / 900)
    # Bytes were not counted per launch: shared out by launches, the row's 900 in all.
    assert sum(table[module].eager_bytes or 0 for module in modules) == pytest.approx(900)
    assert [table[module].eager_launches for module in modules] == [1] * 9


def _row(name: str, time_us: float | None, module_calls: dict[str, int]) -> Kernel:
    """A kernel row of ``sum(module_calls)`` launches, 8 bytes each way, named for the deepest module of them all."""
    paths = [path.split(".") for path in module_calls]
    common = [parts[0] for parts in zip(*paths) if len(set(parts)) == 1]
    calls = sum(module_calls.values())
    return Kernel(name, name, calls, time_us, 8, 8, module=".".join(common), module_calls=tuple(module_calls.items()))


def test_the_hotspot_names_the_kernels_and_modules_that_hold_most_of_the_call() -> None:
    blocks = {f"model.h.{index}.mlp": 1 for index in range(2)}
    kernels = (
        _row("aten::mm", 830.0, {"model.lm_head": 1}),
        _row("cpp_fused_gelu_0", 60.0, blocks),
        _row("aten::addmm", 60.0, {"model.h.0.attn": 1, "model.h.1.attn": 1}),
        _row("cpp_fused_layer_norm_1", 50.0, {"model.ln_f": 1}),
        _row("cpp_fused_view_2", 0.0, {"model": 1}),  # no share of the call at all
    )
    mode = ModeResult(6, kernels, 80, 1000.0)
    modules = module_table(None, mode)
    (hot,) = hotspots({"eager": None, "compiled": mode}, modules)
    assert (hot.mode, hot.measure) == ("compiled", "time")
    assert hot.kernels == (
        HotKernel("aten::mm", "aten::mm", 0.83, None, ("model.lm_head",)),
        HotKernel("cpp_fused_gelu_0", "cpp_fused_gelu_0", 0.06, None, ("model.h.*.mlp",)),
        HotKernel("aten::addmm", "aten::addmm", 0.06, None, ("model.h.*.attn",)),
    )
    # The rows of the folded per-module table, with its own shares: the two blocks' MLPs are one row.
    folded = {module.path: module.row.compiled_share or 0.0 for module in folded_modules(modules)}
    assert hot.modules == (
        HotModule("model.lm_head", 1, folded["model.lm_head"]),
        HotModule("model.h.*.attn", 2, folded["model.h.*.attn"]),
        HotModule("model.h.*.mlp", 2, folded["model.h.*.mlp"]),
    )
    assert [module.share for module in hot.modules] == pytest.approx([0.83, 0.06, 0.06])
    line = hotspot_line(hot)
    assert line == (
        "hotspot, compiled, of kernel time: aten::mm 83% (model.lm_head) · cpp_fused_gelu_0 6% (model.h.*.mlp) · "
        "aten::addmm 6% (model.h.*.attn) · layers: model.lm_head 83% · model.h.*.attn ×2 6% · model.h.*.mlp ×2 6%"
    )
    # Narrower, the third kernel and module go first, then the second kernel says less, then goes; the first of
    # each stays.
    assert hotspot_line(hot, 140) == (
        "hotspot, compiled, of kernel time: aten::mm 83% (model.lm_head) · cpp_fused_gelu_0 6% · "
        "layers: model.lm_head 83% · model.h.*.attn ×2 6%"
    )
    assert hotspot_line(hot, 120) == (
        "hotspot, compiled, of kernel time: aten::mm 83% (model.lm_head) · layers: model.lm_head 83% · "
        "model.h.*.attn ×2 6%"
    )
    assert hotspot_line(hot, 60) == "hotspot, compiled, of kernel time: aten::mm 83% · layers: model.lm_head 83%"


def test_a_hotspot_without_times_or_modules_shares_out_what_every_kernel_has() -> None:
    forward = Kernel("aten::mm", "aten::mm", 1, None, 600, 200, flops=10, section="forward")
    backward = Kernel("aten::mm", "aten::mm", 2, None, 100, 100, flops=20, section="backward")
    relu = Kernel("relu", "relu", 1, None, None, None, flops=0, section="backward")
    # A preview times nothing: bytes where every kernel's are known, else FLOPs; a mode with neither is left out.
    (by_bytes,) = hotspots({"eager": ModeResult(2, (forward, backward), 1000, None)}, ())
    assert by_bytes.measure == "bytes" and by_bytes.modules == ()
    assert [(hot.section, hot.share) for hot in by_bytes.kernels] == [("forward", 0.8), ("backward", 0.2)]
    assert hotspot_line(by_bytes) == "hotspot, eager, of bytes: forward aten::mm 80% · backward aten::mm 20%"
    (by_flops,) = hotspots({"compiled": ModeResult(3, (forward, backward, relu), None, None)}, ())
    assert by_flops.measure == "flops" and [hot.share for hot in by_flops.kernels] == pytest.approx([2 / 3, 1 / 3])
    unknown = Kernel("aten::mm", "aten::mm", 1, None, None, None)
    assert hotspots({"eager": ModeResult(1, (unknown,), None, None), "compiled": ModeResult(0, (), 0, None)}, ()) == ()


def test_an_unknown_figure_goes_after_every_known_one_in_every_order() -> None:
    """One rule for a figure nobody knows (``model/report/figures``), in the kernel tables' orders and the modules
    table's alike: it is no figure, so it goes after every known one, 0 included, and a known 0 is a figure (eager
    launched nothing), not a gap for the other mode's to fill."""
    timed = Kernel("aten::mul", "aten::mul", 1, 5.0, 8, 8)
    idle = Kernel("aten::view", "aten::view", 1, 0.0, 0, 0)
    untimed = Kernel("aten::add", "aten::add", 1, None, None, None)
    assert in_order((untimed, idle, timed), "time") == [timed, idle, untimed]
    assert in_order((untimed, idle, timed), "bytes") == [timed, idle, untimed]
    rows = (
        ModuleRow("model.absent", 0, 4, None, None, None, None),
        ModuleRow("model.idle", 1, 1, 0.0, 0.0, 0, 0),
        ModuleRow("model.busy", 2, 1, 3.0, 2.0, 8, 8),
    )
    assert [module_figure(row, "time", "compiled", "eager") for row in rows] == [None, 0.0, 2.0]
    assert [module_figure(row, "launches", "eager", "compiled") for row in rows] == [0, 1, 2]
    report = ScenarioReport("/box/m.py", "M", "cpu", "CPU", "2.14.1", 1024, None, None, modules=rows)

    def ordered(order: str) -> list[str]:
        table = module_table_view(report, order=order)
        assert table is not None
        console = Console(width=200, record=True, file=open("/dev/null", "w"), markup=False, highlight=False)
        console.print(table)
        lines = console.export_text().splitlines()
        return [name for line in lines for name in ("absent", "idle", "busy") if f"model.{name} " in line]

    assert ordered("time") == ordered("bytes") == ["busy", "idle", "absent"]
    assert ordered("launches") == ["busy", "idle", "absent"], "eager's known 0 launches, not compiled's 4"


def test_a_row_of_several_modules_gives_each_what_its_own_launches_did() -> None:
    """Eager's ``aten::linear`` row of a GPT holds the blocks' small layers and the large lm_head: shared out by
    launches, the lm_head's bytes, FLOPs and time read as an equal part of the row, and the hotspot named a block's
    layer. Where the engine measured each launch (``module_work``), each module gets its own; the row's time (the
    runs' median) is split as the counted run's launches split it."""
    work = (
        ModuleWork("model.h.0.mlp", bytes=100, flops=10, time_us=10.0),
        ModuleWork("model.lm_head", bytes=800, flops=260, time_us=90.0),
    )
    calls = (("model.h.0.mlp", 1), ("model.lm_head", 1))
    row = Kernel("aten::linear", "aten::linear", 2, 50.0, 600, 300, flops=270, module="model", module_calls=calls)
    measured = replace(row, module_work=work)
    rows = {module.path: module for module in module_table(ModeResult(2, (measured,), 900, 50.0), None)}
    head, mlp = rows["model.lm_head"], rows["model.h.0.mlp"]
    assert (head.eager_bytes, head.eager_flops, mlp.eager_bytes, mlp.eager_flops) == (800, 260, 100, 10)
    assert (head.eager_time_us, mlp.eager_time_us) == pytest.approx((45.0, 5.0))
    assert head.eager_launches == mlp.eager_launches == 1
    (hot,) = hotspots({"eager": ModeResult(2, (measured,), 900, 50.0)}, tuple(rows.values()))
    assert [module.path for module in hot.modules] == ["model.lm_head", "model.h.*.mlp"]
    # Launches no module is known for keep the rest of the row, as they do without module_work.
    third = replace(measured, calls=3, bytes_read=700)
    rest = {module.path: module for module in module_table(ModeResult(3, (third,), 1000, 50.0), None)}
    assert (rest["model.lm_head"].eager_bytes, rest["model"].eager_bytes) == (800, 100)
    # Without it (a report from before, a compiled row on the CPU), equal parts by launches.
    shared = {module.path: module for module in module_table(ModeResult(2, (row,), 900, 50.0), None)}
    assert shared["model.lm_head"].eager_bytes == shared["model.h.0.mlp"].eager_bytes == 450


async def test_the_explorers_modules_dialog_orders_the_table_by_a_key(tmp_path: Path) -> None:
    """``M`` in the explorer (here on saved results): twelve blocks in one row, then ``t`` puts the slowest first;
    and the summary strip's hotspot line before it, fit to the strip's width."""
    from support.ui_support import explorer, shown_text, wait_for
    from textual.widgets import Static

    from kernel_tui.ui.app.view_app import build_view_app
    from kernel_tui.ui.link.view_link import saved_reports
    from kernel_tui.ui.screens.dialogs.modules import ModulesScreen

    # Names and figures as long as a real model's (nanoGPT's), which a dialog of the others' width cut.
    blocks = tuple((f"model.transformer.h.{index}.mlp", 2) for index in range(12))

    def side(matmul_us: float, norm_us: float) -> ModeResult:
        matmul = Kernel(
            "aten::mm",
            "aten::mm",
            24,
            matmul_us,
            3_100_000,
            1_200_000,
            module="model.transformer.h",
            module_calls=blocks,
        )
        final = (("model.transformer.ln_f", 1),)
        norm = Kernel("norm", "norm", 1, norm_us, 10, 10, module="model.transformer.ln_f", module_calls=final)
        return ModeResult(25, (matmul, norm), 220, matmul_us + norm_us)

    eager, compiled = side(240.5, 500.5), side(120.5, 400.5)
    saved = ScenarioReport(
        "/box/gpt.py", "GPT", "cpu", "CPU", "2.14.1", 1024, eager, compiled, modules=module_table(eager, compiled)
    )
    path = tmp_path / "gpt.jsonl"
    path.write_text(json.dumps(saved_form(saved)) + "\n")
    app = build_view_app(saved_reports(read_results(path), path), predict=False)
    async with app.run_test(size=(200, 48)) as pilot:
        screen = explorer(app)
        await pilot.press("r")  # a saved report is shown as a finished run
        await wait_for(pilot, lambda: (run := screen.shown_run) is not None and run.record.report is not None)
        # The summary strip names the compiled call's hotspot in one line, fit to its width, again when it changes.
        strip = screen.query_one("#summary", Static)

        def hotspot() -> list[str]:
            return [line.strip() for line in shown_text(strip).splitlines() if "hotspot" in line]

        assert hotspot() == [
            "hotspot, compiled, of kernel time: norm 77% (model.transformer.ln_f) · aten::mm 23% · layers: "
            "model.transformer.ln_f 77% · model.transformer.h.*.mlp ×12 23%"
        ]
        await pilot.resize_terminal(120, 48)
        await wait_for(pilot, lambda: len(hotspot()) == 1 and "aten::mm" not in hotspot()[0], what="a shorter line")
        assert hotspot() == ["hotspot, compiled, of kernel time: norm 77% · layers: model.transformer.ln_f 77%"]
        await pilot.resize_terminal(160, 48)
        await pilot.press("M")
        await wait_for(pilot, lambda: isinstance(app.screen, ModulesScreen), what="the modules dialog")
        rows = [
            line for line in shown_text(app.screen.query_one("#modules-table", Static)).splitlines() if "model" in line
        ]
        assert "model.transformer.h.*.mlp" in rows[0] and "×12" in rows[0] and "24 → 24" in rows[0]
        assert "model.transformer.ln_f" in rows[1]
        header = shown_text(app.screen.query_one("#modules-table", Static))
        assert "launches" in header and "compiled" in header and "…" not in header, "160 columns: nothing cut"
        await pilot.press("t")
        rows = [
            line for line in shown_text(app.screen.query_one("#modules-table", Static)).splitlines() if "model" in line
        ]
        assert "model.transformer.ln_f" in rows[0] and "model.transformer.h.*.mlp" in rows[1]
        # o steps to the next order, as it does in the kernel tables, and back round to the modules' nesting.
        assert "most time first" in shown_text(app.screen.query_one("#modules-table", Static))
        for then in ("most bytes first", "most launches first", "eager → compiled)\n"):
            await pilot.press("o")
            assert then in shown_text(app.screen.query_one("#modules-table", Static)), then
        assert "first" not in shown_text(app.screen.query_one("#modules-table", Static)).splitlines()[0]
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ModulesScreen), what="the dialog to close")
