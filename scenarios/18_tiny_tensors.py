"""Tiny tensors

The add-and-ReLU again, on arrays of length 8. Before you run it: how many kernels eager and
compiled? How many array-sized transfers? And which side do you expect to be faster now?

**Why.** The counts do not depend on the size: two kernels and five transfers eager, one kernel
and three transfers compiled. But an array of 8 floats is 32 bytes, and moving it takes almost
no time. What remains is fixed cost per call: Python, PyTorch's dispatcher, allocating the
result and starting each kernel. The compiled function adds its own fixed cost, checking its
guards and running the wrapper that calls the kernel, so at this size it can take longer than
eager even though it launches fewer kernels. The sweep shows how that changes as the arrays
grow and the saved transfers start to count.

On a GPU the fixed cost is each launch: microseconds of CPU time, while the kernel itself runs
for about one. The kernel times cannot show that, as they are the GPU's own; the summary's *wall
per call* (back-to-back calls) does. `COMPILE = {"mode": "reduce-overhead"}` attacks it with CUDA
graphs: the kernels are recorded once and replayed with one launch, after one more kernel that
copies your inputs into the graph's own buffers. On CPU there are no CUDA graphs.

**Try next.** Read the sweep from the left: does the compiled line cross below the eager one on
this machine, and at what size?
"""

import torch

SIZE = 8
EXPECT = {"eager": 2, "compiled": 1, "eager_transfers": 5, "compiled_transfers": 3, "ideal_transfers": 3}
SIZES = [2**3, 2**6, 2**9, 2**12, 2**15, 2**18, 2**20, 2**22]


def fn(a, b):
    return (a + b).relu()


def inputs(size, device):
    return torch.randn(size, device=device), torch.randn(size, device=device)
