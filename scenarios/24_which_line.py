"""Which line made this kernel?

Three lines of `fn`: the first adds, the middle one scales and clamps, the last adds the sum
back. Run it and read the code with its kernels: in the explorer each line of the code has a
gutter, `2 ⇒ 1 fused` (eager launches ⇒ what they became compiled), and `kernel-tui run
--by-line` prints the same. Predict: how many eager launches does each line make? And
compiled, how many kernels carry the middle line, and which other lines share them?

**Why.** Eager PyTorch launches one kernel per operation, wherever the operations sit: the
first line is `aten::add`, the middle line is two (`aten::mul` by 0.5, then `aten::relu`)
although it is one line of Python, and the last line is one more `aten::add`. Four launches,
and the gutter splits them 1, 2, 1.

Compiled, lines stop being units of work. Inductor sees the whole graph and fuses every
elementwise operation into one kernel, `cpp_fused_add_mul_relu_0` (on a GPU a
`triton_poi_fused_add_mul_relu_0`), so all three lines point at the same kernel. The engine
reads this from Inductor itself: each kernel keeps the graph nodes it fused, and each node the
stack trace of the line that made it.

**Try next.** Put the middle line in a helper function of its own. Its kernels then carry two
lines: the helper's, and the line of `fn` that called it.
"""

import torch

EXPECT = {
    "eager": 4,
    "compiled": 1,
    "eager_line_39": 1,
    "eager_line_40": 2,
    "eager_line_41": 1,
    "compiled_line_40": 1,
    "fused_lines_39_40_41": 1,
}
SIZES = [2**10, 2**14, 2**18, 2**22]


def fn(a, b):
    s = a + b
    t = (s * 0.5).relu()
    return t + s


def inputs(size, device):
    return torch.randn(size, device=device), torch.randn(size, device=device)
