"""The hotspot line, one per mode, as ``kernel-tui run`` prints it under the summary line and the explorer's summary
strip shows it: the kernels and the modules that hold most of the call, with their shares (``hotspots``).

::

    hotspot, compiled, of kernel time: aten::mm 83% (model.lm_head) · cpp_fused_…_0 6% (model) · layers:
    model.lm_head 83% · model.h.* ×2 12%

Fit to a width by its parts: the third kernel and module go first, then the second, and a kernel says where it
ran only while there is room (``fit_parts``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kernel_tui.model.report.hotspots import TOP
from kernel_tui.text.fit_parts import Part, fit_parts
from kernel_tui.text.parts.module_text import module_label, module_name

if TYPE_CHECKING:
    from kernel_tui.model.report.hotspots import HotKernel, HotModule, Hotspots
    from kernel_tui.model.report.report import ScenarioReport

MEASURE_WORDS = {"time": "of kernel time", "bytes": "of bytes", "flops": "of FLOPs"}
"""What a hotspot's shares are of, in its heading (``Hotspots.measure``)."""


def format_share(share: float) -> str:
    """``83%``; ``<1%`` for a share that is there but rounds to nothing."""
    return "<1%" if share < 0.005 else f"{share:.0%}"


def _where(kernel: HotKernel) -> str:
    """The module a kernel ran in, or how many: ``(model.lm_head)``, ``(5 modules)``; empty where none is known."""
    if not kernel.modules:
        return ""
    if len(kernel.modules) > 1:
        return f" ({len(kernel.modules)} modules)"
    return f" ({module_name(kernel.modules[0])})"


def _kernel_text(kernel: HotKernel) -> str:
    section = f"{kernel.section} " if kernel.section else ""  # a training step's forward or backward
    return f"{section}{kernel.short_name} {format_share(kernel.share)}"


def _module_text(module: HotModule) -> str:
    return f"{module_label(module.path, module.repeats)} {format_share(module.share)}"


def hotspot_parts(hot: Hotspots) -> list[Part]:
    """The line's parts after its heading: the kernels, then the modules. The first of each is never left out
    (priority 0), though the first kernel leaves out where it ran as a last resort; then the third kernel says
    less and goes, the third module, the second kernel, the second module."""
    parts = []
    for rank, kernel in enumerate(hot.kernels):
        short = _kernel_text(kernel)
        parts.append(Part(short + _where(kernel), 2 * rank + 2 if rank else 0, short))
    for rank, module in enumerate(hot.modules):
        text = _module_text(module)
        parts.append(Part(f"layers: {text}" if rank == 0 else text, 2 * rank + 1 if rank else 0))
    return parts


def hotspot_heading(hot: Hotspots) -> str:
    """``hotspot, compiled, of kernel time:``."""
    return f"hotspot, {hot.mode}, {MEASURE_WORDS[hot.measure]}:"


def hotspot_line(hot: Hotspots, width: int | None = None) -> str:
    """One mode's hotspot in ``width`` cells (None: whole); its first kernel and module stay even past it."""
    heading = hotspot_heading(hot)
    room = (width if width is not None else 10**6) - len(heading) - 1
    return f"{heading} {fit_parts(hotspot_parts(hot), room)}"


def shows_hotspots(report: ScenarioReport) -> bool:
    """Whether the hotspot lines say what the tables do not at a glance: a model's modules, or more kernels in a
    mode than the line names."""
    modes = (report.eager, report.compiled)
    return bool(report.modules) or any(mode is not None and len(mode.kernels) > TOP for mode in modes)


def hotspot_lines(report: ScenarioReport, width: int | None = None) -> list[str]:
    """A line per mode measured (``hotspot_line``), where they say something (``shows_hotspots``)."""
    if not shows_hotspots(report):
        return []
    return [hotspot_line(hot, width) for hot in report.hotspots]
