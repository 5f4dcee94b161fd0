"""Imports a module that does not exist"""

import torch
import no_such_module_here


def fn(a):
    return a


def inputs(size, device):
    return (torch.ones(size, device=device),)
