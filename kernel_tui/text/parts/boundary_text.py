"""Why two compiled kernels stayed apart, in the words each place shows it: the lines under the tables, a kernel
row's note, a code line's note (``--by-line``, the lab report, the explorer's gutter), and Inductor's own text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from kernel_tui.model.report.boundary import EXPERIMENTS
from kernel_tui.model.report.module_table import folded_path
from kernel_tui.text.formatting import format_bytes

if TYPE_CHECKING:
    from kernel_tui.model.report.boundary import Boundary
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.mode_result import ModeResult

APART = "apart"
"""The word that starts every boundary's line: the two kernels stayed apart."""


def boundaries_of(mode: ModeResult | None) -> tuple[Boundary, ...]:
    return mode.boundaries if mode is not None else ()


def pair_text(boundary: Boundary) -> str:
    """``aten::mm → cpp_fused_relu_0 (buf0, 4.0 MiB)``; a pair of loops in one kernel says so."""
    from kernel_tui.model.names.names import is_generated_kernel, without_graph_counter  # patterns compile when shown

    held = f"{boundary.buffer}, {format_bytes(boundary.buffer_bytes)}" if boundary.buffer_bytes else boundary.buffer
    producer, consumer = without_graph_counter(boundary.producer), without_graph_counter(boundary.consumer)
    if boundary.producer == boundary.consumer and is_generated_kernel(producer):
        return f"inside {producer} ({held})"
    return f"{producer} → {consumer} ({held})"


def experiment_text(boundary: Boundary) -> str:
    """``try the variant max_autotune (options={'max_autotune': True})``; "" where no experiment applies."""
    if boundary.experiment is None:
        return ""
    arguments = EXPERIMENTS.get(boundary.experiment, {})
    spelled = ", ".join(f"{key}={value!r}" for key, value in arguments.items())
    return f"try the variant {boundary.experiment} ({spelled})"


def boundary_line(boundary: Boundary, *, inductor: bool = False) -> str:
    """One boundary in one line: the pair, its kind, the reason, the experiment; with ``inductor``, Inductor's
    own words after it."""
    return f"{APART}: {pair_text(boundary)}{_why_text(boundary, inductor=inductor)}"


def _why_text(boundary: Boundary, *, inductor: bool) -> str:
    """After the pair: `` [kind]: reason``, the experiment, and with ``inductor`` Inductor's own words."""
    text = f" [{boundary.kind}]: {boundary.reason}"
    experiment = experiment_text(boundary)
    if experiment:
        text += f"; {experiment}"
    if inductor:
        text += f" (Inductor: {boundary.inductor})"
    return text


NOT_READ_IN_TRAINING = (
    f"{APART}: not read for a training step: the reasons come from one more compile with Inductor's scheduler "
    "watched, which kernel-tui runs for a plain call only; the same model measured without training shows its "
    "forward's"
)
"""Why a training step's report has no boundaries (``stages.boundary_compile.with_boundaries`` skips it)."""


def boundary_lines(mode: ModeResult | None, *, inductor: bool = False) -> list[str]:
    """The lines under the tables: the compiled side's boundaries, one line per reason in one module, repeated
    blocks folded into one (``h.*``, ×12); a training step, which has none, says why. None for a compile that
    fused all."""
    if mode is None:
        return []
    if not mode.boundaries:
        return ([NOT_READ_IN_TRAINING] if mode.is_training else []) + layout_lines(mode)
    modules = {row.name: row.module for row in mode.kernels}
    groups: dict[tuple[str, str, str | None, str | None], list[Boundary]] = {}
    paths: dict[tuple[str, str, str | None, str | None], set[str]] = {}
    for boundary in mode.boundaries:
        module = modules.get(boundary.consumer)
        key = (boundary.kind, boundary.reason, boundary.experiment, folded_path(module))
        groups.setdefault(key, []).append(boundary)
        paths.setdefault(key, set()).add(module or "")
    grouped = [_group_line(members, key[3], len(paths[key]), inductor=inductor) for key, members in groups.items()]
    return grouped + layout_lines(mode)


LAYOUT = "layout"
"""The word that starts a layout conversion's line: a kernel that only copies tensors into another layout."""


def layout_lines(mode: ModeResult) -> list[str]:
    """A line per kernel Inductor added to copy tensors into another layout: its bytes per call, what it is and
    what would avoid it (``Kernel.layout``)."""
    return [
        f"{LAYOUT}: {kernel.name} moves {format_bytes(kernel.bytes_total)} per call of fn: {kernel.layout}"
        for kernel in mode.kernels
        if kernel.layout and kernel.bytes_total is not None
    ]


def _group_line(members: Sequence[Boundary], module: str | None, blocks: int, *, inductor: bool) -> str:
    """One reason in one module: its first pair, how many more stand apart for it, where, and the bytes in all."""
    first = members[0]
    if len(members) == 1 and not module:
        return boundary_line(first, inductor=inductor)
    text = f"{APART}: {pair_text(first)}"
    if len(members) > 1:
        known = [boundary.buffer_bytes for boundary in members if boundary.buffer_bytes]
        held = f", {format_bytes(sum(known))} in all" if known else ""
        text += f" and {len(members) - 1} more{held}"
    if module:
        text += f" in {module}" + (f" (×{blocks})" if blocks > 1 else "")
    return text + _why_text(first, inductor=inductor)


def kernel_boundaries(kernel: Kernel, compiled: ModeResult | None, *, eager: bool = False) -> tuple[Boundary, ...]:
    """The boundaries a kernel row stands at: a compiled row's as consumer (what it reads from another kernel);
    an eager row's, those of the compiled kernels its work went to, where its work stayed in a kernel of its own
    (its compiled kernel holds no other operator's work)."""
    found = boundaries_of(compiled)
    if not eager:
        return tuple(boundary for boundary in found if boundary.consumer == kernel.name)
    rows = {row.short_name: row for row in (compiled.kernels if compiled is not None else ())}
    alone = {
        rows[target].name for target in kernel.fused_into if target in rows and len(set(rows[target].aten_ops)) <= 1
    }
    return tuple(boundary for boundary in found if alone & {boundary.producer, boundary.consumer})


def kernel_note(kernel: Kernel, compiled: ModeResult | None, *, eager: bool = False) -> str:
    """A row's note: ``apart [library]: the matmul is a library call ...``; "" for a row at no boundary."""
    found = kernel_boundaries(kernel, compiled, eager=eager)
    if not found:
        return ""
    # The row's line has room for one reason in full; the others are named by their kind.
    first, others = found[0], list(dict.fromkeys(boundary.kind for boundary in found[1:]))
    more = f" (and {', '.join(others)})" if others else ""
    return f"{APART} [{first.kind}]{more}: {first.reason}"


def line_boundaries(boundaries: Sequence[Boundary], line: int) -> list[Boundary]:
    """The boundaries whose consumer's work came from ``line``: the line whose work stayed apart."""
    return [boundary for boundary in boundaries if line in boundary.lines]
