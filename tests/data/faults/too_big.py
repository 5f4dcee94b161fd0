"""Asks for more memory than the machine has at large sizes

The sweep must end early with a note, not a crash.
"""

import torch

SIZE = 1024
SIZES = [1024, 2048, 4096]


def fn(a):
    return a + 1


def inputs(size, device):
    # Past 2048 elements this asks for 2**50 floats: a real failed allocation.
    return (torch.ones(size if size <= 2048 else 2**50, device=device),)
