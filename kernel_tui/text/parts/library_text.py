"""A library call's kernels in words: the lines a table lists under a call the library ran as several kernels,
and the sentence the explorer's name line says of it.

The call is one row (``model/library_call``); what is inside it is information, written here once for the
terminal's tables, the lab report and the explorer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kernel_tui.model.report.library_call import kernel_line
from kernel_tui.text.formatting import format_time_us

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel


def kernel_lines(kernel: Kernel, preview: bool = False) -> list[tuple[str, str]]:
    """Each kernel inside a call the library ran as several, as a line under the call's row and its time:
    ``  ├ sm80_xmma_gemm_… grid 8×8×4``, ``  └ sm80_xmma_gemm_… grid 8×8×1 (split-K)``; none for any other row."""
    if kernel.split_words is None:
        return []
    inside = kernel.library_kernels
    return [
        (f"  {'└' if index == len(inside) - 1 else '├'} {kernel_line(part)}", format_time_us(part.time_us, preview))
        for index, part in enumerate(inside)
    ]


def call_story(kernel: Kernel) -> str | None:
    """``cuBLAS ran this product as 2 kernels: split-K (sm80_… grid 8×8×4, sm80_… grid 8×8×1 (split-K)); claims
    count the call``: for the line under the explorer's tables; None for any other row."""
    words = kernel.split_words
    if words is None:
        return None
    inside = ", ".join(kernel_line(part) for part in kernel.library_kernels)
    return f"{words} ({inside}); one call of {kernel.library}, which a claim counts once"
