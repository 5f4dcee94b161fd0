"""A compile that fails

The eager side must still be shown, with the compile error.
"""

import torch

SIZE = 1024
COMPILE = {"backend": "no_such_backend"}


def fn(a):
    return a + 1


def inputs(size, device):
    return (torch.ones(size, device=device),)
