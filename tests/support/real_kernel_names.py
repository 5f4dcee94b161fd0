"""Kernel names exactly as torch.profiler and CUPTI-based tools report them, with the short name each should get.

Copied verbatim from public profiles (sources below and on each entry), so the rules in ``kernel_tui.model.names.names``
are checked (``test_names``) against what CUDA, ROCm and Inductor really emit, not against names written to fit
them.
"""

from __future__ import annotations

import pytest

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
