"""Broadcasting: a bias added to every row

`x` has a thousand rows of 1024 numbers; `bias` has 1024. `x + bias` adds the same bias to every
row. How many kernels is that, eager and compiled? And how many array-sized transfers: three,
like the add in the first lesson?

**Why.** One kernel on each side, and a little over two transfers, not three. Broadcasting never
builds a big copy of `bias`. The kernel walks `x` and the result, and for each element it reads
the bias entry for that column. `bias` is 4 KiB, one thousandth of `x`, so reading it is a
rounding error next to reading `x` and writing the result. (Caches help too: the same 4 KiB is
read again for every row, and it stays close to the processor.)

The table counts a broadcast operand once over its real size, which is why the eager, compiled
and ideal columns all come out at about two.

**Try next.** Replace `bias` with `bias.expand(x.shape[0], -1)`: is an explicit expand any
different? Then add `.contiguous()` after the expand and predict the new kernel count and
transfers before you run it.
"""

import torch

EXPECT = {"eager": 1, "compiled": 1, "eager_transfers": 2, "compiled_transfers": 2, "ideal_transfers": 2}
SIZES = [2**12, 2**14, 2**16, 2**18, 2**20, 2**22]


def fn(x, bias):
    return x + bias


def inputs(size, device):
    return torch.randn(size // 1024, 1024, device=device), torch.randn(1024, device=device)
