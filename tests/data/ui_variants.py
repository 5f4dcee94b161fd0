"""Add, then ReLU, in three compile variants

The example the variant UI tests replay: a variant that changes the kernels' signature (dynamic), one a CPU
cannot honour (reduce-overhead needs CUDA graphs), and one that cannot compile at all.
"""
import torch

SIZE = 4096
EXPECT = {"eager": 2, "compiled": 1}
VARIANTS = {
    "default": {},
    "dynamic": {"dynamic": True},
    "reduce-overhead": {"mode": "reduce-overhead"},
    "no-compiler": {"options": {"cpp.cxx": ("no-such-compiler",)}},
}


def fn(a, b):
    return (a + b).relu()


def inputs(size, device):
    return torch.randn(size, device=device), torch.randn(size, device=device)
