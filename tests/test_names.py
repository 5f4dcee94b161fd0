"""``short_name`` against kernel names exactly as torch.profiler and CUPTI-based tools report them.

``REAL_NAMES`` are copied verbatim from public profiles (sources noted below and on each entry), so
the rules are checked against what CUDA, ROCm and Inductor really emit, not against names written
to fit them. The tests after it pin the rules that real samples do not cover on their own.
"""

from __future__ import annotations

import ast
import gzip
import json
import re
from functools import cache
from pathlib import Path

import pytest

from kernel_tui.model import names
from kernel_tui.model.names import LIMIT, SHORT, short_name

# Where the names below were found: public GitHub files located with a code search over stored copies.
# The search did not show repository paths for most hits, so each source gives the search index's file
# id instead. Names from nsys or TensorFlow traces are the same CUPTI names torch.profiler shows.
# STOFM: torch.profiler operator table (Self CUDA) in a public GitHub report, "SToFM R2 ATen Profile" (file
#     id 59254784684).
# NVBIT_MAP: kernel-name map of a public GPU-simulator analysis script: names as CUPTI demangles them for
#     PyTorch models (alexnet, bert, gpt-2) (file id 32177202074).
# ROCM_A: torch.profiler kernel table on ROCm in a public GitHub report; HIP appends "[clone .kd]" (file id
#     69612354740).
# ROCM_B: the same kind of ROCm torch.profiler report (file id 69658692220).
# NSYS_COPY: nsys kernel table in a public GitHub report; nsys demangles as "(int)4" and "[lambda()
#     (instance 3)]" (file id 12958171077).
# HALF: torch.profiler operator table of an fp16 model in a public GitHub report (file id 59472397786).
# XMMA_F32: torch.profiler top-kernel table of an H100 forward pass in a public GitHub report (file id
#     59211720291).
# XMMA_BF16: kernel-name constants copied from a trace into a public profiling test (file id 70076282749).
# NVJET_NSYS: nsys top-kernel table in a public GitHub report (file id 66227485803).
# NVJET_TRACE: torch.profiler trace row launched by aten::mm in a public GitHub report (file id
#     61390609819).
# GPT2: torch.profiler op table of GPT-2 in a public GitHub report (file id 68817278292).
# CUTLASS_NSYS: nsys kernel table in a public GitHub report (file id 53480443857).
# TF_TRACE: TensorFlow profiler trace: CUPTI reports cuBLAS kernels under the same names as for PyTorch
#     (file id 46903736271).
# NCCL: kernel table of an LLM server profile in a public GitHub report (file id 70382818814).
# HTOD: torch.profiler key_averages() table in a public GitHub repository (file id 3591898073).
# DTOH: profiler events in a public benchmark's test (file id 70870154501).
# MEMSET: profiler event names in a public project's test (file id 71485788831).
# RMSNORM: Inductor kernel named in a public report on torch.compile output (file id 55437786293).
# TRITON_HUGE: kernel table of a compiled model in a public GitHub report (file id 69477003918).
# TUTORIAL: torch.profiler table in the PyTorch tutorial "Inductor CPU backend debugging and profiling"
#     (pytorch/tutorials, intermediate_source/inductor_debug_cpu.py) (file id 17783526961).
# CPP_TABLE: torch.profiler CPU table of a compiled model in a public GitHub report (file id 54594921071).
# CPP_SOFTMAX: torch.profiler CPU table of an Inductor-compiled model in a public GitHub repository (file id
#     17014129563).
# CLAMP_TABLE: torch.profiler operator table in a public GitHub report (file id 59540023588).
REAL_NAMES = [
    pytest.param(  # STOFM
        "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
        "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)",
        "vectorized_elementwise_kernel<add>",
        id="add",
    ),
    pytest.param(  # NVBIT_MAP
        "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
        "namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
        "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() "
        "const::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::(anonymous "
        "namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "
        "at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() "
        "const::{lambda(float)#1}, std::array<char*, 2ul>)",
        "vectorized_elementwise_kernel<clamp_scalar>",
        id="relu-clamp",
    ),
    pytest.param(  # STOFM
        "void at::native::elementwise_kernel<128, 2, "
        "at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::"
        "TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() "
        "const::{lambda(float)#1}>(at::TensorIteratorBase&, "
        "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() "
        "const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1}>(int, "
        "at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::"
        "TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() "
        "const::{lambda(float)#1}>(at::TensorIteratorBase&, "
        "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() "
        "const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1})",
        "elementwise_kernel<direct_copy>",
        id="direct-copy",
    ),
    pytest.param(  # STOFM
        "void at::native::elementwise_kernel<128, 2, "
        "at::native::gpu_kernel_impl_nocast<at::native::(anonymous "
        "namespace)::masked_fill_kernel(at::TensorIterator&, c10::Scalar "
        "const&)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float, "
        "bool)#1}>(at::TensorIteratorBase&, at::native::(anonymous "
        "namespace)::masked_fill_kernel(at::TensorIterator&, c10::Scalar "
        "const&)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float, "
        "bool)#1} const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::(anonymous "
        "namespace)::masked_fill_kernel(at::TensorIterator&, c10::Scalar "
        "const&)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float, "
        "bool)#1}>(at::TensorIteratorBase&, at::native::(anonymous "
        "namespace)::masked_fill_kernel(at::TensorIterator&, c10::Scalar "
        "const&)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float, "
        "bool)#1} const&)::{lambda(int)#1})",
        "elementwise_kernel<masked_fill>",
        id="masked-fill",
    ),
    pytest.param(  # STOFM
        "void at::native::elementwise_kernel<128, 2, "
        "at::native::gpu_kernel_impl_nocast<at::native::(anonymous "
        "namespace)::where_kernel_impl(at::TensorIterator&)::{lambda()#1}::operator()() "
        "const::{lambda()#7}::operator()() const::{lambda(bool, float, float)#1}>(at::TensorIteratorBase&, "
        "at::native::(anonymous "
        "namespace)::where_kernel_impl(at::TensorIterator&)::{lambda()#1}::operator()() "
        "const::{lambda()#7}::operator()() const::{lambda(bool, float, float)#1} "
        "const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::(anonymous "
        "namespace)::where_kernel_impl(at::TensorIterator&)::{lambda()#1}::operator()() "
        "const::{lambda()#7}::operator()() const::{lambda(bool, float, float)#1}>(at::TensorIteratorBase&, "
        "at::native::(anonymous "
        "namespace)::where_kernel_impl(at::TensorIterator&)::{lambda()#1}::operator()() "
        "const::{lambda()#7}::operator()() const::{lambda(bool, float, float)#1} const&)::{lambda(int)#1})",
        "elementwise_kernel<where>",
        id="where",
    ),
    pytest.param(  # STOFM
        "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
        "namespace)::isneginf_kernel_impl(at::TensorIteratorBase&)::{lambda()#1}::operator()() "
        "const::{lambda()#2}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul> >(int, "
        "at::native::(anonymous "
        "namespace)::isneginf_kernel_impl(at::TensorIteratorBase&)::{lambda()#1}::operator()() "
        "const::{lambda()#2}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul>)",
        "vectorized_elementwise_kernel<isneginf>",
        id="isneginf",
    ),
    pytest.param(  # STOFM
        "void at::native::vectorized_elementwise_kernel<4, "
        "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
        "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() "
        "const::{lambda(float)#1}, std::array<char*, 2ul> >(int, "
        "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
        "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() "
        "const::{lambda(float)#1}, std::array<char*, 2ul>)",
        "vectorized_elementwise_kernel<gelu>",
        id="gelu",
    ),
    pytest.param(  # STOFM
        "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, float, "
        "at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul> >(int, "
        "at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, "
        "std::array<char*, 2ul>)",
        "vectorized_elementwise_kernel<mul>",
        id="mul-scalar",
    ),
    pytest.param(  # STOFM
        "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, bool, "
        "at::native::(anonymous namespace)::CompareEqFunctor<float> >, std::array<char*, 2ul> >(int, "
        "at::native::AUnaryFunctor<float, float, bool, at::native::(anonymous "
        "namespace)::CompareEqFunctor<float> >, std::array<char*, 2ul>)",
        "vectorized_elementwise_kernel<eq>",
        id="eq",
    ),
    pytest.param(  # STOFM
        "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<long>, "
        "std::array<char*, 1ul> >(int, at::native::FillFunctor<long>, std::array<char*, 1ul>)",
        "vectorized_elementwise_kernel<fill>",
        id="fill",
    ),
    pytest.param(  # NVBIT_MAP
        "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, float, "
        "at::native::(anonymous namespace)::threshold_kernel_impl<float>(at::TensorIteratorBase&, float, "
        "float)::{lambda(float, float)#1}>, std::array<char*, 3ul> >(int, at::native::BinaryFunctor<float, "
        "float, float, at::native::(anonymous "
        "namespace)::threshold_kernel_impl<float>(at::TensorIteratorBase&, float, float)::{lambda(float, "
        "float)#1}>, std::array<char*, 3ul>)",
        "vectorized_elementwise_kernel<threshold>",
        id="threshold",
    ),
    pytest.param(  # ROCM_B
        "void at::native::unrolled_elementwise_kernel<at::native::CUDAFunctor_add<int>, std::array<char*, "
        "3ul>, 4, TrivialOffsetCalculator<2, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, "
        "at::native::memory::LoadWithoutCast, at::native::memory::StoreWithoutCast>(int, "
        "at::native::CUDAFunctor_add<int>, std::array<char*, 3ul>, TrivialOffsetCalculator<2, unsigned "
        "int>, TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithoutCast, "
        "at::native::memory::StoreWithoutCast) [clone .kd]",
        "unrolled_elementwise_kernel<add>",
        id="unrolled-add-rocm",
    ),
    pytest.param(  # NSYS_COPY
        "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::"
        "TensorIteratorBase &)::[lambda() (instance 3)]::operator ()() const::[lambda() (instance "
        "7)]::operator ()() const::[lambda(float) (instance 1)], std::array<char *, (unsigned long)2>, "
        "(int)4, TrivialOffsetCalculator<(int)1, unsigned int>, TrivialOffsetCalculator<(int)1, unsigned "
        "int>, at::native::memory::LoadWithCast<(int)1>, at::native::memory::StoreWithCast<(int)1>>(int, "
        "T1, T2, T4, T5, T6, T7)",
        "unrolled_elementwise_kernel<direct_copy>",
        id="unrolled-copy-nsys",
    ),
    pytest.param(  # ROCM_A
        "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
        "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, "
        "float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4, 4> "
        ">(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, "
        "float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, "
        "4, 4>) [clone .kd]",
        "reduce_kernel<sum>",
        id="sum-rocm",
    ),
    pytest.param(  # NVBIT_MAP
        "void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float, "
        "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, "
        "float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4> "
        ">(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor<float, "
        "float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, "
        "4>)",
        "reduce_kernel<sum>",
        id="sum",
    ),
    pytest.param(  # NVBIT_MAP
        "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::WelfordOps<float, "
        "float, int, float, thrust::pair<float, float> >, unsigned int, float, 2> "
        ">(at::native::ReduceOp<float, at::native::WelfordOps<float, float, int, float, "
        "thrust::pair<float, float> >, unsigned int, float, 2>)",
        "reduce_kernel<welford>",
        id="welford",
    ),
    pytest.param(  # NVBIT_MAP
        "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, "
        "float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float>, "
        "unsigned int, float, 4>)",
        "reduce_kernel<mean>",
        id="mean",
    ),
    pytest.param(  # HALF
        "void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, c10::Half, float, c10::Half, "
        "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(c10::Half*, c10::Half const*, int)",
        "cunn_SoftMaxForward",
        id="softmax-half",
    ),
    pytest.param(  # NVBIT_MAP
        "void (anonymous namespace)::softmax_warp_forward<float, float, float, 4, true, false>(float*, "
        "float const*, int, int, int, bool const*, int, bool)",
        "softmax_warp_forward",
        id="softmax-warp",
    ),
    pytest.param(  # STOFM
        "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, "
        "float const*, float const*, float const*, float*, float*, float*)",
        "vectorized_layer_norm_kernel",
        id="layer-norm",
    ),
    pytest.param(  # STOFM
        "void at::native::(anonymous namespace)::indexSelectLargeIndex<float, long, unsigned int, 2, 2, "
        "-2, true>(at::cuda::detail::TensorInfo<float, unsigned int>, at::cuda::detail::TensorInfo<float "
        "const, unsigned int>, at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned "
        "int, unsigned int, long)",
        "indexSelectLargeIndex",
        id="index-select",
    ),
    pytest.param(  # NVBIT_MAP
        "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
        "namespace)::TensorListMetadata<2>, at::native::(anonymous "
        "namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, "
        "float>(at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous "
        "namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float)",
        "multi_tensor_apply_kernel<binary_op_list_alpha>",
        id="adam-foreach",
    ),
    pytest.param(  # XMMA_F32
        "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_"
        "off_kernel__5x_cublas",
        "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n…",
        id="xmma-tf32",
    ),
    pytest.param(  # XMMA_BF16
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_"
        "k_off_kernel__5x_cublas",
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn…",
        id="xmma-bf16",
    ),
    pytest.param(  # NVJET_NSYS
        "nvjet_tst_256x128_64x4_1x2_h_bz_coopA_NNT",
        "nvjet_tst_256x128_64x4_1x2_h_bz… (gemm)",
        id="nvjet-coop",
    ),
    pytest.param(  # NVJET_TRACE
        "nvjet_tst_32x64_64x16_4x1_v_bz_TNN",
        "nvjet_tst_32x64_64x16_4x1_v_bz… (gemm)",
        id="nvjet-mm",
    ),
    pytest.param(  # GPT2
        "ampere_sgemm_128x64_nn",
        "ampere_sgemm_128x64_nn",
        id="ampere-sgemm",
    ),
    pytest.param(  # STOFM
        "volta_sgemm_128x64_tn",
        "volta_sgemm_128x64_tn",
        id="volta-sgemm",
    ),
    pytest.param(  # NVBIT_MAP
        "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x64_16x6_tn_align4>(cutlass_80_tensorop_"
        "s1688gemm_128x64_16x6_tn_align4::Params)",
        "cutlass_80_tensorop_s1688gemm_128x64…",
        id="cutlass-tensorop",
    ),
    pytest.param(  # CUTLASS_NSYS
        "void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>(T1::Params)",
        "cutlass_80_simt_sgemm_256x128_8x4_nn…",
        id="cutlass-simt-nsys",
    ),
    pytest.param(  # STOFM
        "void gemmk1_kernel<int, float, 256, 5, true, false, false, false, "
        "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, "
        "cublasGemvTensorStridedBatched<float>, float, 0>(cublasGemmk1Params<float, "
        "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, "
        "cublasGemvTensorStridedBatched<float>, float, "
        "biasType<cublasGemvTensorStridedBatched<float>::value_type, float>::type>)",
        "gemmk1_kernel",
        id="gemmk1",
    ),
    pytest.param(  # TF_TRACE
        "void gemmSN_NN_kernel<float, 256, 4, 2, 8, 3, 4, cublasGemvTensorStridedBatched<float const>, "
        "cublasGemvTensorStridedBatched<float> "
        ">(cublasGemmSmallNParams<cublasGemvTensorStridedBatched<float const>, "
        "cublasGemvTensorStridedBatched<float>, float>)",
        "gemmSN_NN_kernel",
        id="gemm-small-n",
    ),
    pytest.param(  # NVBIT_MAP
        "std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, "
        "float, false, true, true, false, 6, false, cublasGemvParamsEx<int, "
        "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, "
        "cublasGemvTensorStridedBatched<float>, float> >(cublasGemvParamsEx<int, "
        "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, "
        "cublasGemvTensorStridedBatched<float>, float>)",
        "gemvx::kernel",
        id="gemv",
    ),
    pytest.param(  # NVBIT_MAP
        "void cublasLt::splitKreduce_kernel<32, 16, int, float, float, float, float, true, true, "
        "false>(cublasLt::cublasSplitKParams<float>, float const*, float const*, float*, float const*, "
        "float const*, float const*, float const*, float*, void*, long, float*, int*)",
        "splitKreduce_kernel",
        id="split-k",
    ),
    pytest.param(  # NVBIT_MAP
        "fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<float, "
        "cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)",
        "fmha_cutlassF_f32_aligned_64x64_rf_sm80",
        id="mem-eff-attention",
    ),
    pytest.param(  # NCCL
        "ncclDevKernel_AllReduce_Sum_u64_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
        "ncclDevKernel_AllReduce_Sum_u64_RING_LL",
        id="nccl",
    ),
    pytest.param(  # HTOD
        "Memcpy HtoD (Pageable -> Device)",
        "memcpy HtoD",
        id="memcpy-htod",
    ),
    pytest.param(  # DTOH
        "Memcpy DtoH (Device -> Pinned)",
        "memcpy DtoH",
        id="memcpy-dtoh",
    ),
    pytest.param(  # STOFM
        "Memcpy DtoD (Device -> Device)",
        "memcpy DtoD",
        id="memcpy-dtod",
    ),
    pytest.param(  # MEMSET
        "Memset (Device)",
        "memset",
        id="memset",
    ),
    pytest.param(  # STOFM
        "triton_poi_fused_relu_1",
        "triton_poi_fused_relu_1",
        id="triton-short",
    ),
    pytest.param(  # STOFM
        "triton_poi_fused_abs_add_div_exp_mul_pow_sub_0",
        "triton_poi_fused_abs_add_div_exp_mul…_0",
        id="triton-long",
    ),
    pytest.param(  # RMSNORM
        "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0",
        "triton_red_fused__to_copy_add_mean…_0",
        id="triton-rmsnorm",
    ),
    pytest.param(  # TRITON_HUGE
        "triton_per_fused__softmax__to_copy_bitwise_and_cat_exp_expand_le_mul_prepare_softmax_online_"
        "scalar_tensor_sub_unsqueeze_view_where_14",
        "triton_per_fused__softmax__to_copy…_14",
        id="triton-huge",
    ),
    pytest.param(  # TUTORIAL
        "graph_0_cpp_fused__mkl_linear_add_mul_relu_151",
        "cpp_fused__mkl_linear_add_mul_relu_151",
        id="cpp-fused-linear",
    ),
    pytest.param(  # TUTORIAL
        "graph_0_cpp_fused_constant_pad_nd_embedding_0",
        "cpp_fused_constant_pad_nd_embedding_0",
        id="cpp-fused-pad",
    ),
    pytest.param(  # CPP_TABLE
        "graph_0_cpp_fused_gelu_add_2",
        "cpp_fused_gelu_add_2",
        id="cpp-fused-gelu",
    ),
    pytest.param(  # CPP_SOFTMAX
        "graph_0_cpp_fused__softmax_7",
        "cpp_fused__softmax_7",
        id="cpp-fused-softmax",
    ),
    pytest.param(  # STOFM
        "aten::add",
        "aten::add",
        id="aten-add",
    ),
    pytest.param(  # STOFM
        "aten::_softmax",
        "aten::_softmax",
        id="aten-softmax",
    ),
    pytest.param(  # CLAMP_TABLE
        "aten::clamp_min",
        "aten::clamp_min",
        id="aten-clamp-min",
    ),
    pytest.param(  # TUTORIAL
        "mkl::_mkl_linear",
        "mkl::_mkl_linear",
        id="mkl-linear",
    ),
]


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


