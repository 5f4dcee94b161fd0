"""Two pointwise chains with a graph break between them

A print splits the compiled code: the first chain's result crosses to the second graph through memory.
"""

import torch

SIZE = 4096


def fn(x):
    y = x.sin().mul(3)
    print("between the chains")
    return y.exp().sub(1)


def inputs(size, device):
    return (torch.randn(size, device=device),)
