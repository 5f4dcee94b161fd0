"""Matmul, then tanh: arithmetic or memory?

`torch.tanh(x @ w)` on two 1024 by 1024 matrices. How many kernels eager, and compiled? How many
array-sized transfers each? And a new question: which kernel is limited by arithmetic, and which by
memory?

**Why.** Eager runs the `mm` (it reads `x` and `w` and writes the product: three transfers) and the
`tanh` (two more). Compiled, the same two and the same five transfers: the multiply is one library
call (the library may split it), and Inductor cannot put the `tanh` inside it.

Count the work instead of the bytes. The product does 2·1024³, about 2.1 billion operations, on
12 MiB: some 170 operations per byte, its *arithmetic intensity*. The `tanh` does one per element
on 8 MiB: 0.125 per byte. A device runs at most its peak FLOP/s, and at most its bandwidth times
the intensity; the two limits meet at the ridge point, which the ceilings line prints. The `mm`
sits far above it, compute-bound: it waits on arithmetic, so saving its transfers would save
nothing. The `tanh` sits far below, memory-bound, and is a small share of the call. Fusion only
saves transfers, so it barely moves this lesson's time.

Small matrices are a third case. At 16 by 16 the product is 8192 operations, and the call costs
what Python, the dispatcher and the launch cost: far below both ceilings. The tables call such a
kernel overhead-bound.

**Try next.** Press `b` until the chart shows the roofline, then set the size to 256 with `z`.
"""

import math

import torch

EXPECT = {
    "eager": 2,
    "compiled": 2,
    "eager_transfers": 5,
    "compiled_transfers": 5,
    "ideal_transfers": 3,
}
SIZES = [2**8, 2**10, 2**12, 2**14, 2**16, 2**18, 2**20]


def fn(x, w):
    return torch.tanh(x @ w)


def inputs(size, device):
    n = math.isqrt(size)
    return torch.randn(n, n, device=device), torch.randn(n, n, device=device)
