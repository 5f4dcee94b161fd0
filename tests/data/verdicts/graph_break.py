"""A break in the middle

A print splits fn into two graphs, with eager Python between them.
"""

import torch

SIZE = 2**20


def fn(x):
    y = x.sin() * 2
    print("between the graphs")
    return y.cos() + 1


def inputs(size, device):
    return (torch.randn(size, device=device),)
