"""Enters a dispatch mode and a function mode in inputs(), then fails: the modes stay entered."""

from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode


class Quiet(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


class Passing(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def fn(a):
    return a + 1


def inputs(size, device):
    Quiet().__enter__()
    Passing().__enter__()
    raise RuntimeError("inputs failed with two modes entered")
