"""A full sum, then the input scaled by it

The division reads the sum, which needs every element first: a boundary of kind reduction where the two
are separate kernels.
"""

import torch

SIZE = 2**16


def fn(x):
    return (x - 3) / x.abs().sum()


def inputs(size, device):
    return (torch.randn(size, device=device),)
