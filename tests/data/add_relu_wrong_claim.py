"""Add, then ReLU, with a wrong claim

A lesson that claims too much: the engine must say so.
"""

import torch

EXPECT = {"eager": 2, "compiled": 2}


def fn(a, b):
    return (a + b).relu()


def inputs(size, device):
    return torch.randn(size, device=device), torch.randn(size, device=device)
