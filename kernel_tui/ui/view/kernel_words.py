"""Why these kernels, in words: which compiled kernel absorbed an eager one, what a compiled kernel
replaced, how fast each one moved its bytes, and which compiled kernel's code ``g`` shows.

Plain functions of ``kernel_tui.model.report.report`` data (no Textual), shared by the full-name line under the
kernel tables and the generated-code dialog, and tested without an app (the tables' columns are
``kernel_tui.text.kernel_columns``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kernel_tui.text.formatting import attribution_text, bandwidth_text
from kernel_tui.text.parts.boundary_text import kernel_note
from kernel_tui.text.parts.library_text import call_story
from kernel_tui.text.parts.roofline_text import format_bound, format_flops, format_gflops, format_intensity

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.mode_result import ModeResult


def kernel_story(kernel: Kernel, mode: str, compiled: ModeResult | None = None) -> list[str]:
    """The highlighted kernel's attribution and bandwidth in full, for the line under the tables; it offers
    ``g`` only where ``code_kernel`` (what ``g`` shows) finds code, with ``compiled`` the run's compiled side."""
    attribution = attribution_text(kernel, mode)
    parts = [attribution] if attribution else []
    inside = call_story(kernel)
    if inside:
        parts.append(inside)
    apart = kernel_note(kernel, compiled, eager=mode == "eager")
    if apart:
        parts.append(f"{apart} (d: Inductor's words)")
    if kernel.gbs is not None:
        parts.append(bandwidth_text(kernel))
    if kernel.flops is not None or kernel.intensity is not None:
        parts.append(roofline_story(kernel))
    target = code_kernel(kernel, mode, compiled) if mode == "eager" else None
    if mode == "compiled" and kernel.code:
        parts.append("g shows its code")
    elif target is not None:
        parts.append("g shows the code it became")
    return parts


def roofline_story(kernel: Kernel) -> str:
    """``2.15 G FLOPs, 171 FLOP/B, 26.9 GFLOP/s, compute-bound``: the highlighted kernel on the roofline."""
    parts = [f"{format_flops(kernel.flops)} FLOPs", f"{format_intensity(kernel.intensity)} FLOP/B"]
    if kernel.gflops is not None:
        parts.append(f"{format_gflops(kernel.gflops)} GFLOP/s")
    if kernel.bound is not None:
        parts.append(format_bound(kernel.bound))
    return ", ".join(parts)


def code_language(kernel: Kernel) -> str:
    """The Pygments lexer for a compiled kernel's source: C++ (Inductor's CPU kernels) or Python (Triton)."""
    from kernel_tui.model.names.names import (
        kernel_backend,  # its patterns compile when code is first shown, not at start-up
    )

    code = kernel.code or ""
    backend = kernel_backend(kernel.name)
    if "@triton" in code or "import triton" in code or backend == "triton":
        return "python"
    if "#include" in code or 'extern "C"' in code or backend == "cpp":
        return "cpp"
    return "python"


def code_kernel(kernel: Kernel | None, mode: str, compiled: ModeResult | None) -> Kernel | None:
    """The compiled kernel whose code the ``g`` key shows, for the kernel highlighted in ``mode``'s table:
    that kernel itself (compiled), or the compiled kernel that did an eager kernel's work (eager).

    None when no compiled kernel is known to have done that work: showing the first kernel with code
    instead would name an unrelated one (``cpp_fused_max_sin_0`` for ``aten::cos``)."""
    if compiled is None:
        return None
    with_code = [candidate for candidate in compiled.kernels if candidate.code]
    if kernel is None:
        return with_code[0] if with_code else None
    if mode == "compiled":
        return kernel if kernel.code else None
    for name in kernel.fused_into:
        for candidate in with_code:
            if candidate.short_name == name:
                return candidate
    # Without attribution, a compiled kernel that says it replaced this very operator did its work.
    for ops in ({kernel.name, kernel.op} - {None}, set(kernel.aten_ops)):
        found = next((candidate for candidate in with_code if ops & set(candidate.aten_ops)), None)
        if found is not None:
            return found
    return None


def no_code_reason(kernel: Kernel | None, mode: str) -> str:
    """What ``g`` says when ``code_kernel`` found nothing to show for the highlighted kernel."""
    if kernel is None:
        return "No generated code to show: run the scenario first (r)."
    if mode == "compiled":
        return f"{kernel.short_name} has no generated code: it is a library call or a copy, not an Inductor kernel."
    attribution = attribution_text(kernel, mode)
    if attribution:
        # The same words as its row: the work went to a library call, which has no generated code.
        return f"{kernel.short_name}: {attribution}, so there is no code to show."
    return (
        f"{kernel.short_name}: no compiled kernel is known to have done its work "
        "(compiled, it may have become a view, a library call, or nothing)."
    )
