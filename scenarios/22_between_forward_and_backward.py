"""Between forward and backward

A chain of pointwise operations, trained: `(x.sin() * 2).exp().cos()`, then the sum as the loss,
then `backward()`. Everything forward keeps for backward stays in memory until backward has used
it; in a deep network that memory, not the weights, is often what runs out. How many arrays does
eager forward keep for backward, leaving out `x` itself? How many does the compiled step keep?
How many kernels does each section run?

**Why.** Eager autograd records each operation as it runs and keeps what that operation's
gradient needs: `sin` keeps its input (that is `x`), `exp` keeps its result, and `cos` needs its
input, the same array. One array kept, five kernels forward (the four operations and the loss's
`sum`), and seven backward, one per multiply, sine, cosine and negation of the chain rule.

Compiled, AOTAutograd sees forward and backward as one graph and its partitioner chooses what to
keep. Pointwise work is cheap to redo and memory is expensive, so it keeps nothing but `x`:
backward recomputes the sine and the exponential in the same fused kernel that applies the chain
rule. Forward is one kernel that writes only the loss; backward is one kernel that reads `x` and
writes the gradient. Recomputation costs arithmetic, and saves a round trip through memory.

**Try next.** End the chain with `.softmax(0)` instead of `.cos()`: a reduction over the whole
array. Can the compiler still recompute everything, or must it keep something now?
"""

import torch

TRAIN = True
EXPECT = {
    "eager_saved": 1,
    "compiled_saved": 0,
    "cpu": {"eager_forward": 5, "eager_backward": 7, "compiled_forward": 1, "compiled_backward": 1},
}
SIZE = 2**16
SIZES = [2**10, 2**12, 2**14, 2**16, 2**18, 2**20]


def fn(x):
    return (x.sin() * 2).exp().cos()


def inputs(size, device):
    return (torch.randn(size, device=device),)
