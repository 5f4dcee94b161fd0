"""Layer norm, then GELU

A transformer's favourite pair: `F.gelu(F.layer_norm(x, ...))` on a thousand rows of 1024, with
a weight and a bias per column. How many kernels does eager PyTorch run? How many compiled? How
many array-sized transfers does eager need?

**Why.** On CPU, layer norm is one library kernel: for each row it computes the mean and the
variance, then normalises, scales and shifts. GELU is a second kernel. In between, the normalised
array makes the familiar round trip: written by the first kernel, read by the second. Two kernels
and about four transfers: each kernel reads a full array and writes one. The small extras are the
weight, the bias, and a mean and a spread per row that layer norm also writes out.

The compiler sees both operations at once and produces a single kernel. On CPU it is one
function with several loops: one pass over `x` finds every row's mean, another every row's
variance, and the last normalises, scales, shifts and applies GELU, writing only the final
result. The normalised array never reaches memory. The ideal for this function is two transfers:
`x` in, the result out. On a GPU the one kernel holds each row in registers and reads `x` once: it
meets the ideal.

**Try next.** Add a residual, `x + F.gelu(...)`, and predict again: what does eager pay for one
more operation, and does the compiled kernel count change?
"""

import torch
import torch.nn.functional as F

EXPECT = {
    "eager_transfers": 4,
    "ideal_transfers": 2,
    "cpu": {"eager": 2, "compiled": 1},
    "cuda": {"eager": 2, "compiled": 1, "compiled_transfers": 2},
}
SIZES = [2**12, 2**14, 2**16, 2**18, 2**20, 2**22]


def fn(x, weight, bias):
    return F.gelu(F.layer_norm(x, (x.shape[-1],), weight, bias))


def inputs(size, device):
    width = 1024
    x = torch.randn(size // width, width, device=device)
    return x, torch.randn(width, device=device), torch.randn(width, device=device)
