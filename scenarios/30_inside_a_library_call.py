"""Inside a library call

`fn` is one matrix product, `x @ w`, of two 256 by 256 matrices. Predict: how many calls does eager
make, and compiled? How many array-sized transfers? And on a GPU, how many kernels run for the product?

**Why.** Eager dispatches one `mm`; compiled, Inductor calls the same library through
`extern_kernels.mm`. One call each, three transfers: `x` and `w` read, the product written.

How the library carries out that call is its own decision, made per GPU, shape, dtype and library
version. On the H200 this course was checked on (torch 2.11), cuBLAS split the product's K dimension:
its gemm kernel ran over 8 × 8 × 4 blocks, each slice of z multiplying a quarter of K, then a second
kernel, named for split-K, ran over 8 × 8 × 1 blocks and combined the four slices into the result.
Splitting gives a GPU of 132 multiprocessors 256 blocks to run instead of 64. A 1024 by 1024 product
ran as one kernel on the same GPU.

So a GPU's table shows the call as one row, `mm: cuBLAS, 2 kernels, split-K`, with its kernels listed
under it, and a claim counts the call. On your GPU the row may hold one kernel, or a gemm followed by a
`splitKreduce_kernel`: the call is PyTorch's decision, the kernels inside it the library's.

**Try next.** Set `SIZE = 2**20` and see whether your GPU still splits the product; the JSON of
`kernel-tui run --json` lists the kernels inside each call.
"""

import math

import torch

EXPECT = {"eager": 1, "compiled": 1, "eager_transfers": 3, "compiled_transfers": 3, "ideal_transfers": 3}
SIZE = 2**16
SIZES = [2**12, 2**14, 2**16, 2**18]


def fn(x, w):
    return x @ w


def inputs(size, device):
    n = math.isqrt(size)
    return torch.randn(n, n, device=device), torch.randn(n, n, device=device)
