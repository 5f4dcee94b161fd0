"""Three lines, a graph break after the second: which_line.py edited, each line kept on its number"""
import torch


def fn(a, b):
    s = a + b
    r = s.relu(); torch._dynamo.graph_break()  # noqa: E702 (on line 7, so that line 8 stays line 8)
    return r * 2


def inputs(size, device):
    return torch.randn(size, device=device), torch.randn(size, device=device)
