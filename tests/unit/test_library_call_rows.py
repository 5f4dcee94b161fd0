"""A library call is one row of its calls, its kernels listed inside: the words, the terminal's and the lab
report's tables, the explorer's name line, ``--baseline`` and the preview's rows.

The kernels are those of lesson 27's product on the recorded H200 (``tests/data/gpu_check/``): cuBLAS ran the
256 × 256 fp32 ``mm`` as its gemm over four slices of K (grid z 4) and then its split-K kernel (grid z 1).
"""

from __future__ import annotations

import io
from dataclasses import replace

from rich.console import Console

from kernel_tui.engine.counting.traffic import Traffic
from kernel_tui.engine.preview.preview_launches import launch_rows
from kernel_tui.model.report.kernel import Kernel, nested_names
from kernel_tui.model.report.launch import KernelLaunch
from kernel_tui.model.report.library_call import LibraryKernel, call_words, is_library_op, operator_of
from kernel_tui.model.report.mode_result import ModeResult
from kernel_tui.text import markdown_report, render
from kernel_tui.text.baseline import compare_modes
from kernel_tui.text.parts.library_text import call_story, kernel_lines
from kernel_tui.ui.view.kernel_words import kernel_story

GEMM = "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4_{}__5x_cublas"
SLICES = LibraryKernel(GEMM.format("execute_kernel"), "sm80_xmma_gemm…", 1, 4.5, KernelLaunch(grid=(8, 8, 4)))
SUM = LibraryKernel(GEMM.format("execute_split_k_kernel"), "sm80_xmma_gemm…", 1, 2.8, KernelLaunch(grid=(8, 8, 1)))
SPLIT = Kernel(
    name=SLICES.name,
    short_name="sm80_xmma_gemm…",
    calls=1,
    time_us=7.3,
    bytes_read=524288,
    bytes_written=262144,
    op="aten::mm",
    library="aten::mm",
    library_kernels=(SLICES, SUM),
)
WHOLE = replace(
    SPLIT,
    name=GEMM.format("execute_kernel_other"),
    time_us=6.0,
    library_kernels=(replace(SLICES, launch=KernelLaunch(grid=(8, 8, 1))),),
)
RELU = Kernel(name="triton_poi_fused_relu_0", short_name="triton_poi_fused_relu_0", calls=1, time_us=2.0)


def mode(*kernels: Kernel) -> ModeResult:
    return ModeResult(kernel_count=sum(k.calls for k in kernels), kernels=kernels, bytes_total=786432, time_us=10.0)


def test_a_split_product_is_one_call_of_two_kernels_in_words() -> None:
    assert (SPLIT.calls, SPLIT.launches) == (1, 2)
    assert SPLIT.split_words == "cuBLAS ran this product as 2 kernels: split-K"
    assert WHOLE.split_words is None and WHOLE.launches == 1  # one kernel: nothing to say
    assert nested_names([SPLIT, RELU]) == ["mm: cuBLAS, 2 kernels, split-K", "triton_poi_fused_relu_0"]
    assert nested_names([WHOLE]) == ["sm80_xmma_gemm…"]
    assert [line for line, _ in kernel_lines(SPLIT)] == [
        "  ├ sm80_xmma_gemm… grid 8×8×4",
        "  └ sm80_xmma_gemm… grid 8×8×1 (split-K)",
    ]
    assert kernel_lines(WHOLE) == [] and kernel_lines(RELU) == []
    plain = (replace(SLICES, name="a", launch=None), replace(SUM, name="b", launch=None))
    assert call_words("aten::cudnn_convolution", plain) == "cuDNN ran this convolution as 2 kernels"
    assert call_words("aten::mm", plain[:1]) is None


def test_which_operators_are_library_calls() -> None:
    for name in ("aten::mm", "aten::addmm", "aten::bmm", "extern_kernels.mm", "torch.ops.aten.addmm.default"):
        assert is_library_op(name), name
    # matmul and linear compose others (linear may add its bias with an ATen kernel); convolution adds its bias.
    for name in ("aten::matmul", "aten::linear", "aten::convolution", "aten::add", "triton_poi_fused_mm_0"):
        assert not is_library_op(name), name
    assert operator_of("aten.mm.default") == "mm"


def test_the_terminal_and_the_lab_report_list_the_kernels_under_the_call() -> None:
    console = Console(file=io.StringIO(), width=140, color_system=None)
    console.print(render.kernel_table("Compiled", mode(SPLIT, RELU)))
    text = console.file.getvalue()  # type: ignore[attr-defined]
    lines = [line for line in text.splitlines() if "sm80_xmma" in line or "mm: cuBLAS" in line]
    assert len(lines) == 3, text
    assert "mm: cuBLAS, 2 kernels, split-K" in lines[0] and "1" in lines[0].split()
    assert "grid 8×8×4" in lines[1] and "4.5" in lines[1]
    assert "grid 8×8×1 (split-K)" in lines[2] and "2.8" in lines[2]
    markdown = "\n".join(markdown_report._kernel_table("Compiled", mode(SPLIT, RELU), "compiled"))
    assert "| `└ sm80_xmma_gemm… grid 8×8×1 (split-K)` |" in markdown


def test_the_explorers_name_line_says_what_the_library_chose() -> None:
    story = " · ".join(kernel_story(SPLIT, "compiled"))
    assert "cuBLAS ran this product as 2 kernels: split-K (sm80_xmma_gemm… grid 8×8×4" in story
    assert "one call of aten::mm, which a claim counts once" in story
    assert call_story(WHOLE) is None and call_story(RELU) is None


def test_a_baseline_counts_calls_so_a_split_on_one_gpu_is_no_growth() -> None:
    """The baseline ran the product in one kernel, the new run split it (another GPU, another cuBLAS): the same
    call, paired though its kernel's name changed, and no launch grew."""
    comparison = compare_modes("compiled", mode(WHOLE, RELU), mode(SPLIT, RELU))
    assert not comparison.launches_grew and comparison.launches_delta == 0
    assert [(change.old_name, change.new_name, change.status) for change in comparison.kernels] == [
        (WHOLE.name, SPLIT.name, "same"),
        (RELU.name, RELU.name, "same"),
    ]
    # A Triton kernel more is still growth: only the library's own choice is information.
    assert compare_modes("compiled", mode(SPLIT, RELU), mode(SPLIT, RELU, replace(RELU, name="x"))).launches_grew


def test_the_preview_marks_a_library_call_as_one_call() -> None:
    eager = launch_rows([Traffic("aten::mm", 8, 4, ("aten::mm",), kind="op"), Traffic("aten::relu", 4, 4, kind="op")])
    assert [(row.name, row.library, row.launches) for row in eager] == [
        ("aten::mm", "aten::mm", 1),
        ("aten::relu", None, 1),
    ]
    compiled = launch_rows([Traffic("aten::mm", 8, 4, call="extern_kernels.mm")] * 2)
    assert [(row.name, row.calls, row.library) for row in compiled] == [("extern_kernels.mm", 2, "aten::mm")]
