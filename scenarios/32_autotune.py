"""Letting the compiler time its choices

A batched matmul with a ReLU after it, and a variant, `autotune`, compiled with `mode="max-autotune"`.
Predict: how many operations here will the variant tune, by running several candidate kernels and
keeping the fastest? Which operation is it, and what will the compile cost?

**Why.** By default Inductor picks a matmul's kernel by rule: a library call (ATen's, cuBLAS on a
GPU). Max-autotune measures instead. For each tunable operation (a matmul, a batched matmul) it
writes every candidate it knows: the library call and Inductor's own templates (a C++ template on a
CPU, tens of Triton block shapes on a GPU). It compiles each, times each on inputs of the right
shapes, and keeps the fastest. The ReLU has one way to be written, so nothing is tuned for it: one
operation here.

The price is paid at compile time, once per shape: every candidate is compiled and run, so the
variant's compile takes longer than the default's. The winner may also give up a fusion. A
template can take the ReLU as an epilogue, inside the matmul's kernel; a library call cannot, so
when the library wins, the ReLU stays a kernel of its own and the output makes one more round trip
through memory. Which candidate wins depends on the machine and its load: the lesson claims the
count, never the winner.

**Try next.** Read the variant's candidates, their times and what the winner gave up. Change the
size with `--size 256` and run again: the winner may change.
"""

import torch

EXPECT = {"eager": 2, "compiled": 2, "variants_tuned_ops": 1}
SIZE = 64
SIZES = [32, 64, 128]
VARIANTS = {"autotune": {"mode": "max-autotune"}}


def fn(a, b):
    return torch.bmm(a, b).relu()


def inputs(size, device):
    return torch.randn(4, size, size, device=device), torch.randn(4, size, size, device=device)
