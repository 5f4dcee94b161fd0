"""After a reduction: subtracting the mean

`x - x.mean()` centres a million numbers on zero. How many kernels eager? How many compiled,
on this CPU? And would the answer be the same on a GPU?

**Why.** On CPU, eager runs two kernels: the mean reads `x` and writes one number, then the
subtraction reads `x` again, reads that number and writes the result. Three transfers.

The subtraction cannot begin until the mean is finished, and the mean needs every element. On a
GPU, a reduction over a million elements is shared out among many blocks of threads, and the
only way for all of them to see the finished mean is to end the kernel. So a GPU runs three
kernels: two for the mean, split as in the last lesson, then `triton_poi_fused_mean_sub_2` for the
subtraction; three transfers. Big reductions mark kernel boundaries in compiled GPU code.
(Eager runs three there too: a `Memset` first clears the mean's counters.)

Inductor's C++ code for CPU works differently: one kernel is a function holding several loops
one after another. Here the first loop sums `x` and the second subtracts, so the table shows one
kernel, `cpp_fused_mean_sub_...`. It still walks `x` twice. The transfer column counts each array
a kernel receives once, so it shows two, the ideal; whether the second walk is served by the
cache depends on the size.

**Try next.** Subtract a per-row mean instead: view `x` as rows of 1024 and use
`x.mean(dim=-1, keepdim=True)`. Rows are short, which is what the softmax lessons build on.
"""

import torch

EXPECT = {
    "eager_transfers": 3,
    "ideal_transfers": 2,
    "cpu": {"eager": 2, "compiled": 1, "compiled_transfers": 2},
    "cuda": {"eager": 3, "compiled": 3, "compiled_transfers": 3},
}
SIZES = [2**10, 2**12, 2**14, 2**16, 2**18, 2**20, 2**22]


def fn(x):
    return x - x.mean()


def inputs(size, device):
    return (torch.randn(size, device=device),)
