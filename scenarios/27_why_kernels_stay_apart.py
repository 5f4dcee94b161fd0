"""Why two kernels stayed apart

`fn` multiplies two matrices, takes the ReLU of the product, and divides it by its own sum. Eager runs
one kernel per operation. Compiled, some of that work fuses and some does not. Predict: how many kernels
on each side? How many *boundaries*, places where one compiled kernel writes a buffer that the next
one reads back? And for how many of them is the reason a library call, and for how many a reduction?

**Why.** Fusion is not free for the taking. Inductor's scheduler considers every pair of operations
that share a buffer and keeps them apart when it must. Two reasons show here.

The matrix multiply is handed to a library (a BLAS on CPU, cuBLAS on a GPU). Inductor cannot put its own
code inside a library's kernel, so the ReLU cannot ride along as an *epilogue*: the product goes to
memory, and a kernel of Inductor's reads it back. That is the first boundary, of kind `library`.

The division needs the finished sum: no element can be divided before every element was added. A
reduction's result is a different size from the loop that uses it, so Inductor writes the sum out and
runs the division as a loop of its own. That is the second boundary, of kind `reduction`. On CPU the
sum's loop and the division's loop sit in one C++ kernel, one after the other: the table shows one
kernel, and the boundary says "two loops of one kernel". On a GPU they are two Triton kernels.

The ReLU and the sum, on the other hand, do fuse: the sum can read each ReLU value as it is computed.

**Try next.** Each boundary names an experiment where one exists: the library boundary offers
`max_autotune`, which lets Inductor write a matmul of its own that can take the ReLU as an epilogue
(on a GPU; on CPU when its C++ GEMM template applies). Run the variant and see whether a boundary goes.
"""

import math

import torch

EXPECT = {
    "boundaries": 2,
    "boundaries_library": 1,
    "boundaries_reduction": 1,
    "cpu": {"eager": 4, "compiled": 2},
    "cuda": {"eager": 4, "compiled": 3},
}
SIZE = 2**16
SIZES = [2**12, 2**14, 2**16, 2**18]


def fn(x, w):
    h = torch.relu(x @ w)
    return h / h.sum()


def inputs(size, device):
    n = math.isqrt(size)
    return torch.randn(n, n, device=device), torch.randn(n, n, device=device)
