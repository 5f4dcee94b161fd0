"""Never returns

Only the time-out can end it.
"""

import time

import torch

SIZE = 1024


def fn(a):
    time.sleep(3600)
    return a


def inputs(size, device):
    return (torch.ones(size, device=device),)
