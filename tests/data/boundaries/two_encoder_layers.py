"""Two eval-mode encoder layers: each runs as PyTorch's fast-path operator, which Inductor calls as it is."""

import torch
from torch import nn

first = nn.TransformerEncoderLayer(32, 2, dim_feedforward=64, batch_first=True).eval()
second = nn.TransformerEncoderLayer(32, 2, dim_feedforward=64, batch_first=True).eval()


def fn(x):
    return second(first(x))


def inputs(size, device):
    return (torch.randn(size // (16 * 32), 16, 32, device=device),)
