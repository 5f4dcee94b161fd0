"""Three lines, one compiled kernel"""
import torch


def fn(a, b):
    s = a + b
    r = s.relu()
    return r * 2


def inputs(size, device):
    return torch.randn(size, device=device), torch.randn(size, device=device)
