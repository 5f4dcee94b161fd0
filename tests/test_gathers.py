"""A compiled gather or scatter moves the rows its indices pick, not the table it is handed (issue 56)."""

from __future__ import annotations

from typing import Any

import pytest

from kernel_tui.engine.compiler.gathers import Gather, gathered_pointers

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
