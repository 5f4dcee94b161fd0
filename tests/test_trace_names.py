"""``short_name`` on every device kernel name in real traces, on the names a review found unreadable, and on
mangled names, through the C++ runtime's demangler and without it (``kernel_tui.model.demangle``)."""

from __future__ import annotations

import gzip
import json
import re
from functools import cache
from pathlib import Path

import pytest

from kernel_tui.model import demangle
from kernel_tui.model.names import LIMIT, short_name

# Every device kernel, memcpy and memset in real torch.profiler traces (tests/data/cuda_traces: A100, H100, B200,
# MI300X). Read with gzip and json only: no torch.

TRACES = Path(__file__).parent / "data" / "cuda_traces"
DEVICE_CATEGORIES = {"kernel", "gpu_memcpy", "gpu_memset"}
# Short names that name no operation: C++ syntax, or the wrapper a kernel's real name hides in.
MEANINGLESS = {
    "enable_if",
    "functor",
    "Functor",
    "kernel",
    "Kernel",
    "Kernel2",
    "kentry",
    "type",
    "decltype",
    "void",
    "operator",
    "lambda",
    "impl",
    "std",
}


@cache
def trace_names() -> tuple[str, ...]:
    found: set[str] = set()
    for path in sorted(TRACES.glob("*.json.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            trace = json.load(handle)
        events = trace.get("traceEvents", []) if isinstance(trace, dict) else trace
        found |= {
            event["name"]
            for event in events
            if isinstance(event, dict) and event.get("cat") in DEVICE_CATEGORIES and isinstance(event.get("name"), str)
        }
    return tuple(sorted(found))


def balanced(text: str) -> bool:
    for opening, closing in ("<>", "()", "[]", "{}"):
        depth = 0
        for char in text:
            depth += (char == opening) - (char == closing)
            if depth < 0:
                return False
        if depth:
            return False
    return True


def readability_faults(short: str) -> list[str]:
    faults = []
    if not short.strip():
        faults.append("empty")
    if len(short) > LIMIT:
        faults.append(f"longer than {LIMIT}")
    op = re.search(r"<([^<>]*)>$", short)
    if short in MEANINGLESS or (op and op.group(1) in MEANINGLESS):
        faults.append("meaningless")
    if "cuda_functor" in short:
        faults.append("functor wrapper instead of its op")
    if short.startswith("_Z"):
        faults.append("still mangled")
    if not balanced(short):
        faults.append("unbalanced brackets")
    return faults


def test_the_traces_are_read() -> None:
    names = trace_names()
    assert len(names) >= 60  # 70 when written; a broken reader must not pass the test below vacuously
    assert any(name.startswith("Memcpy") for name in names)
    assert any(name.startswith("void at::native::") for name in names)


def test_every_trace_name_comes_out_readable() -> None:
    failures = {}
    for name in trace_names():
        short = short_name(name)
        if faults := readability_faults(short):
            failures[name[:120]] = (short, faults)
    assert not failures


FUSED_ADD_RMS_NORM = (
    "std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists, void>::type "
    "vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, long, c10::BFloat16*, c10::BFloat16 const*, "
    "float, int, int)"
)


def test_the_enable_if_name_is_in_the_traces() -> None:
    assert FUSED_ADD_RMS_NORM in trace_names()


ATEN_MANGLED = (
    "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_22CUDAFunctorOnOther_addIbEENS_6detail5ArrayIPcLi2EEEEE"
    "viT0_T1_"
)

# The names a review found unreadable, verbatim from the same public trace collections the files in
# tests/data/cuda_traces come from (HolisticTraceAnalysis @ f4d0062c and TraceLens @ 171dd747, tests/ folders):
# HTA_NCCL: HTA tests/data/nccl_parser_config/nccl_data.json.gz (A100).
# HTA_QUEUE: HTA tests/data/negative_queue_length_values_check/rank0.json.gz.
# HTA_DIFF: HTA tests/data/trace_diff/control/control.json.gz.
# TL_OWL: TraceLens tests/traces/h100/google_owlv2-large-patch14-ensemble__1016001.json.gz (H100).
# TL_SGLANG: TraceLens tests/traces/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz (MI300X, ROCm).
# DEMANGLE_TEST: a mangled ATen kernel name in a public demangler test (search index file id 42507070168).
REVIEWED_NAMES = [
    pytest.param(  # b200 trace here: the return type is std::enable_if<…>::type, with a ">" inside parentheses
        FUSED_ADD_RMS_NORM,
        "fused_add_rms_norm_kernel",
        id="enable-if-return-type",
    ),
    pytest.param(  # TL_OWL
        "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnOther_add<c10::BFloat16>, "
        "std::array<char*, 2ul> >(int, at::native::CUDAFunctorOnOther_add<c10::BFloat16>, std::array<char*, 2ul>)",
        "vectorized_elementwise_kernel<add>",
        id="functor-on-other-add",
    ),
    pytest.param(  # HTA_DIFF: the comparison (eq, lt, …) is a run-time argument, so the name says only "compare"
        "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::CompareFunctor<long>, "
        "at::detail::Array<char*, 3> >(int, at::native::(anonymous namespace)::CompareFunctor<long>, "
        "at::detail::Array<char*, 3>)",
        "vectorized_elementwise_kernel<compare>",
        id="compare-functor",
    ),
    pytest.param(  # TL_OWL
        "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::(anonymous "
        "namespace)::CompareFunctor<long> >(at::TensorIteratorBase&, at::native::(anonymous "
        "namespace)::CompareFunctor<long> const&)::{lambda(int)#1}>(int, "
        "at::native::gpu_kernel_impl_nocast<at::native::(anonymous namespace)::CompareFunctor<long> "
        ">(at::TensorIteratorBase&, at::native::(anonymous namespace)::CompareFunctor<long> const&)::{lambda(int)#1})",
        "elementwise_kernel<compare>",
        id="compare-functor-nocast",
    ),
    pytest.param(  # HTA_QUEUE
        "void fbgemm_gpu::permute_2D_data_kernel<false, int, int, decltype(nullptr)>(int, int, int, int const*, "
        "decltype(nullptr) const*, int const*, int const*, int const*, int*, decltype(nullptr)*)",
        "permute_2D_data_kernel",
        id="decltype-nullptr",
    ),
    pytest.param(  # HTA_NCCL
        "void cutlass_cudnn_infer::Kernel<cutlass_tensorop_s1688dgrad_optimized_tf32_64x256_32x4_nhwc_align4>"
        "(cutlass_tensorop_s1688dgrad_optimized_tf32_64x256_32x4_nhwc_align4::Params)",
        "cutlass_tensorop_s1688dgrad_optimized_tf32…",
        id="cutlass-cudnn-infer",
    ),
    pytest.param(  # HTA_NCCL
        "void cutlass_cudnn_train::Kernel<cutlass_cudnn_train::reduction::kernel::ReduceSplitK<"
        "cutlass_cudnn_train::MatrixShape<4, 128>, cutlass_cudnn_train::epilogue::thread::LinearCombination<float, 4, "
        "float, float, (cutlass_cudnn_train::epilogue::thread::ScaleType::Kind)0, "
        "(cutlass_cudnn_train::FloatRoundStyle)2>, cutlass_cudnn_train::reduction::thread::ReduceAdd<float, float, 4>, "
        "4> >(cutlass_cudnn_train::reduction::kernel::ReduceSplitK<cutlass_cudnn_train::MatrixShape<4, 128>, "
        "cutlass_cudnn_train::epilogue::thread::LinearCombination<float, 4, float, float, "
        "(cutlass_cudnn_train::epilogue::thread::ScaleType::Kind)0, (cutlass_cudnn_train::FloatRoundStyle)2>, "
        "cutlass_cudnn_train::reduction::thread::ReduceAdd<float, float, 4>, 4>::Params)",
        "ReduceSplitK",
        id="cutlass-cudnn-train-split-k",
    ),
    pytest.param(  # HTA_NCCL: mangled; too new for the demangler of the C++ runtime here, read off its front
        "_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_11threadblock22Implicit"
        "GemmMultistageINS_4gemm9GemmShapeILi128ELi128ELi32EEENS4_52Conv2dWgradOutputGradientTileAccessIterat"
        "orOptimizedINS_11MatrixShapeILi128ELi32EEENS_10tfloat32_tENS_9transform29PitchLinearWarpRakedThreadM"
        "apINS_16PitchLinearShapeILi128ELi32EEELi128ENSF_ILi8ELi4EEELi4EEENS_12AlignedArrayISC_Li4ELi16EEEEEN"
        "SD_11threadblock25RegularTileAccessIteratorISB_SC_NS_6layout40ColumnMajorTensorOpMultiplicandCongruo"
        "usILi32ELi32EEELi1ESI_Li16EEELNS_4arch14CacheOperation4KindE0ENS4_48Conv2dWgradActivationTileAccessI"
        "teratorOptimizedINSA_ILi32ELi128EEESC_SI_SK_EENSN_ISW_SC_NSO_37RowMajorTensorOpMultiplicandCongruous"
        "ILi32ELi32EEELi0ESI_Li16EEELSU_0ENS6_11threadblock9MmaPolicyINS6_4warp11MmaTensorOpINS7_ILi64ELi64EL"
        "i32EEESC_SQ_SC_SZ_fNSO_8RowMajorENS13_17MmaTensorOpPolicyINSS_3MmaINS7_ILi16ELi8ELi8EEELi32ESC_S16_S"
        "C_NSO_11ColumnMajorEfS16_NSS_13OpMultiplyAddEEENSA_ILi1ELi1EEEEELi1ELb0EbEENSA_ILi0ELi0EEES1G_Li1EEE"
        "Li4EbEENS_8epilogue11threadblock8EpilogueIS8_S1F_Li1ENS1K_22PredicatedTileIteratorINS1K_26OutputTile"
        "OptimalThreadMapINS1K_15OutputTileShapeILi128ELi8ELi2ELi1ELi1EEENS1O_ILi1ELi8ELi1ELi1ELi8EEELi128ELi"
        "4ELi32EEEfLb0ENSO_9NoPermuteELb0EEENS1J_4warp24FragmentIteratorTensorOpIS15_S19_fNS_5ArrayIfLi4ELb1E"
        "EES16_EENS1U_20TileIteratorTensorOpIS15_S19_fS16_EENS1K_18SharedLoadIteratorINS1R_18CompactedThreadM"
        "apEfLi16EEENS1J_6thread17LinearCombinationIfLi4EffLNS24_9ScaleType4KindE0ELNS_15FloatRoundStyleE2EEE"
        "NSA_ILi0ELi8EEELi2ELi1EEENS11_30GemmIdentityThreadblockSwizzleILi4EEELNS1_8OperatorE2ENS1_17Conv2dPr"
        "oblemSizeELNS1_9GroupModeE0EEEEEvNT_6ParamsE",
        "ImplicitGemmConvolution",
        id="mangled-cutlass-conv",
    ),
    pytest.param(  # TL_SGLANG: DF16b (std::bfloat16_t) needs a GCC 13 demangler
        "_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi256ELi16ELb0ELb0ELb1ELi1EEEvPT0_PT_PfS4_S4_S4_diiiiiiib",
        "add_rmsnorm_quant_kernel",
        id="mangled-bf16",
    ),
    pytest.param(  # TL_SGLANG: Clang's constrained template parameter (Tn) that no demangler here reads
        "_ZN7sgl_hip10activation18act_and_mul_kernelI14__hip_bfloat16TnPFT_RKS3_EXadL_Z4siluIS2_ES3_S5_EEEEvPS3_PS4_i",
        "act_and_mul_kernel",
        id="mangled-constrained",
    ),
    pytest.param(  # DEMANGLE_TEST
        ATEN_MANGLED,
        "vectorized_elementwise_kernel<add>",
        id="mangled-aten",
    ),
]


@pytest.mark.parametrize(("full", "short"), REVIEWED_NAMES)
def test_reviewed_names(full: str, short: str) -> None:
    assert short_name(full) == short
    assert not readability_faults(short)


def test_the_cpp_runtime_demangles_when_it_is_there() -> None:
    if demangle._demangler() is None:
        pytest.skip("no C++ runtime with __cxa_demangle in this process")
    assert demangle._cxa_demangle(ATEN_MANGLED) == (
        "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnOther_add<bool>, "
        "at::detail::Array<char*, 2> >(int, at::native::CUDAFunctorOnOther_add<bool>, at::detail::Array<char*, 2>)"
    )
    assert demangle._cxa_demangle("_Znot_a_name") == ""


def test_mangled_names_are_read_without_a_cpp_runtime(monkeypatch: pytest.MonkeyPatch) -> None:
    demangle._demangled.cache_clear()
    monkeypatch.setattr(demangle, "_demangler", lambda: None)
    try:
        assert short_name(ATEN_MANGLED) == "vectorized_elementwise_kernel<add>"
        assert short_name("_ZN5aiter24add_rmsnorm_quant_kernelIDF16bLi256EEEvPT_") == "add_rmsnorm_quant_kernel"
    finally:
        demangle._demangled.cache_clear()


def test_each_mangled_name_is_demangled_once() -> None:
    demangle._demangled.cache_clear()
    short_name(ATEN_MANGLED)
    short_name(ATEN_MANGLED)
    info = demangle._demangled.cache_info()
    assert (info.misses, info.hits) == (1, 1)


@pytest.mark.parametrize(
    "full",
    [
        "_Z",
        "_ZN",
        "_ZNE",
        "_ZL",
        "_Z99x",
        "_ZN1aI",
        "_ZN1aIL",
        "_ZN1aILN",
        "_ZN1aIS_",
        "_Z" + "9" * 5000,
        "_ZN" + "1a" * 3000 + "E",
        "_Z1f" + "I1a" * 1000 + "E" * 1000 + "v",
        "_Z" + "A1_" * 2000 + "i",
        "_Z" + "N1aIS_" * 1000,
        "_ZN3foo3barE\x00",
        "_ZN3fooé3barE",
        "_Z3foov.kd",
    ],
)
def test_broken_mangled_names_never_raise(full: str) -> None:
    result = short_name(full)
    assert result.strip()
    assert len(result) <= LIMIT
