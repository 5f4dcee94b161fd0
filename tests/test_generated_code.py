"""Reading Inductor's generated code: parameters, kernel source, original ATen ops, and which pointers are read."""

from __future__ import annotations

from kernel_tui.engine.generated_code import kernel_definition, kernel_params, loads_pointer, original_aten

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


def test_parameters_in_order_for_triton_and_cpp():
    triton = kernel_params(WRAPPER, "triton_poi_fused_add_relu_0")
    assert triton == ["in_ptr0", "in_ptr1", "out_ptr0", "xnumel", "XBLOCK"]
    assert kernel_params(WRAPPER, "cpp_fused_gelu_native_layer_norm_0") == ["in_out_ptr0", "in_out_ptr1", "in_ptr0"]


def test_kernel_source_and_original_aten_ops():
    assert kernel_definition(WRAPPER, "triton_poi_fused_add_relu_0").lstrip().startswith("@triton.jit")
    assert 'extern "C"' in kernel_definition(WRAPPER, "cpp_fused_gelu_native_layer_norm_0")
    assert original_aten(WRAPPER, "triton_poi_fused_add_relu_0") == ("aten::add", "aten::relu")
    assert original_aten(WRAPPER, "cpp_fused_gelu_native_layer_norm_0") == ()


def test_an_in_out_pointer_only_stored_to_is_not_read():
    code = kernel_definition(WRAPPER, "cpp_fused_gelu_native_layer_norm_0")
    assert loads_pointer(code, "in_out_ptr0")
    assert not loads_pointer(code, "in_out_ptr1")
    triton = "def k(in_out_ptr0, in_out_ptr1):\n    x = tl.load(in_out_ptr0 + 1)\n    tl.store(in_out_ptr1 + 1, x)\n"
    assert loads_pointer(triton, "in_out_ptr0") and not loads_pointer(triton, "in_out_ptr1")
    assert loads_pointer(None, "in_out_ptr0")
    aliased = "auto out_ptr0 = in_out_ptr0;\nauto tmp0 = loadu(out_ptr0 + x);\ntmp3.store(in_out_ptr0 + x);\n"
    assert loads_pointer(aliased, "in_out_ptr0"), "a load through an alias reads the parameter"
