"""``short_name`` against kernel names exactly as torch.profiler and CUPTI-based tools report them.

``REAL_NAMES`` (``real_kernel_names``) are copied verbatim from public profiles, so the rules are checked
against what CUDA, ROCm and Inductor really emit, not against names written to fit them. The tests after them
pin the rules that real samples do not cover on their own, and Inductor's names. The names in real traces and
mangled names are in ``test_trace_names``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from support.real_kernel_names import REAL_NAMES

from kernel_tui.model.names import cpp_brackets, demangle, names
from kernel_tui.model.names.names import LIMIT, SHORT, short_name


@pytest.mark.parametrize(("full", "short"), REAL_NAMES)
def test_real_profiler_names(full: str, short: str) -> None:
    assert short_name(full) == short


@pytest.mark.parametrize(("full", "short"), REAL_NAMES)
def test_real_names_fit_the_column_without_cpp_noise(full: str, short: str) -> None:
    result = short_name(full)
    assert result
    assert len(result) <= LIMIT
    assert "at::" not in result and "std::" not in result and "void " not in result


def test_enough_real_names_are_checked() -> None:
    assert len(REAL_NAMES) >= 20


# The rules as the design states them, on names shaped like the real ones.


@pytest.mark.parametrize(
    ("full", "short"),
    [
        ("graph_12_cpp_fused_add_relu_0", "cpp_fused_add_relu_0"),
        ("graph_0_cpp_fused_add_relu_0", "cpp_fused_add_relu_0"),
        ("graph_3_kernel", "kernel"),
        ("graph_41_kernel", "kernel"),
        ("cpp_fused_add_relu_0", "cpp_fused_add_relu_0"),
        ("triton_poi_fused_add_relu_0", "triton_poi_fused_add_relu_0"),
        ("triton_tem_fused_addmm_relu_0", "triton_tem_fused_addmm_relu_0"),
        ("triton_poi_fused_0", "triton_poi_fused_0"),
        ("Memcpy HtoD (Pinned -> Device)", "memcpy HtoD"),
        ("Memcpy DtoH (Device -> Pageable)", "memcpy DtoH"),
        ("Memcpy PtoP (Device -> Device)", "memcpy PtoP"),
        ("aten::clamp_min", "aten::clamp_min"),
        ("aten::add_", "aten::add_"),
        ("ampere_sgemm_128x64_nn", "ampere_sgemm_128x64_nn"),
    ],
)
def test_stated_rules(full: str, short: str) -> None:
    assert short_name(full) == short


def test_the_graph_counter_does_not_change_the_name() -> None:
    assert short_name("graph_1_cpp_fused_mul_sum_3") == short_name("graph_977_cpp_fused_mul_sum_3")


@pytest.mark.parametrize(
    ("prefix", "suffix"),
    [("triton_red_fused_", "_12"), ("triton_poi_fused_", "_0"), ("cpp_fused_", "_7")],
)
def test_long_fused_names_keep_prefix_and_number(prefix: str, suffix: str) -> None:
    full = prefix + "_".join(["add", "mul", "native_layer_norm", "relu", "view"] * 4) + suffix
    result = short_name(full)
    assert result.startswith(prefix + "add_mul")
    assert result.endswith("…" + suffix)
    assert len(result) <= SHORT


def test_graph_prefix_then_long_fused_name() -> None:
    result = short_name("graph_5_cpp_fused__log_softmax_add_embedding_mean_mul_native_layer_norm_pow_2")
    assert result == "cpp_fused__log_softmax_add_embedding…_2"


def test_nvjet_says_gemm_and_keeps_its_family() -> None:
    result = short_name("nvjet_tst_128x64_64x8_1x1_v_bz_coopA_NNN")
    assert result.startswith("nvjet_tst_128x64_64x8")
    assert result.endswith("(gemm)")
    assert len(result) <= SHORT


@pytest.mark.parametrize(
    "full",
    [
        "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_16x5_nn_align4>"
        "(cutlass_80_tensorop_s1688gemm_128x128_16x5_nn_align4::Params)",
        "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1"
        "_execute_segment_k_off_kernel__5x_cublas",
        "sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize32x32x64_stage6_warpsize2x2x1_ffma_aligna8_alignc8",
        "ampere_s16816gemm_bf16_256x128_ldg8_stages_32x3_nn",
        "void gemmSN_TN_kernel<float, 128, 16, 2, 4, 4, 4, true, "
        "cublasGemvTensorStridedBatched<float const>, "
        "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float> >"
        "(cublasGemmSmallNParams<cublasGemvTensorStridedBatched<float const>, "
        "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float>)",
    ],
)
def test_gemm_names_stay_recognisable_and_short(full: str) -> None:
    result = short_name(full)
    assert "gemm" in result
    assert len(result) <= SHORT
    assert not result.startswith(("void", "cutlass::"))


def test_a_long_op_inside_a_template_is_cut_not_dropped() -> None:
    op = "very_long_" * 6 + "kernel_cuda"
    full = (
        f"void at::native::vectorized_elementwise_kernel<4, at::native::{op}(at::TensorIteratorBase&)"
        "::{lambda(float)#1}, std::array<char*, 2ul> >(int)"
    )
    result = short_name(full)
    assert result.startswith("vectorized_elementwise_kernel<very_long")
    assert result.endswith("…>")
    assert len(result) <= LIMIT


@pytest.mark.parametrize(
    ("full", "short"),
    [
        ("void at::native::some_new_kernel(float*, float const*, int)", "some_new_kernel"),
        (
            "void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*, c10::BFloat16 const*, float, int, int)",
            "rms_norm_kernel",
        ),
        ("cudaLaunchKernel", "cudaLaunchKernel"),
        ("Torch-Compiled Region: 0/0", "Torch-Compiled Region: 0/0"),
        ("ProfilerStep*", "ProfilerStep*"),
    ],
)
def test_unknown_names_lose_void_arguments_and_namespaces(full: str, short: str) -> None:
    assert short_name(full) == short


def test_unknown_long_names_are_cut_to_the_limit() -> None:
    full = "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x256_4x1x1_kernel0_0"
    result = short_name(full)
    assert result.endswith("…")
    assert len(result) <= LIMIT
    assert full.startswith(result[:-1])


@pytest.mark.parametrize(
    "full",
    [
        "x",
        "(",
        ")",
        "<",
        ">",
        "::",
        "void ",
        "void at::",
        "a<b<c",
        "f(((",
        "))))",
        "<>()",
        "[clone .kd]",
        "(anonymous namespace)::",
        "<unnamed>::",
        "std::enable_if<",
        "std::enable_if<true>::type ",
        "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add...",
        "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<",
        "Memcpy",
        "memset",
        "graph_",
        "graph_1_",
        "triton_",
        "nvjet_",
        "sm90_xmma_gemm_tilesize",
        "\x00",
        "é" * 200,
        "a" * 500,
        "<" * 300,
        ")" * 300,
        "_" * 100,
    ],
)
def test_never_raises_never_empty_never_wider_than_the_limit(full: str) -> None:
    result = short_name(full)
    assert isinstance(result, str)
    assert result.strip()
    assert len(result) <= LIMIT


def test_empty_and_blank_input_come_back_unchanged() -> None:
    assert short_name("") == ""
    assert short_name("   ") == "   "


def test_surrounding_whitespace_is_ignored() -> None:
    assert short_name("  aten::add \n") == "aten::add"


@pytest.mark.parametrize("module", [names, demangle, cpp_brackets], ids=lambda module: module.__name__)
def test_module_imports_nothing_heavy(module: object) -> None:
    # names.py and the modules it reads C++ with run in the UI process, which must not pay for importing torch.
    tree = ast.parse(Path(getattr(module, "__file__", "")).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
    # ctypes reaches the C++ runtime's demangler, which is no heavier than the interpreter itself.
    assert imported <= {"__future__", "re", "ctypes", "functools", demangle.__name__, cpp_brackets.__name__}
    assert "torch" not in imported


# -- Inductor's kernel names: the one place they are parsed ---------------------------------------------


@pytest.mark.parametrize(
    ("name", "generated"),
    [
        ("graph_12_cpp_fused_add_relu_0", True),
        ("cpp_fused_add_relu_0", True),
        ("triton_poi_fused_add_relu_0", True),
        ("graph_3_kernel", True),
        ("aten::add", False),
        ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>()", False),
        ("graph_x_cpp_fused_add_0", False),
        ("Memcpy HtoD (Pageable -> Device)", False),
    ],
)
def test_generated_kernels_are_told_from_operators_and_library_kernels(name: str, generated: bool) -> None:
    assert names.is_generated_kernel(name) is generated


def test_the_graph_counter_is_dropped_and_nothing_else() -> None:
    assert names.without_graph_counter("graph_12_cpp_fused_add_relu_0") == "cpp_fused_add_relu_0"
    assert names.without_graph_counter("graph_cpp_fused_add_0") == "graph_cpp_fused_add_0"
    assert names.without_graph_counter("triton_poi_fused_add_relu_0") == "triton_poi_fused_add_relu_0"


def test_a_wrapper_global_is_a_kernel_only_by_its_own_name() -> None:
    assert names.is_wrapper_kernel("cpp_fused_add_relu_0") and names.is_wrapper_kernel("triton_red_fused_sum_1")
    assert not names.is_wrapper_kernel("graph_0_cpp_fused_add_relu_0")
    assert not names.is_wrapper_kernel("extern_kernels") and not names.is_wrapper_kernel("empty_strided_cuda")


def test_backend_and_triton_kind_come_from_the_name() -> None:
    assert names.kernel_backend("graph_0_cpp_fused_add_relu_0") == "cpp"
    assert names.kernel_backend("triton_per_fused_sum_0") == "triton"
    assert names.kernel_backend("aten::mm") is None
    assert names.triton_kind("triton_tem_fused_mm_0") == "tem"
    assert names.triton_kind("cpp_fused_add_0") is None


def test_elementwise_kernels_are_pointwise_triton_and_atens_elementwise_templates() -> None:
    assert names.is_elementwise("triton_poi_fused_add_relu_0")
    assert names.is_elementwise("void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>()")
    assert not names.is_elementwise("triton_red_fused_sum_0")
    assert not names.is_elementwise("cpp_fused_add_relu_0")


@pytest.mark.parametrize(
    ("name", "ops"),
    [
        ("graph_1_cpp_fused_add_relu_0", "add_relu"),
        ("triton_poi_fused__to_copy_add_0", "_to_copy_add"),
        ("triton_tem_fused_mm_0", "mm"),
        ("cpp_fused_gelu_native_layer_norm_12", "gelu_native_layer_norm"),
        ("aten::add", ""),
        ("triton_poi_0", ""),
    ],
)
def test_fused_ops_are_the_operator_part_of_the_name(name: str, ops: str) -> None:
    assert names.fused_ops(name) == ops
