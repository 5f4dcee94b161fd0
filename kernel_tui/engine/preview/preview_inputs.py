"""A preview's inputs: fake CUDA tensors made from the scenario's ``inputs()``, and ``.item()`` of a fake
tensor, which has no value without a device (a stand-in answers, and the report says so)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import torch
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from torch.utils._python_dispatch import TorchDispatchMode

from kernel_tui.engine.stages.loader import LoadedScenario, StageError

if TYPE_CHECKING:
    from kernel_tui.engine.stages.scenario_weights import Placement


def fake_inputs(
    scenario: LoadedScenario, size: int, fake_mode: FakeTensorMode, device: str = "cuda"
) -> tuple[torch.Tensor, ...]:
    """``inputs(size, "cuda")`` on fake tensors; if the scenario's code cannot run on them, its CPU inputs
    become fake tensors on ``device`` of the same shapes, strides and dtypes. The weights ``fn`` uses (its
    modules' parameters and buffers, module-level tensors) become fake ``device`` tensors alike."""
    placement = fake_placement(fake_mode, device)
    try:
        with fake_mode:
            return scenario.make_inputs(size, "cuda", placement)
    except StageError:
        real = scenario.make_inputs(size, "cpu", placement)
    with fake_mode:
        args = tuple(
            torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device=device).requires_grad_(t.requires_grad)
            if isinstance(t, torch.Tensor)
            else t  # a snippet's set-up may pass a number along, a scenario a module
            for t in real
        )
    scenario.place(args, placement)
    return args


def fake_placement(fake_mode: FakeTensorMode, device: str) -> Placement:
    """A weight as a fake ``device`` tensor of ``fake_mode``: a real one has a shape, strides and a dtype to copy,
    and no data a preview could use."""

    def place(tensor: torch.Tensor, dtype: torch.dtype | None) -> torch.Tensor:
        wanted = dtype or tensor.dtype
        mine = isinstance(tensor, FakeTensor) and tensor.fake_mode is fake_mode
        if mine and tensor.device.type == device and tensor.dtype == wanted:
            return tensor
        with fake_mode:
            if mine:
                return tensor.to(device=device, dtype=wanted)
            return torch.empty_strided(tensor.shape, tensor.stride(), dtype=wanted, device=device)

    return place


def any_on_device(args: tuple[Any, ...]) -> bool:
    return any(isinstance(arg, torch.Tensor) and arg.device.type == "cuda" for arg in args)


FLOAT_STAND_IN = 1.5
"""What a floating ``.item()`` answers in a preview (1.0 would make divisions by it vanish)."""


class HostValues(TorchDispatchMode):
    """``.item()`` of a fake tensor has no value: answer 1 (1.5, True) and say so.

    A floating value is 1.5, not 1.0: the compiler folds ``x / 1.0`` and ``x * 1.0`` away, so a stand-in of
    1.0 would generate code that a GPU, given a real value, would not (lesson 15's division).

    It ignores compile internals so that ``torch.compile`` still compiles while it is active."""

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # torch leaves TorchDispatchMode.__init__ unannotated
        self.used = 0

    @classmethod
    def ignore_compile_internals(cls) -> bool:
        return True

    def __torch_dispatch__(
        self, func: Any, types: Sequence[type], args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
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
