"""A real layer: an MLP block

A transformer's feed-forward block as most PyTorch code writes it: two `nn.Linear` layers with a GELU
between them, then a residual and a layer norm, its modules at module level. Predict: how many kernels
eager? How many compiled? Which elementwise work can join a matrix multiply, and how many array-sized
transfers would a perfect kernel make?

**Why.** Eagerly each layer is one operator: a linear is one `addmm` (product and bias in one library
call), then the GELU, the `add` and the layer norm. Five kernels, each library call counted as one (the
library may split it; the tables list its kernels inside the call's row).

Inductor cannot write into a library's kernel, so both products stay library calls and only the work
between them fuses. On CPU it keeps `addmm`, so each bias stays inside its library call; the GELU is a
kernel of its own, and the residual add joins the norm in `cpp_fused_add_native_layer_norm_...`. On a
GPU it calls plain `mm` and moves each bias into the kernel after it: fc1's bias joins the GELU, fc2's
joins the residual and the norm. Four kernels either way, but which lines share a kernel differs.

The weights count too: the two linears hold 2 MiB of parameters, twice the input, and every call must
read them. A perfect kernel moves four arrays, not two.

**Try next.** Set `SIZE = 2**14`, 64 rows: do the activations or the weights dominate the bytes now?
"""

import torch
import torch.nn.functional as F
from torch import nn

WIDTH = 256
fc1 = nn.Linear(WIDTH, 4 * WIDTH)
fc2 = nn.Linear(4 * WIDTH, WIDTH)
norm = nn.LayerNorm(WIDTH)

SIZE = 2**18
SIZES = [2**14, 2**16, 2**18]
EXPECT = {
    "eager_transfers": 25,
    "compiled_transfers": 23,
    "ideal_transfers": 4,
    "cpu": {"eager": 5, "compiled": 4, "fused_lines_45_46": 0, "fused_lines_47_48": 0},
    "cuda": {"eager": 5, "compiled": 4, "fused_lines_45_46": 1, "fused_lines_47_48": 1},
}


def fn(x):
    h = fc1(x)
    h = F.gelu(h)
    h = fc2(h)
    return norm(x + h)


def inputs(size, device):
    return (torch.randn(size // WIDTH, WIDTH, device=device),)
