"""Healthy, and quick to compile

Runs after the faults to show the engine recovers; the eager backend compiles in a moment, so a short
time-out fits it on a busy machine.
"""

import torch

SIZE = 1024
COMPILE = {"backend": "eager"}


def fn(a):
    return a.t()


def inputs(size, device):
    return (torch.ones(32, size // 32, device=device),)
