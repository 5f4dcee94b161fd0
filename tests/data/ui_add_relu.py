"""Add, then ReLU

Two ops eager, one fused kernel compiled: the example the UI tests replay.
"""
import torch

EXPECT = {"eager": 2, "compiled": 1, "eager_transfers": 5, "compiled_transfers": 3}


def fn(a, b):
    return (a + b).relu()


def inputs(size, device):
    return torch.randn(size, device=device), torch.randn(size, device=device)
