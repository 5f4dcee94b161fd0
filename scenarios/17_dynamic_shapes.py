"""The default compile: the same sweep

The same add-and-ReLU, now with `torch.compile`'s default settings. The profile compiles it at
a million elements, then the sweep runs the same six sizes as the last lesson. How many graphs
are compiled during the sweep this time?

**Why.** Just one. By default the first compile is specialised to the sizes it saw, as with
`dynamic=False`. But when a call fails the size guard, PyTorch does not simply compile another
fixed size: it marks the size that changed as *dynamic* and compiles a graph that takes the
length as an argument. That graph serves every size after it, so the sweep costs one compile
instead of five.

The kernel is still one fused loop with three transfers; only its length is now read at run time
instead of being baked in. The guards that remain check the things the graph still assumes, such
as the dtype and the number of dimensions.

**Try next.** Set `COMPILE = {"dynamic": True}` to compile the dynamic graph from the first call:
how many compiles does the sweep need then? And if your sizes really repeat (fixed batch and
sequence length), specialised graphs are fine: they compile once per size and stop.
"""

import torch

EXPECT = {"eager": 2, "compiled": 1, "compiled_transfers": 3, "sweep_compiles": 1}
SIZES = [2**10, 2**12, 2**14, 2**16, 2**18, 2**20]


def fn(a, b):
    return (a + b).relu()


def inputs(size, device):
    return torch.randn(size, device=device), torch.randn(size, device=device)
