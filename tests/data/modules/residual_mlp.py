"""A residual MLP block whose layers live at module level (a test's model; not a lesson)."""

import torch
import torch.nn.functional as F
from torch import nn

WIDTH = 128
up = nn.Linear(WIDTH, 4 * WIDTH)
down = nn.Linear(4 * WIDTH, WIDTH)
norm = nn.LayerNorm(WIDTH)


def activation(h):
    return F.gelu(h)


def fn(x):
    h = down(activation(up(x)))
    return norm(x + h)


def inputs(size, device):
    return (torch.randn(size // WIDTH, WIDTH, device=device),)