def test_module_imports_nothing_heavy() -> None:
    # names.py runs in the UI process, which must not pay for importing torch.
    tree = ast.parse(Path(names.__file__).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    # ctypes reaches the C++ runtime's demangler, which is no heavier than the interpreter itself.
    assert imported <= {"__future__", "re", "ctypes", "functools"}
    assert "torch" not in imported


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
    if names._demangler() is None:
        pytest.skip("no C++ runtime with __cxa_demangle in this process")
    assert names._cxa_demangle(ATEN_MANGLED) == (
        "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnOther_add<bool>, "
        "at::detail::Array<char*, 2> >(int, at::native::CUDAFunctorOnOther_add<bool>, at::detail::Array<char*, 2>)"
    )
    assert names._cxa_demangle("_Znot_a_name") == ""


def test_mangled_names_are_read_without_a_cpp_runtime(monkeypatch: pytest.MonkeyPatch) -> None:
    names._demangled.cache_clear()
    monkeypatch.setattr(names, "_demangler", lambda: None)
    try:
        assert short_name(ATEN_MANGLED) == "vectorized_elementwise_kernel<add>"
        assert short_name("_ZN5aiter24add_rmsnorm_quant_kernelIDF16bLi256EEEvPT_") == "add_rmsnorm_quant_kernel"
    finally:
        names._demangled.cache_clear()


def test_each_mangled_name_is_demangled_once() -> None:
    names._demangled.cache_clear()
    short_name(ATEN_MANGLED)
    short_name(ATEN_MANGLED)
    info = names._demangled.cache_info()
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
