"""Matmul, bias, ReLU

`torch.relu(x @ w + b)`, a linear layer by hand, with 1024 by 1024 matrices. Predict: how many
kernels eager? How many compiled? How many array-sized transfers (one transfer is one matrix)?

**Why.** Eager runs three kernels: the matrix multiply reads `x` and `w` and writes the product
(three transfers), the bias add reads the product and writes a new matrix (two), and the ReLU
reads and writes again (two). Seven transfers.

The multiply is the odd one out. It is handed to a tuned library (a BLAS on CPU, cuBLAS on a GPU),
and Inductor cannot put code inside a library's kernel. Count it as one library call (the library
may split it): which kernels run inside the call is the library's choice, and the tables list them
under the call's row. Inductor chooses the call: on CPU it passes the bias to the library (`addmm`
computes `b + x @ w`), so the add needs no kernel of its own. The ReLU runs as a second kernel that
reads the product and writes it back in place. Two kernels, five transfers; the ideal is three. On
a GPU Inductor calls plain `mm` and fuses the bias add into the ReLU's kernel instead.

**Try next.** On a GPU, `COMPILE = {"mode": "max-autotune"}` lets Inductor try matmul kernels
it writes itself, which can apply the bias and ReLU before the result leaves the chip. Also try
`F.linear(x, w.t(), b)`: how many kernels does eager run now?
"""

import math

import torch

EXPECT = {
    "eager_transfers": 7,
    "ideal_transfers": 3,
    "cpu": {"eager": 3, "compiled": 2, "compiled_transfers": 5},
    "cuda": {"eager": 3, "compiled": 2, "compiled_transfers": 5},
}
SIZES = [2**10, 2**12, 2**14, 2**16, 2**18, 2**20]


def fn(x, w, b):
    return torch.relu(x @ w + b)


def inputs(size, device):
    n = math.isqrt(size)
    return torch.randn(n, n, device=device), torch.randn(n, n, device=device), torch.randn(n, device=device)
