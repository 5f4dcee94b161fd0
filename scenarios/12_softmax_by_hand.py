"""Softmax by hand: exp, sum, divide

The same thousand rows of 1024, but softmax written out: `e = x.exp()`, then
`e / e.sum(dim=-1, keepdim=True)`. How many kernels eager, how many compiled? How many
array-sized transfers, compared with the library softmax of the last lesson?

**Why.** On CPU, eager runs three kernels: `exp` reads `x` and writes `e` (two transfers), `sum`
reads `e` and writes one number per row (one), and the division reads `e` and the row sums and
writes the result (two). Five transfers where the library op needed two.

Compiled, it becomes one kernel. But look at its transfer count: three, not two. On CPU the
kernel's first loop computes every exponential in the array into a full-size buffer; then it goes
back row by row for the sums and the divisions, reading `e` from that buffer, which it finally
reuses for the result. Fusion removed two kernels, not every trip to memory. Inductor's version
of the library softmax works row by row and keeps each row's exponentials in a 4 KiB scratch
buffer instead. On a GPU both softmaxes compile to one kernel that holds each row in registers:
`e` never reaches memory, and this one moves two transfers too.

It is also less safe: it never subtracts the row maximum, so `exp` overflows to infinity for
inputs above about 88 in float32.

**Try next.** Subtract `x.amax(dim=-1, keepdim=True)` first and predict both columns again.
"""

import torch

EXPECT = {
    "eager_transfers": 5,
    "ideal_transfers": 2,
    "cpu": {"eager": 3, "compiled": 1, "compiled_transfers": 3},
    "cuda": {"eager": 3, "compiled": 1, "compiled_transfers": 2},
}
SIZES = [2**12, 2**14, 2**16, 2**18, 2**20, 2**22]


def fn(x):
    e = x.exp()
    return e / e.sum(dim=-1, keepdim=True)


def inputs(size, device):
    return (torch.randn(size // 1024, 1024, device=device),)
