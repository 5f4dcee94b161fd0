"""Attribution that is complete: every eager operator's work is credited to the compiled kernel that did it."""

from __future__ import annotations

from kernel_tui.engine.counting.attribution import attribute
from kernel_tui.model.report.kernel import Kernel


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
