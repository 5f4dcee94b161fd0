"""The hotspot in one glance: per mode, the few kernels and the few modules that hold most of the call.

A share is measured against the mode's own kernel time, all its kernels together (``module_table``'s
denominator): times swing from run to run on a busy machine, but the kernels of one profiled call are measured
together, so their shares of it compare. Where no kernel has a time (the CUDA preview runs nothing) the shares
are of bytes, else of FLOPs, and ``Hotspots.measure`` says which; a measure some kernel lacks is none to share
out. The modules are the rows of the folded per-module table (``folded_modules``: ``h.*`` for every block of a
``ModuleList``), with its shares; what a row holds is its own kernels, not those of the modules inside it, so
no module's share holds another's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernel_tui.model.report.figures import kernel_figure, module_figure
from kernel_tui.model.report.module_table import FoldedModule, folded_modules, folded_path, kernel_parts

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.mode_result import ModeResult
    from kernel_tui.model.report.module_table import ModuleRow

TOP = 3
"""How many kernels, and how many modules, a hotspot names: more is the kernel table again."""
MEASURES = ("time", "bytes", "flops")
"""What a share may be of, the first every kernel of the mode has: kernel time, else bytes moved, else FLOPs."""


@dataclass(frozen=True)
class HotKernel:
    """One kernel row among a mode's hottest."""

    name: str
    """The row's full name, as the kernel table's ``name`` (``aten::mm``, ``cpp_fused_add_native_layer_norm_0``)."""
    short_name: str
    """The name its table row shows (``Kernel.short_name``)."""
    share: float
    """Its share (0 to 1) of the mode's ``measure``, all kernels together."""
    section: str | None
    """A training step's ``forward`` or ``backward``, where the row ran; None when only ``fn`` is measured."""
    modules: tuple[str, ...]
    """The modules its launches came from, repeated blocks folded (``model.h.*.attn`` for every block's), in the
    order its row names them; ``""`` for ``fn``'s own code; empty where none is known."""


@dataclass(frozen=True)
class HotModule:
    """One row of the folded per-module table among a mode's hottest."""

    path: str | None
    """The module (``model.lm_head``), or the blocks of a ``ModuleList`` folded into one (``model.h.*``);
    ``""`` for ``fn``'s own code, None for launches of no known module."""
    repeats: int
    """How many modules it stands for (2 for ``model.h.*`` of two blocks)."""
    share: float
    """Its share (0 to 1) of the mode's ``measure``: its own kernels', not those of the modules inside it."""


@dataclass(frozen=True)
class Hotspots:
    """One mode's hottest kernels and modules, most first, each with a share above 0."""

    mode: str
    """``eager`` or ``compiled``."""
    measure: str
    """What the shares are of (``MEASURES``): ``time`` (the profiler's kernel time), or where no kernel has one
    (a preview) ``bytes``, else ``flops``."""
    kernels: tuple[HotKernel, ...]
    """At most ``TOP`` kernel rows, a training step's forward and backward rows apart."""
    modules: tuple[HotModule, ...]
    """At most ``TOP`` modules; empty where no kernel names a module (a scenario with no ``nn.Module``)."""


def measure_of(result: ModeResult) -> str | None:
    """The first of ``MEASURES`` every kernel of ``result`` has, adding up to more than nothing; None where
    there is none (no kernels, or a measure missing from some of them)."""
    for measure in MEASURES:
        known = [amount for kernel in result.kernels if (amount := kernel_figure(kernel, measure)) is not None]
        if len(known) == len(result.kernels) and sum(known) > 0:
            return measure
    return None


def _kernel_modules(kernel: Kernel) -> tuple[str, ...]:
    folded = (folded_path(path) for path, _ in kernel_parts(kernel))
    return tuple(dict.fromkeys(path for path in folded if path is not None))


def _share(module: FoldedModule, mode: str, measure: str, total: float) -> float:
    if measure == "time":
        share = getattr(module.row, f"{mode}_share")  # module_table's own share of the mode's kernel time
        return share or 0.0
    amount = module_figure(module.row, measure, mode)
    return amount / total if amount else 0.0


def mode_hotspots(mode: str, result: ModeResult, modules: Sequence[ModuleRow]) -> Hotspots | None:
    """``result``'s hotspots (``mode`` names it), its modules read from the report's per-module table
    ``modules``; None where no measure can be shared out (``measure_of``)."""
    measure = measure_of(result)
    if measure is None:
        return None
    total = sum(kernel_figure(kernel, measure) or 0.0 for kernel in result.kernels)
    kernels = sorted(
        (
            HotKernel(kernel.name, kernel.short_name, share, kernel.section, _kernel_modules(kernel))
            for kernel in result.kernels
            if (share := (kernel_figure(kernel, measure) or 0.0) / total) > 0
        ),
        key=lambda hot: -hot.share,
    )
    hot_modules = sorted(
        (
            HotModule(module.path, module.repeats, share)
            for module in folded_modules(modules)
            if (share := _share(module, mode, measure, total)) > 0
        ),
        key=lambda hot: -hot.share,
    )
    return Hotspots(mode, measure, tuple(kernels[:TOP]), tuple(hot_modules[:TOP]))


def hotspots(modes: dict[str, ModeResult | None], modules: Sequence[ModuleRow]) -> tuple[Hotspots, ...]:
    """Each measured mode's hotspots, in the order of ``modes``; a mode with nothing to share out is left out."""
    found = (mode_hotspots(name, result, modules) for name, result in modes.items() if result is not None)
    return tuple(hot for hot in found if hot is not None)
