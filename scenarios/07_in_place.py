"""In-place operations: add_

`x.add_(y)` adds `y` into `x`'s own memory instead of making a new array. Is that fewer kernels
than `x + y`? Fewer array-sized transfers? Predict both, eager and compiled.

**Why.** Neither. The in-place add is still one kernel that reads every element of `x` and `y`
and writes every element back to `x`: three transfers, exactly like the out-of-place add of the
first lesson. The output has to reach memory wherever it lives.

What in-place saves is the *allocation*: no new million-element array is requested, so peak
memory is lower and the allocator has less to do. That matters for memory footprint, not for
bandwidth.

The compiler keeps the same semantics. Inductor turns the mutation into a kernel that computes
the sum and stores it straight into `x` (on CPU its name mentions `copy_`): one kernel, three
transfers.

Two catches. Autograd refuses in-place changes to tensors it still needs. And every call changes
the input, so this scenario's `x` drifts a little further each time it is timed.

**Try next.** Chain `.relu_()` after the add and predict again: in-place chains still cost a
round trip per operation in eager mode.
"""

import torch

EXPECT = {"eager": 1, "compiled": 1, "eager_transfers": 3, "compiled_transfers": 3, "ideal_transfers": 3}
SIZES = [2**10, 2**12, 2**14, 2**16, 2**18, 2**20, 2**22]


def fn(x, y):
    return x.add_(y)


def inputs(size, device):
    return torch.randn(size, device=device), torch.randn(size, device=device)
