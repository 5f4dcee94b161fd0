"""A batched matmul and a ReLU, with a max-autotune variant: on a CPU, Inductor times ATen's bmm against its C++
template for it (tests/test_autotune.py)."""

import torch

VARIANTS = {
    "autotune": {"mode": "max-autotune"},
    # ATen's call alone: one candidate, so nothing is timed, and the variant's note says why.
    "aten_only": {"options": {"max_autotune": True, "max_autotune_gemm_backends": "ATEN"}},
}


def fn(a, b):
    return torch.bmm(a, b).relu()


def inputs(size, device):
    return torch.randn(4, size, size, device=device), torch.randn(4, size, size, device=device)
