"""Where the time goes

Lesson 18 showed that at 8 elements the compiled add-and-ReLU can be slower than eager. Now look
inside one call. Before you run it: of a compiled call at 8 elements, how much is the kernel itself?
And at 2**22 elements, what takes most of the call?

**Why.** The summary's *time split* and the timeline (`b` cycles the chart to it) cut each profiled
call into parts: the kernels doing the work, Python and dispatch around them, the guards and wrapper
of the compiled function, and on a GPU the launches and the time the device waits. At 8 elements the
work is a few dozen bytes: the compiled kernel runs for well under a microsecond, while Dynamo's
cache lookup, its guards and Inductor's wrapper take tens. Eager has no guards, but its dispatcher
and Python still cost more than its two tiny kernels. Either way the call is mostly overhead.

Set `SIZE = 2**22` and run again: the same parts, but now the kernels read and write megabytes and
take milliseconds, and everything around them shrinks to a sliver. The overhead did not go away;
it stayed the same size while the work grew. That is why small models at batch 1 on a GPU try
`mode="reduce-overhead"`: CUDA graphs replay the launches without the host in between.

**Try next.** Add a third and fourth operation to `fn`: which part grows at 8 elements, and which
at 2**22?
"""

import torch

SIZE = 8
EXPECT = {
    "eager": 2,
    "cpu": {"compiled": 1, "eager_overhead_dominates": 1, "compiled_overhead_dominates": 1},
    "cuda": {"compiled": 1},
}


def fn(a, b):
    return (a + b).relu()


def inputs(size, device):
    return torch.randn(size, device=device), torch.randn(size, device=device)
