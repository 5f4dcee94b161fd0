"""A long chain of elementwise operations

Seven elementwise operations in a row: multiply, add, sine, absolute value, square root,
negation, exponential. How many kernels will eager PyTorch run? How many will the compiled
version run? Count the array-sized transfers for both before you look.

**Why.** Eager mode pays for every line separately: seven operations, seven kernels. Each one
reads a full array and writes a full array, so the chain costs fourteen transfers, and six of the
arrays it writes are thrown away as soon as the next line has read them.

Every one of these operations works on one element at a time, with no neighbours involved, so the
compiler can put the whole chain in a single loop. The compiled kernel reads `x` once, does all
seven steps on each element while it sits in a register, and writes the result once: one kernel,
two transfers, the ideal.

**Try next.** Add an eighth one-input operation to `fn`, such as `.cos()`, and predict both
columns again: how much does eager grow, and does compiled move at all? Then compare
the runtimes across sizes: both sides do the same arithmetic, only the memory traffic differs.
"""

import torch

EXPECT = {"eager": 7, "compiled": 1, "eager_transfers": 14, "compiled_transfers": 2, "ideal_transfers": 2}
SIZES = [2**10, 2**12, 2**14, 2**16, 2**18, 2**20, 2**22]


def fn(x):
    y = x * 2
    y = y + 1
    y = y.sin()
    y = y.abs()
    y = y.sqrt()
    y = y.neg()
    return y.exp()


def inputs(size, device):
    return (torch.randn(size, device=device),)
