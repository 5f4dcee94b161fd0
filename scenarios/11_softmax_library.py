"""Softmax from the library

`torch.softmax(x, dim=-1)` on a thousand rows of 1024. Softmax subtracts each row's maximum,
exponentiates, and divides by the row's sum. That sounds like several steps: how many kernels
does eager PyTorch run? How many compiled? How many array-sized transfers?

**Why.** Eager runs one kernel. `softmax` is not built from smaller PyTorch operations: it has a
hand-written kernel of its own, which takes a row, finds its maximum, sums the exponentials and
writes the normalised row. A row of 1024 floats is 4 KiB and stays in cache while the kernel
makes its passes over it, so the array goes to memory only twice: read once, written once. Two
transfers, the ideal.

Inductor splits softmax back into its steps (max, subtract, exp, sum, divide) and fuses them into
one kernel of its own, row by row. On CPU it also writes each row's maximum and sum to small
buffers, a few KiB next to a 4 MiB array, so it lands on about two transfers as well.

**Try next.** Read the next lesson, softmax written by hand, and predict it before you open it.
On a GPU, eager softmax is also a single kernel; put `--device cuda` on the command line to see
its name. Inductor's GPU kernel keeps each row in registers, so it moves exactly two transfers.
"""

import torch

EXPECT = {
    "eager_transfers": 2,
    "ideal_transfers": 2,
    "cpu": {"eager": 1, "compiled": 1, "compiled_transfers": 2},
    "cuda": {"eager": 1, "compiled": 1, "compiled_transfers": 2},
}
SIZES = [2**12, 2**14, 2**16, 2**18, 2**20, 2**22]


def fn(x):
    return torch.softmax(x, dim=-1)


def inputs(size, device):
    return (torch.randn(size // 1024, 1024, device=device),)
