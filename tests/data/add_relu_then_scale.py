"""Add, ReLU, then scale

add_relu.py with one more operation: a graph break keeps the multiplication out of the fused kernel, so the
compiled side launches a second kernel and moves two more arrays, which a pinned baseline must show as grown.
"""

import torch


def fn(a, b):
    c = (a + b).relu()
    torch._dynamo.graph_break()
    return c * 2


def inputs(size, device):
    return torch.randn(size, device=device), torch.randn(size, device=device)
