"""Reading Inductor's generated code: parameters, kernel source, original ATen ops, and which pointers are read."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from kernel_tui.engine.compiler.gathers import Gather, gathered_pointers
from kernel_tui.engine.compiler.generated_code import kernel_definition, kernel_params, loads_pointer, original_aten

if TYPE_CHECKING:
    import torch

    from kernel_tui.engine.counting.traffic import Traffic

WRAPPER = """

# kernel path: /tmp/x.py
# Topologically Sorted Source Nodes: [add, relu], Original ATen: [aten.add, aten.relu]
triton_poi_fused_add_relu_0 = async_compile.triton('triton_poi_fused_add_relu_0', '''
@triton.jit
def triton_poi_fused_add_relu_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    tmp0 = tl.load(in_ptr0 + (x0), xmask)
    tl.store(out_ptr0 + (x0), tmp4, xmask)
''', device_str='cuda')


cpp_fused_gelu_native_layer_norm_0 = async_compile.cpp_pybinding(['float*', 'float*', 'const float*'], r'''
extern "C"  void  kernel(float* in_out_ptr0,
                       float* in_out_ptr1,
                       const float* in_ptr0)
{
    auto out_ptr0 = in_out_ptr0;
    in_out_ptr0[static_cast<int64_t>(x0)] = static_cast<float>(tmp_acc0);
    auto tmp1 = in_out_ptr0[static_cast<int64_t>(x0)];
    tmp26.store(in_out_ptr1 + static_cast<int64_t>(x1 + 1024L*x0));
}
''')
"""


def test_parameters_in_order_for_triton_and_cpp() -> None:
    triton = kernel_params(WRAPPER, "triton_poi_fused_add_relu_0")
    assert triton == ["in_ptr0", "in_ptr1", "out_ptr0", "xnumel", "XBLOCK"]
    assert kernel_params(WRAPPER, "cpp_fused_gelu_native_layer_norm_0") == ["in_out_ptr0", "in_out_ptr1", "in_ptr0"]


def test_kernel_source_and_original_aten_ops() -> None:
    triton_kernel = kernel_definition(WRAPPER, "triton_poi_fused_add_relu_0")
    cpp_kernel = kernel_definition(WRAPPER, "cpp_fused_gelu_native_layer_norm_0")
    assert triton_kernel is not None and cpp_kernel is not None
    assert triton_kernel.lstrip().startswith("@triton.jit")
    assert 'extern "C"' in cpp_kernel
    assert original_aten(WRAPPER, "triton_poi_fused_add_relu_0") == ("aten::add", "aten::relu")
    assert original_aten(WRAPPER, "cpp_fused_gelu_native_layer_norm_0") == ()


def test_an_in_out_pointer_only_stored_to_is_not_read() -> None:
    code = kernel_definition(WRAPPER, "cpp_fused_gelu_native_layer_norm_0")
    assert loads_pointer(code, "in_out_ptr0")
    assert not loads_pointer(code, "in_out_ptr1")
    triton = "def k(in_out_ptr0, in_out_ptr1):\n    x = tl.load(in_out_ptr0 + 1)\n    tl.store(in_out_ptr1 + 1, x)\n"
    assert loads_pointer(triton, "in_out_ptr0") and not loads_pointer(triton, "in_out_ptr1")
    assert loads_pointer(None, "in_out_ptr0")
    aliased = "auto out_ptr0 = in_out_ptr0;\nauto tmp0 = loadu(out_ptr0 + x);\ntmp3.store(in_out_ptr0 + x);\n"
    assert loads_pointer(aliased, "in_out_ptr0"), "a load through an alias reads the parameter"


# -- on generated code: templates, fallbacks, device copies, long comments (issues 7 and 11) -------------------

TEMPLATE_WRAPPER = """
# Topologically Sorted Source Nodes: [matmul], Original ATen: [aten.mm]
triton_tem_fused_mm_0 = async_compile.triton('triton_tem_fused_mm_0', '''
@triton.jit
def triton_tem_fused_mm_0(arg_A, arg_B, out_ptr0, ks0):
    A = arg_A
    B = arg_B
    tl.store(out_ptr0 + xindex, acc, mask)
''', device_str='cuda')
"""


def test_a_template_kernels_named_inputs_are_read(tmp_path: Path) -> None:
    """A max-autotune GEMM template names its inputs ``arg_A``, ``arg_B``: every tensor that is not an output
    is read. (Inductor writes templates only after benchmarking them on a GPU, hence a wrapper written here
    in its exact form.)"""
    import types

    import torch

    from kernel_tui.engine.compiler.generated_code import recording_kernels

    path = tmp_path / "wrapper.py"
    path.write_text(TEMPLATE_WRAPPER)
    module: Any = types.ModuleType("wrapper")  # a wrapper module, with the kernel attribute generated ones have
    module.__file__ = str(path)
    module.triton_tem_fused_mm_0 = types.SimpleNamespace(run=lambda *args, **kwargs: None)
    a, b, out = torch.ones(64, 32), torch.ones(32, 16), torch.empty(64, 16)
    records: list[Traffic] = []
    with recording_kernels(records, [module]):
        module.triton_tem_fused_mm_0.run(a, b, out, 64, stream=0)
    assert [(r.name, r.bytes_read, r.bytes_written) for r in records] == [
        ("triton_tem_fused_mm_0", (64 * 32 + 32 * 16) * 4, 64 * 16 * 4)
    ]
    assert records[0].aten_ops == ("aten::mm",)


@pytest.mark.engine  # compiles in the test process
def test_a_torch_ops_fallback_in_a_real_cpu_wrapper_has_bytes() -> None:
    """Inductor writes ``torch.ops.aten.sort.stable(buf0, ...)`` for a sort: one library launch, with bytes."""
    import torch

    from kernel_tui.engine.compiler.generated_code import compiled_traffic

    def fn(x: torch.Tensor) -> torch.Tensor:
        return torch.sort(x * 2).values + 1

    x = torch.randn(64, 64)
    torch._dynamo.reset()
    compiled = torch.compile(fn)
    with torch.no_grad():
        compiled(x)
    records = compiled_traffic(compiled, (x,))
    sort = [r for r in records if r.name == "aten::sort"]
    assert len(sort) == 1, [r.name for r in records]
    array = 64 * 64 * 4
    assert (sort[0].bytes_read, sort[0].bytes_written) == (array, array + 64 * 64 * 8), "values and int64 indices"
    assert [r.name for r in records if r.name.startswith("cpp_")] == ["cpp_fused_mul_0", "cpp_fused_add_1"]


def _fake_cuda(*shapes: int) -> tuple[torch.Tensor, ...]:
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        return tuple(torch.randn(shape, device="cuda") for shape in shapes)


@pytest.mark.engine  # Inductor's code generation, in this process
def test_a_device_copy_in_a_real_gpu_wrapper_has_bytes() -> None:
    """``(x * 2).cpu()`` compiled for a GPU: a Triton kernel, then ``buf1.copy_(buf0, False)`` in the wrapper,
    a device-to-host copy that reads the array on the GPU and writes it on the host."""
    from kernel_tui.engine.preview.preview_codegen import generate_for_gpu

    code = generate_for_gpu(lambda x: (x * 2).cpu(), _fake_cuda(4096), 90)
    assert ".copy_(buf0" in code.sources[0]
    assert [(r.call or r.name, r.kind, r.bytes_read, r.bytes_written) for r in code.records] == [
        ("triton_poi_fused__to_copy_mul_0", "kernel", 4096 * 4, 4096 * 4),
        ("Memcpy DtoH (Device -> Pageable)", "memcpy", 4096 * 4, 4096 * 4),
    ]


@pytest.mark.engine  # Inductor's code generation, in this process
def test_original_aten_past_a_long_graph_fragment_comment() -> None:
    """A long chain fused into one Triton kernel gets a comment far longer than 4,000 characters."""
    from kernel_tui.engine.preview.preview_codegen import generate_for_gpu

    def chain(x: torch.Tensor) -> torch.Tensor:
        for _ in range(30):
            x = (x * 1.5).sin()
        return x.cos()

    code = generate_for_gpu(chain, _fake_cuda(4096), 90)
    (record,) = code.records
    source = code.sources[0]
    comment = source[: source.find(f"{record.name} = async_compile.")].rsplit("\n\n\n", 1)[-1]
    assert len(comment) > 4000
    assert original_aten(source, record.name) == ("aten::mul", "aten::sin", "aten::cos")
    assert record.aten_ops == ("aten::mul", "aten::sin", "aten::cos")
    # The kernel's whole module and nothing after it (a Triton text ends with its closing quotes and device_str).
    definition = kernel_definition(source, record.name)
    assert definition is not None
    assert f"def {record.name}(" in definition and definition.rstrip().endswith("None)")
    assert "async_compile" not in definition


@pytest.mark.engine  # compiles in the test process
def test_a_layout_conversion_inductor_adds_is_named_with_what_avoids_it() -> None:
    """Inductor runs a CPU convolution channels-last: a model kept in the default layout has its weights and input
    copied into channels-last on every call, by a kernel that computes nothing; kept channels-last, there is no
    such copy (issue 56)."""
    import torch

    from kernel_tui.engine.compiler.generated_code import compiled_traffic

    def conversions(channels_last: bool) -> list[Traffic]:
        model = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3), torch.nn.ReLU(), torch.nn.Conv2d(16, 16, 3))
        x = torch.randn(2, 3, 32, 32)
        if channels_last:
            model, x = model.to(memory_format=torch.channels_last), x.to(memory_format=torch.channels_last)
        torch._dynamo.reset()
        compiled = torch.compile(model)
        with torch.no_grad():
            compiled(x)
        records = compiled_traffic(compiled, (x,))
        assert not [r.name for r in records if r.name == "aten::equal"], "comparing values is not the call's work"
        return [r for r in records if r.layout]

    found = conversions(False)
    into = [r for r in found if "into channels-last" in (r.layout or "")]
    assert into and all(r.flops == 0 and r.aten_ops == () for r in found)
    assert "model.to(memory_format=torch.channels_last)" in (into[0].layout or "")
    assert conversions(True) == []


# -- a compiled gather or scatter moves the rows its indices pick, not the table it is handed (issue 56) --------

# Lines of the kernels Inductor generates for F.embedding(i, w) * 2 with a (4096, 64) table, and for the
# embedding's backward and cross-entropy's nll_loss, as torch 2.14 writes them (trimmed to what is read).
TRITON_EMBEDDING = """
@triton.jit
def triton_poi_fused_embedding_mul_0(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xnumel = 2048
    tmp0 = tl.load(in_ptr0 + (x1), xmask, eviction_policy='evict_last')
    tl.device_assert(((0 <= tmp0) & (tmp0 < 4096)) | ~(xmask), "index out of bounds: 0 <= tmp0 < 4096")
    tmp2 = tl.load(in_ptr1 + (x0 + 64*tmp0), xmask)
    tmp3 = tl.full([1], 2.0, tl.float32)
    tmp4 = tmp2 * tmp3
    tl.store(out_ptr0 + (x2), tmp4, xmask)
"""
CPP_EMBEDDING = """
extern "C"  void  kernel(const int64_t* in_ptr0,
                       const float* in_ptr1,
                       float* out_ptr0)
{
    #pragma omp parallel
    {
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(32L); x0+=static_cast<int64_t>(1L))
        {
            for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(64L); x1+=static_cast<int64_t>(16L))
            {
                auto tmp0 = in_ptr0[static_cast<int64_t>(x0)];
                auto tmp1 = tmp0;
                auto tmp2 = c10::convert<int64_t>(tmp1);
                TORCH_CHECK((0 <= tmp2) & (tmp2 < 4096L), "index out of bounds: 0 <= tmp2 < 4096L");
                auto tmp4 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x1 + 64L*tmp0),
                                                              static_cast<int64_t>(16));
                auto tmp_acc0 = at::vec::vec_reduce_all<float, 1>(
                    [](at::vec::Vectorized<float>& x, at::vec::Vectorized<float>& y) { return x + y; }, tmp4);
                tmp4.store(out_ptr0 + static_cast<int64_t>(x1 + 64L*x0));
            }
        }
    }
}
"""
TRITON_SCATTER = """
def triton_poi_fused_embedding_dense_backward_1(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    tmp0 = tl.load(in_ptr0 + (x1), xmask, eviction_policy='evict_last')
    tmp17 = tl.load(in_ptr1 + (x2), xmask)
    tmp7 = tmp0 < 0
    tmp8 = tl.where(tmp7, tmp0 + 4096, tmp0)
    tmp19 = tl.where(tmp0 != -1, tmp17, 0.0)
    tl.atomic_add(out_ptr0 + (x0 + 64*tmp8), tmp19, xmask, sem='relaxed')
"""
CPP_SCATTER_AFTER_ZEROING = """
extern "C"  void  kernel(const int64_t* in_ptr0,
                       const float* in_ptr1,
                       float* out_ptr0)
{
    {
        auto tmp0 = static_cast<float>(0.0);
        auto tmp1 = at::vec::Vectorized<float>(tmp0);
        tmp1.store(out_ptr0 + static_cast<int64_t>(x0));
    }
    {
        auto tmp0 = in_ptr0[static_cast<int64_t>(x0)];
        auto tmp18 = at::vec::Vectorized<float>::loadu(in_ptr1 + static_cast<int64_t>(x1 + 64L*x0),
                                                       static_cast<int64_t>(16));
        auto tmp9 = tmp0 < 0 ? tmp0 + 4096 : tmp0;
        auto tmp23 = x1 + 64L*tmp9;
        auto tmp24 = c10::convert<int64_t>(tmp23);
        auto tmp25 = at::vec::VectorizedN<int64_t,2>::arange(tmp24, 1);
        atomic_add_vec<float, 2, 1>(out_ptr0, tmp25, tmp18);
    }
}
"""
CPP_PICKED_IN_A_LAMBDA = """
extern "C"  void  kernel(const float* in_ptr0,
                       const int64_t* in_ptr1,
                       float* out_ptr0)
{
    auto tmp2 = at::vec::VectorizedN<int64_t,2>::loadu(in_ptr1 + static_cast<int64_t>(x0), static_cast<int64_t>(16));
    auto tmp9 =
    [&]
    {
        __at_align__ std::array<int64_t, 16> tmpbuf;
        tmp2.store(tmpbuf.data());
        return tmpbuf;
    }
    ()
    ;
    auto tmp12 =
    [&]
    {
        __at_align__ std::array<float, 16> tmpbuf;
        for (long x0_inner = 0; x0_inner < static_cast<int64_t>(16); x0_inner++)
        {
            tmpbuf[x0_inner] = in_ptr0[static_cast<int64_t>(tmp9[x0_inner] + 4096L*x0 + 4096L*x0_inner)];
        }
        return at::vec::Vectorized<float>::loadu(tmpbuf.data(), static_cast<int64_t>(16));
    }
    ()
    ;
    tmp12.store(out_ptr0 + static_cast<int64_t>(x0));
}
"""


def test_an_embeddings_table_is_gathered_in_triton_and_cpp() -> None:
    row = Gather(frozenset({"in_ptr0"}), 64)
    assert gathered_pointers(TRITON_EMBEDDING) == {"in_ptr1": row}
    assert gathered_pointers(CPP_EMBEDDING) == {"in_ptr1": row}
    assert row.elements(32, 4096 * 64) == 32 * 64 and row.elements(10**6, 4096 * 64) == 4096 * 64


def test_an_index_means_the_tmp_last_defined() -> None:
    """C++ kernels name tmp0 afresh in each loop: a layer norm after an embedding loads its mean as tmp0 between
    two loops that load the ids as tmp0 (Hugging Face GPT-2's first kernel)."""
    gather = CPP_EMBEDDING.split("#pragma omp parallel")[1].rsplit("}", 1)[0]
    mean = "{ auto tmp0 = at::vec::Vectorized<float>::loadu(out_ptr0 + static_cast<int64_t>(x0)); }"
    code = CPP_EMBEDDING.split("{", 1)[0] + "{" + gather + mean + gather + "}"
    assert gathered_pointers(code) == {"in_ptr1": Gather(frozenset({"in_ptr0"}), 64)}


def test_a_scatter_writes_the_rows_it_picks_unless_the_kernel_also_writes_the_whole_table() -> None:
    assert gathered_pointers(TRITON_SCATTER) == {"out_ptr0": Gather(frozenset({"in_ptr0"}), 64)}
    assert gathered_pointers(CPP_SCATTER_AFTER_ZEROING) == {}, "the zeroing loop writes every row"


def test_one_element_per_index_when_the_index_is_not_scaled() -> None:
    """nll_loss picks one class score per target, here through a C++ lambda's buffer of indices."""
    assert gathered_pointers(CPP_PICKED_IN_A_LAMBDA) == {"in_ptr0": Gather(frozenset({"in_ptr1"}), 1)}
    assert gathered_pointers(None) == {}


def _embedding_rows(records: list[Any], tokens: int, width: int) -> tuple[int, int]:
    (gather,) = [r for r in records if "embedding" in r.name]
    return gather.bytes_read, tokens * width * 4 + tokens * 8


@pytest.mark.engine  # compiles in the test process, for the CPU and for an sm_90 GPU
def test_a_compiled_embedding_reads_the_rows_it_gathers() -> None:
    """A (4096, 64) table, 32 tokens: 8 KiB of rows and 256 bytes of ids, where the table is 1 MiB."""
    import torch
    import torch.nn.functional as F
    from torch._subclasses.fake_tensor import FakeTensorMode

    from kernel_tui.engine.compiler.generated_code import compiled_traffic
    from kernel_tui.engine.preview.preview_codegen import generate_for_gpu

    def fn(weight: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        return F.embedding(ids, weight) * 2

    args = (torch.randn(4096, 64), torch.randint(0, 4096, (2, 16)))
    torch._dynamo.reset()
    compiled = torch.compile(fn)
    with torch.no_grad():
        compiled(*args)
    read, rows = _embedding_rows(compiled_traffic(compiled, args), 32, 64)
    assert rows <= read <= 2 * rows, (read, rows)
    with FakeTensorMode():
        fakes = tuple(torch.empty(a.shape, dtype=a.dtype, device="cuda") for a in args)
    read, rows = _embedding_rows(generate_for_gpu(fn, fakes, 90).records, 32, 64)
    assert rows <= read <= 2 * rows, (read, rows)
