"""Host and device: .cpu() and .item()

`(x * 2).cpu()`: double an array, then ask for it in CPU memory. How many kernels, eager and
compiled? How many array-sized transfers? Predict for the device you run on, and if you are on a
CPU, predict what a GPU would do too.

**Why.** On a CPU the tensor already lives in CPU memory, so `.cpu()` returns it unchanged: one
kernel for the multiply, two transfers, eager and compiled alike.

On a GPU, `.cpu()` is a real copy across the link between the GPU and the host. The profiler shows
it as a memory copy (`Memcpy DtoH`), not a kernel, but it occupies a launch slot all the same: eager
runs two launches, and the copy reads the GPU array and writes a CPU one, for four transfers in all.
Compiled, the same two: a Triton kernel, then the copy. Worse, it is a *synchronisation*: Python
cannot go on until the data has arrived, so the CPU stops queueing work and waits for the GPU to
finish everything before it.

`.item()` is the same on a small scale: a copy of one number, and a wait for the GPU. In a
training loop, a `.item()` per step for logging can leave the GPU idle between steps.

**Try next.** Put `.sum().item()` in a scenario and run it with `--device cuda` if you have a
GPU: find the copy in the table. Keep tensors on the device until you really need the values.
"""

import torch

EXPECT = {
    "ideal_transfers": 2,
    "cpu": {"eager": 1, "compiled": 1, "eager_transfers": 2, "compiled_transfers": 2},
    "cuda": {"eager": 2, "eager_transfers": 4, "compiled": 2, "compiled_transfers": 4},
}
SIZES = [2**10, 2**12, 2**14, 2**16, 2**18, 2**20, 2**22]


def fn(x):
    return (x * 2).cpu()


def inputs(size, device):
    return (torch.randn(size, device=device),)
