"""Crashes the interpreter

Reading address 0 ends the engine with SIGSEGV.
"""

import ctypes

import torch

SIZE = 1024


def fn(a):
    ctypes.string_at(0)
    return a


def inputs(size, device):
    return (torch.ones(size, device=device),)
