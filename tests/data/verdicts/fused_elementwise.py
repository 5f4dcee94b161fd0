"""A long elementwise chain

Eight transcendental functions in a row: eager runs eight kernels and writes each result to memory, compiled runs
one kernel that keeps every value in a register.
"""

import torch

SIZE = 2**22


def fn(x):
    return x.sin().cos().exp().tanh().sigmoid().sin().cos().exp()


def inputs(size, device):
    return (torch.randn(size, device=device),)
