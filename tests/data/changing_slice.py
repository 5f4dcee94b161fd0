"""A slice whose length changes between calls: each call keeps what it did not take for the next one, so its
length alternates, as a cache that grows and is trimmed does. Compiled for exact sizes, the second call fails the
size guard and compiles again; the ``dynamic`` variant compiles once (tests/test_recompile_fix.py)."""

import torch

KEPT = [torch.empty(0)]


def fn(x):
    rest = x[KEPT[0].shape[0] :]
    KEPT[0] = rest
    return rest.relu()


def inputs(size, device):
    KEPT[0] = torch.empty(size // 4, device=device)
    return (torch.randn(size, device=device),)
