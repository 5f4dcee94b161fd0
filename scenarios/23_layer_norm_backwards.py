"""Layer norm in a training step

`F.layer_norm(x, ...)` with a weight and a bias per column, on 64 rows of 1024, trained with the
sum as the loss. Backward must produce three gradients: one for `x`, and one each for the weight
and the bias, which sum over every row. How many kernels does each section run, eager and
compiled? How much does forward keep for backward, besides the inputs?

**Why.** Eager forward is the library's layer norm kernel and the loss's `sum`. The library saves
what its own backward needs and nothing more: each row's mean and the inverse of its spread, two
numbers per row, next to nothing against the array. On CPU its backward is a single kernel too,
`native_layer_norm_backward`, which computes all three gradients: the gradient of `x` row by row,
and the weight's and the bias's by adding up over the rows.

Compiled, Inductor decomposes layer norm into its arithmetic and fuses it with the loss: one
forward kernel. The partitioner keeps the same two numbers per row, since recomputing them would
mean reading the whole row again. On CPU the backward is one kernel as well, with a loop for the
row-wise gradient and others for the sums over rows.

**Try next.** On a GPU (`--device cuda`) the column sums and the row-wise work want different
thread layouts: how many backward kernels then? No GPU: `kernel-tui run` this file with
`--device cuda-preview` names the Triton kernels a GPU would run, backward included; `g` shows them.
"""

import torch
import torch.nn.functional as F

TRAIN = True
EXPECT = {
    "eager_saved": 0,
    "compiled_saved": 0,
    "cpu": {"eager_forward": 2, "eager_backward": 1, "compiled_forward": 1, "compiled_backward": 1},
}
SIZE = 2**16
SIZES = [2**12, 2**14, 2**16, 2**18, 2**20]


def fn(x, weight, bias):
    return F.layer_norm(x, (x.shape[-1],), weight, bias)


def inputs(size, device):
    width = 1024
    x = torch.randn(size // width, width, device=device)
    return x, torch.randn(width, device=device), torch.randn(width, device=device)
