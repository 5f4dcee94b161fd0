"""A mode's memory in its report: its peak (``peak_memory``) and, compiled, Inductor's buffer plan
(``buffer_plan``), read from the wrappers that one call of the compiled function ran."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

from kernel_tui.engine.compiler.buffer_plan import BufferPlan, combined_plan
from kernel_tui.engine.compiler.generated_code import wrapper_modules
from kernel_tui.engine.counting.peak_memory import Peak, measured_peak, tracked_peak
from kernel_tui.model.names.names import is_wrapper_kernel

if TYPE_CHECKING:
    from kernel_tui.model.report.mode_result import ModeResult

PLAN_SOURCE = "Inductor's buffer plan (an estimate)"
LIVE_SOURCE = "operator results alive at once (an estimate)"


def with_peak(mode: ModeResult, peak: Peak, unit: int) -> ModeResult:
    return replace(
        mode,
        peak_bytes=peak.bytes,
        peak_arrays=peak.bytes / unit if unit else None,
        peak_source=peak.source,
        forward_peak_bytes=peak.forward,
        backward_peak_bytes=peak.backward,
    )


def with_plan(mode: ModeResult, plan: BufferPlan | None) -> ModeResult:
    if plan is None:
        return mode
    return replace(
        mode, buffers_allocated=plan.allocated, buffers_reused=plan.reused, buffers_freed_early=plan.freed_early
    )


def planned(mode: ModeResult, sources: Sequence[str], unit: int) -> ModeResult:
    """A preview's compiled side: its buffer plan, and the peak that plan implies where every size is known."""
    plan = combined_plan(sources)
    mode = with_plan(mode, plan)
    if plan is None or plan.peak_bytes is None:
        return mode
    return with_peak(mode, Peak(plan.peak_bytes, PLAN_SOURCE), unit)


def planned_step(
    mode: ModeResult, forward: Sequence[str], backward: Sequence[str], saved: int | None, unit: int
) -> ModeResult:
    """A previewed training step: forward's plan, then backward's on top of what forward kept for it (its
    inputs, allocated before its call)."""
    mode = with_plan(mode, combined_plan([*forward, *backward]))
    forward_plan, backward_plan = combined_plan(forward), combined_plan(backward)
    if forward_plan is None or backward_plan is None or saved is None:
        return mode
    if forward_plan.peak_bytes is None or backward_plan.peak_bytes is None:
        return mode
    backward_peak = saved + backward_plan.peak_bytes
    peak = max(forward_plan.peak_bytes, backward_peak)
    return with_peak(mode, Peak(peak, PLAN_SOURCE, forward_plan.peak_bytes, backward_peak), unit)


def eager_memory(mode: ModeResult, fn: Callable[..., Any], args: tuple[Any, ...], device: str, unit: int) -> ModeResult:
    """Eager's measured peak, and how many results its operators allocated."""
    measured = with_peak(mode, measured_peak(lambda: fn(*args), device), unit)
    with torch.no_grad():
        allocations = tracked_peak(lambda: fn(*args), LIVE_SOURCE).allocations
    return replace(measured, buffers_allocated=allocations)


def compiled_memory(
    mode: ModeResult, compiled_fn: Callable[..., Any], args: tuple[Any, ...], device: str, unit: int
) -> ModeResult:
    """The compiled side's measured peak, and the plan of the wrappers one call of it ran."""
    measured = with_peak(mode, measured_peak(lambda: compiled_fn(*args), device), unit)
    return with_plan(measured, combined_plan(called_wrapper_sources(compiled_fn, args)))


def called_wrapper_sources(compiled_fn: Callable[..., Any], args: tuple[Any, ...]) -> list[str]:
    """The source of each Inductor wrapper whose kernels one call of ``compiled_fn`` launched, in the order it
    first launched one: Inductor's module list also holds every wrapper compiled before in this process."""
    called: list[Any] = []
    with torch.no_grad():
        compiled_fn(*args)  # compiles first if it must (a new grad mode is a new graph): patched below
        with _noting_calls(called):
            compiled_fn(*args)
    return [Path(module.__file__).read_text(encoding="utf-8") for module in called]


class _Noted:
    """A generated kernel that notes its wrapper module when launched: called (C++) or ``.run`` (Triton)."""

    def __init__(self, kernel: Any, module: Any, called: list[Any]) -> None:
        self._kernel, self._module, self._called = kernel, module, called

    def _note(self) -> None:
        if not any(self._module is seen for seen in self._called):
            self._called.append(self._module)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self._note()
        return self._kernel(*args, **kwargs)

    def run(self, *args: Any, **kwargs: Any) -> Any:
        self._note()
        return self._kernel.run(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._kernel, name)


@contextlib.contextmanager
def _noting_calls(called: list[Any]) -> Iterator[None]:
    patched: list[tuple[Any, str, Any]] = []
    try:
        for module in wrapper_modules():
            for name, value in list(vars(module).items()):
                if is_wrapper_kernel(name) and (callable(value) or hasattr(value, "run")):
                    patched.append((module, name, value))
                    setattr(module, name, _Noted(value, module, called))
        yield
    finally:
        for module, name, value in reversed(patched):
            setattr(module, name, value)
