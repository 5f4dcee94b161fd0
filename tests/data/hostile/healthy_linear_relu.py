"""A healthy module scenario: a Linear layer, then ReLU (what the hostile scenarios before it patched)."""

import torch

layer = torch.nn.Linear(64, 64)
relu = torch.nn.ReLU()


def fn(x):
    return relu(layer(x))


def inputs(size, device):
    return (torch.randn(32, 64, device=device),)
