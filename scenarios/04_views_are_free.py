"""Views: reshape, transpose, slice

`fn` reshapes a flat array into rows of 1024 with `.view`, transposes it with `.t()`, and keeps
every second column with a slice. Three operations on a million numbers: how many kernels do they
launch eager? How many compiled? How much data moves?

**Why.** None at all, on either side. A tensor is a pointer to memory plus a little description
of how to walk it: a shape, and a *stride* per dimension (how far to step in memory to reach the
next index). `.view` writes a new shape, `.t()` swaps two strides, and the slice `[:, ::2]`
doubles one stride. Each one returns a new description of the same memory, so there is no kernel
and no transfer to count; the table stays empty. The compiler agrees: its output is a view of
the input too.

The price comes later. The result's elements are scattered through memory, and whoever reads it
next has to follow those strides, or copy the data into order first.

**Try next.** In a Python shell, change one value of the result and look at `x`: it changes
too, because they share memory. Then open the next lesson, where `.contiguous()` makes that copy.
"""

import torch

EXPECT = {"eager": 0, "compiled": 0}
SIZES = [2**10, 2**14, 2**18, 2**22]


def fn(x):
    rows = x.view(-1, 1024)
    flipped = rows.t()
    return flipped[:, ::2]


def inputs(size, device):
    return (torch.randn(size, device=device),)
