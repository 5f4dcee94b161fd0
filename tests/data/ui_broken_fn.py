"""A scenario whose fn fails

The lesson never gets to run: fn divides a tensor by a string.
"""
import torch


def fn(a):
    return a / "two"


def inputs(size, device):
    return (torch.randn(size, device=device),)
