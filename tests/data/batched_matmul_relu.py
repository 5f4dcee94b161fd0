"""A batched matmul and a ReLU, with a max-autotune variant: on a CPU, Inductor times ATen's bmm against its C++
template for it (tests/test_autotune.py)."""

import torch

VARIANTS = {"autotune": {"mode": "max-autotune"}}


def fn(a, b):
    return torch.bmm(a, b).relu()


def inputs(size, device):
    return torch.randn(4, size, size, device=device), torch.randn(4, size, size, device=device)
