"""Why kernels stay apart

`fn` multiplies two matrices, takes the ReLU of the product and divides it by its own sum. Predict: how
many kernels eager, and compiled? Compiled, how many *boundaries*, places where one kernel writes a buffer
that another reads back? How many of them come from a library call, and how many from a reduction?

**Why.** Inductor's scheduler keeps two operations that share a buffer apart when it must; two of its
reasons show here.

The matrix multiply is one library call (the library may split it): a BLAS on CPU, cuBLAS on a GPU.
Inductor cannot put code inside a library's kernels, so the ReLU cannot ride along as an epilogue: the
product goes to memory and comes back: kind *library*.

The division needs the finished sum, one number, while it runs over every element: a loop of another
size that must wait for the first. Kind *reduction*. The ReLU and the sum do fuse.

On CPU there are two boundaries; the sum's loop and the division's loop sit one after the other in one
C++ kernel. On a GPU there are four: the division's kernel computes the ReLU again, so it reads the
product too (a second library boundary), and a sum of 65,536 elements is split into two kernels, a
reduction feeding a reduction.

**Try next.** The library boundary suggests the variant `max_autotune`: on a GPU, Inductor may write a
matmul of its own that takes the ReLU as an epilogue. Does a boundary go?
"""

import math

import torch

EXPECT = {
    "cpu": {"eager": 4, "compiled": 2, "boundaries": 2, "boundaries_library": 1, "boundaries_reduction": 1},
    "cuda": {"eager": 4, "compiled": 4, "boundaries": 4, "boundaries_library": 2, "boundaries_reduction": 2},
}
SIZE = 2**16
SIZES = [2**12, 2**14, 2**16, 2**18]


def fn(x, w):
    h = torch.relu(x @ w)
    return h / h.sum()


def inputs(size, device):
    n = math.isqrt(size)
    return torch.randn(n, n, device=device), torch.randn(n, n, device=device)
