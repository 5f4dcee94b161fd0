"""Which eager operators each compiled kernel replaced, and which compiled kernel absorbed each eager one.

Inductor records the original ATen operators of each kernel: in a comment above a Triton kernel
(``Original ATen: [aten.add, aten.relu]``) and, for C++ kernels, in the kernel's name, which it builds from
the same operators (``cpp_fused_add_relu_0``). Matched by operator name against what the dispatcher saw
eagerly, that gives the lines of ``fn`` each compiled kernel came from.
"""

from __future__ import annotations

import re
from dataclasses import replace

from kernel_tui.report import Kernel

FUSED_NAME = re.compile(r"_fused_(?P<ops>.+)_\d+$")


def ops_from_name(short_name: str, candidates: list[str]) -> tuple[str, ...]:
    """The candidate operators (``aten::add``) whose names appear in a fused kernel's name, in name order."""
    match = FUSED_NAME.search(short_name)
    if not match:
        return ()
    fused = f"_{match.group('ops')}_"
    found = []
    for op in candidates:
        position = fused.find(f"_{op.split('::', 1)[-1]}_")
        if position >= 0:
            found.append((position, op))
    return tuple(op for _, op in sorted(found))


def attribute(eager: tuple[Kernel, ...], compiled: tuple[Kernel, ...]) -> tuple[tuple[Kernel, ...], tuple[Kernel, ...]]:
    """Fill compiled kernels' ``aten_ops`` and ``lines``, and eager kernels' ``fused_into``."""
    candidates = list(dict.fromkeys(op for kernel in eager for op in kernel.aten_ops))
    lines_of: dict[str, list[int]] = {}
    for kernel in eager:
        for op in kernel.aten_ops:
            lines_of.setdefault(op, []).extend(kernel.lines)
    attributed = []
    for kernel in compiled:
        ops = kernel.aten_ops or ops_from_name(kernel.short_name, candidates)
        lines = tuple(sorted({line for op in ops for line in lines_of.get(op, ())}))
        attributed.append(replace(kernel, aten_ops=ops, lines=lines))
    absorbed = []
    for kernel in eager:
        into = tuple(c.short_name for c in attributed if set(c.aten_ops) & set(kernel.aten_ops))
        absorbed.append(replace(kernel, fused_into=into))
    return tuple(absorbed), tuple(attributed)
