""".contiguous() after a transpose

`x.view(-1, 1024).t().contiguous()`: the same free view and transpose as the last lesson, then a
request for the data in plain row order. How many kernels eager, how many compiled, and how many
array-sized transfers?

**Why.** The transpose only swapped strides, so walking the result row by row jumps through
memory. `.contiguous()` asks for a tensor whose elements really sit in that order, and the only
way to get one is a copy: a kernel that reads every element once and writes it once to a new
array. One kernel, two transfers, eager and compiled alike.

On CPU, the eager table lists the operator you called, `aten::contiguous`; the copy that does the
work runs inside it. Inductor names its kernel after the ops it covers, `clone` among them.

This is where views stop being free: when something needs the data in order. `.contiguous()`
asks for that openly; `.reshape()` does it silently whenever a view cannot express the new
shape.

**Try next.** Drop the `.t()` and predict again: what does `.contiguous()` cost on a tensor that
already is contiguous? Then flatten the transposed tensor with `.reshape(-1)` instead: does that
copy?
"""

import torch

EXPECT = {"eager": 1, "compiled": 1, "eager_transfers": 2, "compiled_transfers": 2, "ideal_transfers": 2}
SIZES = [2**10, 2**12, 2**14, 2**16, 2**18, 2**20, 2**22]


def fn(x):
    return x.view(-1, 1024).t().contiguous()


def inputs(size, device):
    return (torch.randn(size, device=device),)
