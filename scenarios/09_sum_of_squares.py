"""A reduction: the sum of squares

`(x * x).sum()` squares a million numbers and adds them up into one. Predict: how many kernels
eager, how many compiled? How many array-sized transfers? (The answer is a single number, so
writing it costs almost nothing.)

**Why.** On CPU, eager runs the multiply as one kernel, which reads `x` once (both operands are the
same array) and writes a full array of squares, then the sum as a second kernel, which reads those
squares back. Two kernels, three transfers, for a result of four bytes.

A *reduction* like `sum` turns many elements into fewer. Elementwise work that feeds it can ride
along: the compiler squares each element as the sum's loop loads it, so the array of squares is
never written. One kernel, and a single pass over `x`: one transfer, the ideal.

So pointwise work *before* a reduction fuses into it for free. Work *after* a reduction is a
different story, and it is the next lesson.

A GPU shares one big reduction out among many blocks of threads, so there it takes two kernels
(`--device cuda-preview` shows them): `triton_red_fused_mul_sum_0` leaves a few hundred partial
sums, and `triton_per_fused_mul_sum_1` adds them up. Still one transfer. Eager PyTorch splits
its sum the same way inside one kernel: the blocks meet through counters that it clears first
with a tiny `Memset`, so a GPU's eager table shows three launches, not two.

**Try next.** Use `x.abs().max()` or `(x - 1).pow(2).mean()` instead and predict both columns
first.
"""

import torch

EXPECT = {
    "eager_transfers": 3,
    "ideal_transfers": 1,
    "cpu": {"eager": 2, "compiled": 1, "compiled_transfers": 1},
    "cuda": {"eager": 3, "compiled": 2, "compiled_transfers": 1},
}
SIZES = [2**10, 2**12, 2**14, 2**16, 2**18, 2**20, 2**22]


def fn(x):
    return (x * x).sum()


def inputs(size, device):
    return (torch.randn(size, device=device),)
