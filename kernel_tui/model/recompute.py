"""Which forward operators a compiled training step runs again in backward instead of keeping their results.

AOTAutograd's partitioner chooses, for each value backward needs, between saving it in forward and recomputing
it in backward from what it saves anyway (the inputs, for a pointwise chain): recomputing cheap pointwise work
costs no extra kernel once it fuses into backward's, and saves the memory between the halves. Inductor names
the operators each kernel carries ("Original ATen" in its wrapper: ``Kernel.aten_ops``), so the choice shows:
a forward operator inside a compiled backward kernel that eager's backward never runs was recomputed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kernel_tui.model.report import ModeResult


def _ops(mode: ModeResult, section: str) -> set[str]:
    return {op for kernel in mode.section(section) for op in kernel.aten_ops}


def recomputed_ops(eager: ModeResult, compiled: ModeResult) -> tuple[str, ...]:
    """The forward operators compiled backward recomputes, sorted; () for a step that recomputes nothing, or
    for a forward-only call."""
    forward = _ops(compiled, "forward") | _ops(eager, "forward")
    again = _ops(compiled, "backward") & forward
    return tuple(sorted(op for op in again - _ops(eager, "backward") if not op.endswith("_backward")))
