"""Memory at the busiest moment

Five one-input steps in a row, each result given a name of its own. Counting in arrays the size of
`x`, how much memory does one call hold at its busiest moment, on top of `x` itself: eager, and
compiled? If you added a sixth step, which of the two would grow?

**Why.** Eager runs each line as a kernel of its own, and every kernel writes a fresh array. A
name keeps its array alive until `fn` returns, so when the last line writes its result, `a`, `b`,
`c` and `d` are all still held: five arrays at once, one more for every step you add. The
allocator sees each of them, and so does the peak.

Compiled, the five steps are one kernel that reads `x` and writes only the result. The names
never become arrays: each value lives in a register for one element at a time. One array at the
peak, the output, however long the chain. The summary's memory line shows both peaks, and the
buffers Inductor allocated against eager's results.

**Try next.** Reuse one name, `y = y.cos()` on every line, and predict eager's peak again: when
can Python drop the array before? Then run with `--device cuda-preview`, where the peaks are
estimates read from the fake tensors and from Inductor's buffer plan.
"""

import torch

EXPECT = {"eager": 5, "compiled": 1, "eager_peak": 5, "compiled_peak": 1}
SIZES = [2**12, 2**14, 2**16, 2**18, 2**20]


def fn(x):
    a = x.sin()
    b = a.cos()
    c = b.exp()
    d = c.abs()
    return d.sqrt()


def inputs(size, device):
    return (torch.randn(size, device=device),)
