"""The baseline: what the seed article's reader does by hand to see add+relu's kernels, eager then compiled.

Profile eager and print the profiler table; torch.compile; warm up; profile compiled and print again.
``seed_reader.py add`` does the same for the course's first lesson, one add.
"""

import sys

import torch
from torch.profiler import ProfilerActivity, profile

device = "cuda" if torch.cuda.is_available() else "cpu"
activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
if device == "cpu":
    # Without this the compiled C++ kernel is invisible to the profiler (and the reader sees no kernel).
    torch._inductor.config.cpp.enable_kernel_profile = True


def add_relu(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return (a + b).relu()


def add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a + b


if sys.argv[1:] == ["add"]:
    add_relu = add  # the same steps, on the first lesson's function

a = torch.randn(1_000_000, device=device)
b = torch.randn(1_000_000, device=device)
add_relu(a, b)
with profile(activities=activities) as prof:
    add_relu(a, b)
    if device == "cuda":
        torch.cuda.synchronize()
print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=10))

compiled = torch.compile(add_relu)
compiled(a, b)
if device == "cuda":
    torch.cuda.synchronize()
with profile(activities=activities) as prof:
    compiled(a, b)
    if device == "cuda":
        torch.cuda.synchronize()
print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=10))
