"""Threads, blocks and warps

The article's first kernel adds arrays of 8 elements with 8 threads, thread 0 on element 0 and so on;
a million elements are "the same kernel with a bigger swarm of threads". `fn` runs both adds. Predict:
on a GPU, how many threads does the length-8 add launch? In how many blocks of how many threads does
the million-element add run, and how many elements does each thread handle? On a CPU, how many kernels,
on how many threads?

**Why.** A GPU launches a kernel as a *grid* of *blocks*, each a whole number of *warps* of 32 threads.
Inductor gives a pointwise Triton kernel `XBLOCK` elements per block and *num_warps* warps. For 8
elements that is one block of one warp: 32 threads for 8 elements, more threads than work. For a
million it is `XBLOCK` 1024 and 4 warps: 1,024 blocks of 128 threads, 131,072 threads, so each
thread adds 8 elements. The line under a highlighted kernel shows this, on any machine
with `--device cuda-preview`.

A CPU has a handful of cores. Inductor writes both loops into one C++ kernel (`g` shows
it) that runs on every thread PyTorch uses (the report's *threads*): `omp for` splits the million-element
loop among them, and `omp single` gives the 8-element loop to one of them.

**Try next.** `COMPILE` turns off Inductor's timing of a second config (`XBLOCK` 512, 8 warps) on a
GPU's first call, so every GPU launches as this lesson says. Delete it and preview again.
"""

import torch

COMPILE = {"options": {"triton.autotune_pointwise": False}}
EXPECT = {
    "eager": 2,
    "cpu": {"compiled": 1, "compiled_thread_share": 1},
    "cuda": {
        "compiled": 2,
        "compiled_fewest_threads": 32,
        "compiled_grid": 1024,
        "compiled_warps": 4,
        "compiled_elements_per_thread": 8,
    },
}


def fn(a, b, a8, b8):
    return a + b, a8 + b8


def inputs(size, device):
    big = torch.randn(size, device=device), torch.randn(size, device=device)
    return *big, torch.randn(8, device=device), torch.randn(8, device=device)
