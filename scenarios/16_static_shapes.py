"""Static shapes: a sweep of sizes

The add-and-ReLU from lesson 2, compiled with `COMPILE = {"dynamic": False}`: every graph is
specialised to exact sizes. The profile compiles it once at a million elements; then the sweep
runs six sizes, that one included. Predict: how many more compiles happen during the sweep?

**Why.** A compiled graph comes with *guards*, cheap checks that the new call matches what the
graph was built for: same dtypes, same devices, and here the same sizes. A call that fails every
guard triggers a fresh trace and compile. The million-element graph already exists, so the five
other sizes compile five new graphs. Each compile costs far more than running the kernel (on
this CPU, a first compile can take seconds; the chart leaves compile time out), which is why
specialising to every size is a bad idea when sizes vary.

A specialised graph does get something for it: the sizes are constants in its kernel, so loop
bounds are known when it is compiled. One kernel per run either way, with the same three
transfers.

Careful in real code: past a recompile limit (8 by default), PyTorch stops compiling the
function and quietly runs it eagerly, with only a logged warning. (kernel-tui raises that limit
during sweeps so every point is really compiled.)

**Try next.** Remove `COMPILE` and predict the sweep's compiles again; the next lesson explains
the answer.
"""

import torch

COMPILE = {"dynamic": False}
EXPECT = {"eager": 2, "compiled": 1, "compiled_transfers": 3, "sweep_compiles": 5}
SIZES = [2**10, 2**12, 2**14, 2**16, 2**18, 2**20]


def fn(a, b):
    return (a + b).relu()


def inputs(size, device):
    return torch.randn(size, device=device), torch.randn(size, device=device)
