"""Add, then ReLU: two kernels or one?

`(a + b).relu()`. Predict before you run: how many kernels eager, how many compiled? How many
array-sized transfers on each side?

**Why.** Eager PyTorch runs each operation the moment Python reaches it, without knowing what
comes next. So the add is one kernel that reads `a` and `b` and writes its result to a new array
in memory (three transfers), and the ReLU is a second kernel that reads that array back and writes
the final one (two more). Two kernels, five transfers, and the middle array exists only to be
handed from one kernel to the next.

`torch.compile` sees both operations before running anything. Inductor *fuses* them: one kernel
reads an element of `a` and of `b`, adds, clamps at zero and writes the answer. The sum lives in
a register for a moment and never goes to memory. One kernel, three transfers: the ideal.

**Try next.** Look at the kernel's name, `cpp_fused_add_relu_...`: Inductor names a kernel after
the operations it fused. Then read the sweep: at which size, if any, does the compiled line drop
below the eager one on your machine?
"""

import torch

EXPECT = {"eager": 2, "compiled": 1, "eager_transfers": 5, "compiled_transfers": 3, "ideal_transfers": 3}
SIZES = [2**10, 2**12, 2**14, 2**16, 2**18, 2**20, 2**22]


def fn(a, b):
    return (a + b).relu()


def inputs(size, device):
    return torch.randn(size, device=device), torch.randn(size, device=device)
