"""A biased matmul, then relu

Eager adds the bias inside the BLAS call (addmm); compiled takes the bias out of the library call to fuse it with
the relu, so the product goes through memory between the two.
"""

import torch

SIZE = 512 * 512


def fn(x, weight, bias):
    return torch.relu(torch.nn.functional.linear(x, weight, bias))


def inputs(size, device):
    side = int(size**0.5)
    return (
        torch.randn(side, side, device=device),
        torch.randn(side, side, device=device),
        torch.randn(side, device=device),
    )
