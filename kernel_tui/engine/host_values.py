"""What a preview answers where a fake tensor's value is asked for (``.item()``): it has none without running."""

from __future__ import annotations

import torch
from torch._subclasses.fake_tensor import FakeTensor
from torch.utils._python_dispatch import TorchDispatchMode

FLOAT_STAND_IN = 1.5
"""What a floating ``.item()`` answers in a preview (1.0 would make divisions by it vanish)."""


class HostValues(TorchDispatchMode):
    """``.item()`` of a fake tensor has no value: answer 1 (1.5, True) and say so.

    A floating value is 1.5, not 1.0: the compiler folds ``x / 1.0`` and ``x * 1.0`` away, so a stand-in of
    1.0 would generate code that a GPU, given a real value, would not (lesson 15's division).

    It ignores compile internals so that ``torch.compile`` still compiles while it is active."""

    def __init__(self) -> None:
        super().__init__()
        self.used = 0

    @classmethod
    def ignore_compile_internals(cls) -> bool:
        return True

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func is torch.ops.aten._local_scalar_dense.default and isinstance(args[0], FakeTensor):
            self.used += 1
            dtype = args[0].dtype
            if dtype == torch.bool:
                return True
            return FLOAT_STAND_IN if dtype.is_floating_point or dtype.is_complex else 1
        return func(*args, **(kwargs or {}))

    def note(self) -> list[str]:
        if not self.used:
            return []
        return [
            "host values: `.item()` and the like have no value without running; the preview went on "
            "with 1 (1.5 for a floating value), so code that branches on such a value follows that branch"
        ]
