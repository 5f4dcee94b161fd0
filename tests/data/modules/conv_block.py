"""A conv + batch norm + ReLU block in eval mode, its module at module level (a test's model; not a lesson)."""

import torch
from torch import nn

block = nn.Sequential(nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU()).eval()


def fn(x):
    return block(x)


def inputs(size, device):
    return (torch.randn(size // (8 * 16 * 16), 8, 16, 16, device=device),)
