"""A graph break

A print in the middle splits the compiled code in two.
"""

import torch

SIZE = 4096
EXPECT = {"graph_breaks": 1}


def fn(a, b):
    c = a + b
    print("between the graphs")
    return c.relu()


def inputs(size, device):
    return torch.randn(size, device=device), torch.randn(size, device=device)
