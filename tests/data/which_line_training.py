"""Three lines, one compiled kernel, in a training step"""
import torch

TRAIN = True
def fn(a, b):
    s = a + b
    r = s.relu()
    return r * 2


def inputs(size, device):
    return torch.randn(size, device=device), torch.randn(size, device=device)
