"""Writes bytes that are not UTF-8 to stderr"""

import os

import torch

SIZE = 16
os.write(2, b"latin-1 says caf\xe9, and a lone \xff\n")


def fn(a):
    return a + 1


def inputs(size, device):
    return (torch.ones(size, device=device),)
