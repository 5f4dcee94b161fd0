"""Why a model's compiled side did no better: the note a report gets when it ran PyTorch's fast path for an
eval-mode transformer or attention layer (``op_kinds.FUSED_LAYERS``), one operator Inductor cannot fuse into."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from kernel_tui.engine.counting.op_kinds import FUSED_LAYERS

if TYPE_CHECKING:
    from kernel_tui.model.report.mode_result import ModeResult
    from kernel_tui.model.report.report import ScenarioReport

FAST_PATH = "PyTorch's fast path for an eval-mode transformer or attention layer under no_grad"
FAST_PATH_KEPT = (
    "{layers} ran compiled too: {fast_path}, one operator to Inductor, which leaves it as it is, so compiled runs "
    "the same passes as eager; torch.backends.mha.set_fastpath_enabled(False) before the call gives Inductor "
    "its operators to fuse"
)
FAST_PATH_EAGER_ONLY = (
    "{layers} ran eagerly only: {fast_path}, its passes nested under it; compiled, Dynamo traced the layer's own "
    "operators instead, which Inductor could fuse"
)


def fast_path_note(report: ScenarioReport) -> ScenarioReport:
    """The report with a note naming the fused layers it ran, if any: why compiled did no better there, or why
    the two sides' rows differ."""
    eager, compiled = (_fused_layers(mode) for mode in (report.eager, report.compiled))
    notes = []
    if compiled:
        notes.append(FAST_PATH_KEPT.format(layers=" and ".join(compiled), fast_path=FAST_PATH))
    if report.compiled is not None and (only_eager := [layer for layer in eager if layer not in compiled]):
        notes.append(FAST_PATH_EAGER_ONLY.format(layers=" and ".join(only_eager), fast_path=FAST_PATH))
    if not notes:
        return report
    return replace(report, notes=tuple(dict.fromkeys((*report.notes, *notes))))


def _fused_layers(mode: ModeResult | None) -> list[str]:
    kernels = () if mode is None else mode.kernels
    names = (name for kernel in kernels for name in (kernel.name, kernel.op, *kernel.aten_ops))
    return sorted({name for name in names if name in FUSED_LAYERS})
