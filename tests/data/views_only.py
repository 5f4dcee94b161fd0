"""Views only

Reshaping, transposing and slicing launch nothing.
"""

import torch

SIZE = 4096
EXPECT = {"eager": 0}


def fn(x):
    return x.view(64, -1).t()[::2]


def inputs(size, device):
    return (torch.randn(size, device=device),)
