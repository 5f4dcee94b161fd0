"""A small conv net: the input scaled, two conv + batch-norm + ReLU stages, pooled, then a SwiGLU head (a test's
model; not a lesson). Two lines multiply: the scaling and the head's gate, each compiled into a kernel of its
own."""

import torch
import torch.nn.functional as F
from torch import nn

CHANNELS = 8
SIDE = 16


class Stage(nn.Module):
    def __init__(self, channels_in: int, channels_out: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(channels_in, channels_out, 3, padding=1, bias=False)
        self.norm = nn.BatchNorm2d(channels_out)

    def forward(self, x):
        return torch.relu(self.norm(self.conv(x)))


class GatedHead(nn.Module):
    def __init__(self, width: int, classes: int) -> None:
        super().__init__()
        self.gate = nn.Linear(width, 2 * width, bias=False)
        self.up = nn.Linear(width, 2 * width, bias=False)
        self.down = nn.Linear(2 * width, classes, bias=False)

    def forward(self, x):
        gated = F.silu(self.gate(x)) * self.up(x)
        return self.down(gated)


class ConvNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stages = nn.Sequential(Stage(3, CHANNELS), Stage(CHANNELS, 2 * CHANNELS))
        self.head = GatedHead(2 * CHANNELS, 10)

    def forward(self, x):
        x = x * 2.0
        pooled = self.stages(x).mean(dim=(2, 3))
        return self.head(pooled)


net = ConvNet().eval()


def fn(x):
    return net(x)


def inputs(size, device):
    return (torch.randn(max(size // (3 * SIDE * SIDE), 1), 3, SIDE, SIDE, device=device),)
