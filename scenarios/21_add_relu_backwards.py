"""Add, then ReLU, in a training step

Lesson 2 again, now as a training step: `TRAIN = True` measures `(a + b).relu()`, its loss (the
sum of the result) and `backward()`, which fills `a.grad` and `b.grad`. The tables split into a
forward and a backward section. Predict: how many kernels does each section run, eager and
compiled? And what must forward keep in memory for backward, counted in arrays?

**Why.** Eager forward is three kernels: the add, the ReLU and the loss's `sum`. For backward,
ReLU's gradient passes the incoming gradient where the ReLU's result was positive and zero
elsewhere: one `threshold_backward` kernel, which is why forward keeps the ReLU's result, a whole
float array. The sum's and the add's gradients move nothing: the sum spreads a single number over
the array, and the add hands the same gradient to both inputs. Autograd then copies it once
(`copy_`), so that `a.grad` and `b.grad` are separate arrays.

Compiled, AOTAutograd splits the step into a forward graph and a backward graph before Inductor
fuses each. Forward is one kernel, and instead of the ReLU's float result it keeps a one-byte mask
of where it was positive: a quarter of an array. Backward is one kernel that applies that mask,
plus the same copy.

**Try next.** Return `(a * b).relu()` instead. Which inputs must forward keep now?
"""

import torch

TRAIN = True
EXPECT = {
    "eager_saved": 1,
    "compiled_saved": 0.25,
    "cpu": {"eager_forward": 3, "eager_backward": 2, "compiled_forward": 1, "compiled_backward": 2},
}
SIZE = 2**16
SIZES = [2**10, 2**12, 2**14, 2**16, 2**18, 2**20]


def fn(a, b):
    return (a + b).relu()


def inputs(size, device):
    return torch.randn(size, device=device), torch.randn(size, device=device)
