"""Compiling the same graph twice

The add-and-ReLU of lesson 2 again, with a variant, `again`, that calls `torch.compile` with the same
arguments: the same graph compiled a second time in one run. Predict: how many of the variant's graphs
will Inductor's FX graph cache hand it, already compiled? Which compile stages will it skip?

**Why.** A first compile is cold. Dynamo traces `fn` into a graph, AOT autograd turns it into ATen
operations, Inductor lowers and fuses them and writes each kernel's C++ (Triton on a GPU), then a
compiler builds the kernel: that step is most of the time, tens of seconds on a busy CPU. Inductor
saves the result on disk, in its FX graph cache, under a key made of the graph, its inputs' shapes,
dtypes and devices, and torch's version.

The variant's graph has the same key, so its compile is warm: one cache hit, no lowering, no code
generation, no C++ compile, only Dynamo's trace and a load. The cache outlives the process: that is
why a script's second run starts far faster, and why *compiled* may read warm here too if lesson 2
ran before. Another shape or dtype, a changed line of `fn` or another torch make a new key: a cold
compile.

**Try next.** Press `d` for each column's compile split. Change `.relu()` to `.sigmoid()` and run
again: *compiled* misses the cache, *again* still hits.
"""

import torch

EXPECT = {"eager": 2, "compiled": 1, "variants_fx_graph_hits": 1}
SIZES = [2**10, 2**14]
VARIANTS = {"again": {}}


def fn(a, b):
    return (a + b).relu()


def inputs(size, device):
    return torch.randn(size, device=device), torch.randn(size, device=device)
