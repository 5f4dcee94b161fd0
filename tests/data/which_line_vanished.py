"""Three lines, the middle one a no-op that compiled code drops"""
import torch


def fn(a, b):
    s = a + b
    z = s * 1  # eager multiplies; Inductor removes a multiplication by one: this line's work vanishes
    return z.relu()


def inputs(size, device):
    return torch.randn(size, device=device), torch.randn(size, device=device)
