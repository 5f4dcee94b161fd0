"""Dtype casts: to float16 and back

`x.half().float()` converts a float32 array to float16 and back. How many kernels is that eager?
Compiled? And how many array-sized transfers, when one transfer is the size of the float32 input?

**Why.** Each cast is a real pass over memory: it reads every element in the old type and writes
it in the new one. So eager runs two kernels. The bytes depend on the widths: `.half()` reads
4 bytes and writes 2 per element (1.5 transfers), `.float()` reads 2 and writes 4 (another 1.5),
three transfers in all. The float16 array in the middle exists only to be read back.

Compiled, the conversions fuse like any elementwise op: one kernel reads float32 and writes
float32, two transfers. Inductor may even skip the rounding through float16 inside that kernel,
so compiled and eager results can differ in the last bits.

Casts hide in real code: mixing dtypes in one expression, `.to(...)` calls before a loss, reading
a float16 model's outputs in float32. Each one is a full pass in eager mode.

**Try next.** Change `fn` to `x.half()` alone and predict the transfers: what does writing half as
many bytes do to the count?
"""

import torch

EXPECT = {"eager": 2, "compiled": 1, "eager_transfers": 3, "compiled_transfers": 2, "ideal_transfers": 2}
SIZES = [2**10, 2**12, 2**14, 2**16, 2**18, 2**20, 2**22]


def fn(x):
    return x.half().float()


def inputs(size, device):
    return (torch.randn(size, device=device),)
