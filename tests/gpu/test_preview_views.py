"""The CUDA preview of library calls that read a view of an input (``w.t()``, ``b.transpose(1, 2)``).

Inductor's wrapper views such an operand with ``reinterpret_tensor``, which made a plain meta tensor of the
fake input, and the library call on it failed ("Please convert all Tensors to FakeTensors first"); every
``nn.Linear`` ended so. The expected launches are what Inductor's own CUDA wrapper calls for these functions
(read from the wrapper it generated for sm_90 by ``shared/tools/gpu-audit/inductor_truth.py``). None of these
functions is in the course.
"""

from __future__ import annotations

import pytest
from conftest import WriteScenario, measure

from kernel_tui.transport.client import EngineClient

HEADER = "import torch\nimport torch.nn.functional as F\n\nSIZE = 4096\n\n\n"
CASES = {
    "linear": (
        "def fn(x, w, b):\n    return F.linear(x, w, b)\n",
        "(torch.randn(64, 64, device=device), torch.randn(32, 64, device=device), torch.randn(32, device=device))",
        [("extern_kernels.addmm", 1)],
    ),
    "matmul_transposed_relu": (
        "def fn(x, w):\n    return torch.relu(x @ w.t())\n",
        "(torch.randn(64, 64, device=device), torch.randn(32, 64, device=device))",
        [("extern_kernels.mm", 1), ("triton_poi_fused_relu_0", 1)],
    ),
    "addmm_transposed_weight": (
        "def fn(b, x, w):\n    return torch.addmm(b, x, w.t())\n",
        "(torch.randn(32, device=device), torch.randn(64, 64, device=device), torch.randn(32, 64, device=device))",
        [("extern_kernels.addmm", 1)],
    ),
    "bmm_transposed_operand": (
        "def fn(a, b):\n    return torch.bmm(a, b.transpose(1, 2))\n",
        "(torch.randn(4, 16, 32, device=device), torch.randn(4, 8, 32, device=device))",
        [("extern_kernels.bmm", 1)],
    ),
    "gram_matrix": (
        "def fn(x):\n    return x @ x.t()\n",
        "(torch.randn(64, 32, device=device),)",
        [("extern_kernels.mm", 1)],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_library_call_on_a_view_names_what_inductors_cuda_wrapper_launches(
    preview_engine: EngineClient, write_scenario: WriteScenario, case: str
) -> None:
    body, inputs, expected = CASES[case]
    source = HEADER + body + f"\n\ndef inputs(size, device):\n    return {inputs}\n"
    report = measure(preview_engine, write_scenario(source, f"{case}.py"))
    assert report.error is None, f"{report.error.one_line()}\n{report.error.details}"
    assert report.compiled is not None
    assert [(kernel.name, kernel.calls) for kernel in report.compiled.kernels] == expected
    library = next(kernel for kernel in report.compiled.kernels if kernel.name.startswith("extern_kernels."))
    # The view is read in place: the library call receives both operands' bytes, not a copy's.
    assert library.bytes_read and library.bytes_written
