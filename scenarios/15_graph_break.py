""".item() in the middle of tensor code

`fn` takes the sine of `x`, reads the largest value of `x` back into Python with `.item()`, and
divides the cosine of the sine by it. Eager runs one kernel per operation: how many is that? And what does
`torch.compile` make of a line that needs a Python number in the middle of tensor code? How many
compiled graphs, how many kernels?

**Why.** Eager: sine, max, `.item()`, cosine and division, five operations; on CPU the table
shows five kernels. A GPU adds a `Memset` before the max: six.

To compile, PyTorch first traces `fn` into a graph of tensor operations. `.item()` returns a
plain Python number, which by default the tracer will not put in a graph, so it stops there: a
*graph break*. The code before it becomes one compiled graph, `.item()` runs eagerly, and the
rest becomes a second graph. The table shows one graph break and, on CPU, three kernels: a fused
sine-and-max kernel, the eager `.item()`, and `cpp_fused_cos_div_0`. On a GPU, four:
the max over a million elements splits in two, and `.item()` is a copy to the host.

The break costs more than a launch: the first graph must now write the whole sine array,
because the second graph needs it: four transfers compiled where a single graph would need the
ideal two.

**Try next.** A `print()` breaks a graph too. Then set
`COMPILE = {"fullgraph": True}`, which forbids graph breaks: does PyTorch refuse, or find a way to
keep `.item()` inside one graph?
"""

import torch

EXPECT = {
    "graph_breaks": 1,
    "eager_transfers": 7,
    "ideal_transfers": 2,
    "cpu": {"eager": 5, "compiled": 3, "compiled_transfers": 4},
    "cuda": {"eager": 6, "compiled": 4, "compiled_transfers": 4},
}
SIZES = [2**10, 2**12, 2**14, 2**16, 2**18, 2**20, 2**22]


def fn(x):
    y = x.sin()
    peak = x.max().item()
    return y.cos() / peak


def inputs(size, device):
    return (torch.randn(size, device=device),)
