"""fn returns nothing"""

import torch

SIZE = 1024


def fn(a):
    a + 1


def inputs(size, device):
    return (torch.ones(size, device=device),)
