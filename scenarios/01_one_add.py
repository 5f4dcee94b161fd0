"""One add

`c = a + b` on two float32 arrays of a million elements. Before you run it, predict: how many
kernels does eager PyTorch run? How many after `torch.compile`? And how many *array-sized
transfers* (one full array read from memory, or written to it) does each one cost?

**Why.** One operation becomes one kernel: a small program that walks the arrays once. It reads
every element of `a`, reads every element of `b` and writes every element of `c`. That is three
transfers, and no program can do better: each input has to be read once and the result written
once. The table calls that floor *ideal*.

There is nothing for the compiler to combine, so the compiled side is also one kernel with the
same three transfers. On CPU its name starts with `cpp_fused_`: Inductor wrote it in C++. On a
GPU it would be a Triton kernel, but the count would not change.

**Try next.** Run it at another size (`kernel-tui run FILE --size 4096`): the bytes scale with
the size, the kernel count does not. Then chain a second operation onto the add, which is the
next lesson.
"""

import torch

EXPECT = {"eager": 1, "compiled": 1, "eager_transfers": 3, "compiled_transfers": 3, "ideal_transfers": 3}
SIZES = [2**10, 2**12, 2**14, 2**16, 2**18, 2**20, 2**22]


def fn(a, b):
    return a + b


def inputs(size, device):
    return torch.randn(size, device=device), torch.randn(size, device=device)
