"""Numbers as a learner reads them, shared by the CLI tables and the app so the two never disagree."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from kernel_tui.model.meaning.machine_load import RETRY_HINT, too_wide
from kernel_tui.model.report.report_keys import MODES, SECTIONS

if TYPE_CHECKING:
    from kernel_tui.model.meaning.machine_load import MachineLoad
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.mode_result import ModeResult
    from kernel_tui.model.report.report import ExpectCheck, ScenarioReport, SweepPoint

PREVIEW = "preview"
"""Said where a time would be in a CUDA preview's report: it generates code and runs nothing."""


def format_time_us(value: float | None, preview: bool = False) -> str:
    if value is None:
        return PREVIEW if preview else "—"
    if value >= 1e6:
        return f"{value / 1e6:.2f} s"
    if value >= 1e3:
        return f"{value / 1e3:.2f} ms"
    return f"{value:.1f} µs"


def format_gbs(gbs: float | None) -> str:
    """GB/s with three significant figures and no exponent: ``0.31``, ``7.17``, ``62.0``, ``2847``; below
    0.01, one (``0.002``), never ``0.00`` (a log axis's lowest tick read so), and short enough for the
    table's column."""
    if gbs is None:
        return "—"
    if gbs >= 100:
        return f"{gbs:.0f}"
    if gbs >= 10:
        return f"{gbs:.1f}"
    if gbs >= 0.01 or gbs <= 0:
        return f"{gbs:.2f}"
    decimals = min(-math.floor(math.log10(gbs)), 9)
    return f"{gbs:.{decimals}f}"


def ceiling_share_text(kernel: Kernel) -> str:
    """``62%``: a kernel's achieved bandwidth as a share of the device's copy ceiling; "" when not known."""
    return f"{kernel.ceiling_pct:.0f}%" if kernel.ceiling_pct is not None else ""


def bandwidth_text(kernel: Kernel, ceiling_gbs: float | None = None) -> str:
    """``7.17 GB/s, 62% of the copy ceiling`` (with ``ceiling_gbs``, ``… ceiling (11.6 GB/s)``); ``—`` when
    the kernel's bandwidth is not known."""
    if kernel.gbs is None:
        return "—"
    text = f"{format_gbs(kernel.gbs)} GB/s"
    if kernel.ceiling_pct is not None:
        text += f", {ceiling_share_text(kernel)} of the copy ceiling"
        if ceiling_gbs:
            text += f" ({format_gbs(ceiling_gbs)} GB/s)"
    return text


LINK_LABELS = {"eager": "fused into", "compiled": "replaces"}
"""How a kernel's attribution reads in each mode: eager, the compiled kernels that absorbed it; compiled, the
operators it replaced. The heading of the attribution column, and the verb of the sentence."""


def short_op(op: str) -> str:
    """``aten::add`` as ``add``: the namespace is the same for every op in these tables."""
    return op.split("::", 1)[1] if op.startswith("aten::") else op


def lines_text(lines: Sequence[int]) -> str:
    """``L11``, ``L11-13`` or ``L11,14``: the lines of the scenario file the work came from."""
    if not lines:
        return ""
    ordered = sorted(set(lines))
    if len(ordered) > 1 and ordered[-1] - ordered[0] == len(ordered) - 1:
        return f"L{ordered[0]}-{ordered[-1]}"
    return "L" + ",".join(str(line) for line in ordered)


def generated(name: str) -> bool:
    """A kernel Inductor wrote (``cpp_fused_add_relu_0``, ``triton_poi_...``), with code ``g`` can show; any
    other compiled kernel is a library call (``aten::addmm``), ATen's own kernel."""
    from kernel_tui.model.names.names import kernel_backend  # its patterns compile when a table is first filled

    return kernel_backend(name) is not None


def _became(kernel: Kernel, target: str) -> str:
    """One compiled kernel an eager kernel's work went to, as the attribution cell says it."""
    if generated(target):
        return target
    return "not fused: same call" if target == kernel.short_name else f"{target} (library)"


def link_text(kernel: Kernel, mode: str) -> str:
    """The attribution cell: eager, the compiled kernels that absorbed it; compiled, the ops it replaced.

    ``—`` when there is nothing to say (an eager kernel no compiled kernel took over, a compiled kernel
    whose origin the engine could not read). A library call is marked as one, and one that stays the same
    call compiled says so: ``aten::item`` is not fused into ``aten::item``.
    """
    if mode == "eager":
        return ", ".join(_became(kernel, target) for target in kernel.fused_into) or "—"
    ops = ", ".join(short_op(op) for op in kernel.aten_ops)
    where = lines_text(kernel.lines)
    if ops and where:
        return f"{ops} · {where}"
    return ops or where or "—"


def attribution_text(kernel: Kernel, mode: str) -> str:
    """The attribution in full: ``fused into cpp_fused_add_relu_0``, ``replaces aten::add, aten::relu (lines
    12, 13)``; "" when nothing is known."""
    if mode == "eager":
        return _eager_attribution(kernel)
    if not kernel.aten_ops and not kernel.lines:
        return ""
    text = f"{LINK_LABELS[mode]} " + (", ".join(kernel.aten_ops) or "?")
    if kernel.lines:
        text += f" (line{'s' if len(kernel.lines) > 1 else ''} {', '.join(map(str, kernel.lines))})"
    return text


def _eager_attribution(kernel: Kernel) -> str:
    """``fused into cpp_fused_add_relu_0``, ``fused into the library call aten::addmm (no generated code)``,
    ``not fused: compiled runs the same library call``; "" when no compiled kernel is known to do its work."""
    fused = [target for target in kernel.fused_into if generated(target)]
    library = [target for target in kernel.fused_into if not generated(target) and target != kernel.short_name]
    parts = [f"{LINK_LABELS['eager']} {', '.join(fused)}"] if fused else []
    if library:
        call = "library call" if len(library) == 1 else "library calls"
        parts.append(f"{LINK_LABELS['eager']} the {call} {', '.join(library)} (no generated code)")
    if kernel.short_name in kernel.fused_into:
        parts.append("not fused: compiled runs the same library call")
    return "; ".join(parts)


def cut_middle(text: str, width: int) -> str:
    """``text`` in ``width`` characters, cut in the middle: the end of a kernel's name tells it from its
    neighbours (``cpp_fused_add_relu_0`` and ``cpp_fused_add_relu_1``), so ``cpp…_relu_1`` keeps it: two
    thirds of the room go to the end."""
    if len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    head = (width - 1) // 3
    tail = width - 1 - head
    return f"{text[:head]}…{text[-tail:]}"


def format_bytes(value: int | float | None) -> str:
    if value is None:
        return "—"
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(value) >= scale:
            return f"{value / scale:.1f} {unit}"
    return f"{int(value)} B"


def format_count(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:g}"


def format_transfers(value: float | None) -> str:
    """Array-sized transfers to two decimals, one kept: ``1.0×``, ``1.5×``, and a quarter as ``0.25×``
    (one decimal read it as ``0.2×``, beside a claim of 0.25)."""
    if value is None:
        return "—"
    text = f"{value:.2f}"
    return f"{text[:-1] if text.endswith('0') else text}×"


def format_size(size: int) -> str:
    exponent = size.bit_length() - 1
    if size == 1 << exponent and exponent >= 8:
        return f"2^{exponent}"
    return f"{size:,}"


def format_ratio(value: float | None) -> str:
    """Three significant figures and no exponent, so a small ratio never reads ``0.00×``."""
    if value is None:
        return "—"
    if value >= 100:
        return f"{value:.0f}×"
    return f"{float(f'{value:.3g}'):g}×" if value >= 1e-4 else f"{value:.1e}×"


def format_speedup(point: SweepPoint) -> str:
    if not point.eager_us or not point.compiled_us:
        return "—"
    return format_ratio(point.eager_us / point.compiled_us)


NOISY_MARK = "⚠ noisy"
"""Beside the times of a mode whose kernel times add up to more than its call: read them as shares."""


def noisy_times(mode: ModeResult | None) -> bool:
    """Whether this mode's kernel times contradict its call's time (its notes say ``noisy``)."""
    return mode is not None and any(note.startswith("noisy") for note in mode.notes)


def holds_one(spread: tuple[float, float]) -> bool:
    """Whether a speedup's spread over the timing rounds holds 1: then no difference was measured."""
    low, high = spread
    return low <= 1.0 <= high


TOO_NOISY = "too noisy to tell on this machine right now"
"""Said in place of a speedup whose range is too wide to mean anything (``machine_load.TOO_WIDE``)."""


def speedup_text(report: ScenarioReport) -> str:
    """``speedup 2.1× (1.9–2.3)``, ``no measurable difference`` when the rounds' spread holds 1, or words
    when the spread is too wide to mean anything."""
    speedup = report.speedup
    if speedup is None:
        return "speedup —"
    if report.speedup_range is None:
        return f"speedup {format_ratio(speedup)}"
    if report.speedup_too_noisy:
        return f"speedup {TOO_NOISY} ({RETRY_HINT})"
    low, high = report.speedup_range
    spread = f"({format_ratio(low).rstrip('×')}–{format_ratio(high)})"
    if holds_one(report.speedup_range):
        return f"no measurable difference {spread}"
    return f"speedup {format_ratio(speedup)} {spread}"


def claim_line(key: str, check: ExpectCheck) -> str:
    """``✓ eager: claimed 2, measured 2``: one claim of a lesson against the measurement; ``? … not measured:
    <why>`` when what it needs was cut short (it neither holds nor fails)."""
    if check.ok is None:
        return f"? {key}: claimed {format_count(check.claimed)}, not measured: {check.reason or 'no measurement'}"
    measured = None if check.measured is None else round(check.measured, 3)
    mark = "✓" if check.ok else "✗"
    return f"{mark} {key}: claimed {format_count(check.claimed)}, measured {format_count(measured)}"


def launch_count(mode: ModeResult) -> str:
    """``13``, or ``≥1`` where a preview kept one launch for work it cannot count."""
    return ("≥" if mode.count_is_lower_bound else "") + format_count(mode.kernel_count)


def summary_line(report: ScenarioReport) -> str:
    """One line: launches, bytes and transfers eager -> compiled against the ideal, compile time, speedup."""
    eager, compiled = report.eager, report.compiled
    parts = []
    if eager is not None:
        launches = launch_count(eager)
        traffic = f"{format_bytes(eager.bytes_total)} ({format_transfers(eager.transfers)})"
        if compiled is not None:
            launches += f" → {launch_count(compiled)}"
            traffic += f" → {format_bytes(compiled.bytes_total)} ({format_transfers(compiled.transfers)})"
        parts.append(f"launches {launches}")
        parts.append(
            f"bytes {traffic}, ideal {format_bytes(report.ideal_bytes)} ({format_transfers(report.ideal_transfers)})"
        )
    if compiled is not None and report.is_preview:
        parts.append(f"compile {PREVIEW} · speedup {PREVIEW}")
    elif compiled is not None:
        parts.append(f"compile {compiled.compile_s:.2f} s" if compiled.compile_s is not None else "compile —")
        parts.append(speedup_text(report))
        if report.device == "cuda" and eager is not None and eager.wall_us is not None:
            # Kernel time after an L2 flush hides the host's cost per call; back-to-back calls show it.
            parts.append(f"wall per call {format_time_us(eager.wall_us)} → {format_time_us(compiled.wall_us)}")
    if compiled is not None:
        parts.append(f"graph breaks {compiled.graph_breaks}, recompiles {compiled.recompiles}")
    return " · ".join(parts)


def training_line(report: ScenarioReport) -> str:
    """A training step's launches and bytes per section, eager → compiled, and what forward saves for
    backward: ``forward: launches 3 → 1, bytes ... · saved for backward 256.0 KiB (1.0×) → 64.0 KiB (0.25×)``."""
    modes = [(name, mode) for name in MODES if (mode := report.mode(name)) is not None]
    parts = []
    for section in SECTIONS:
        launches = " → ".join(format_count(getattr(mode, f"{section}_launches")) for _, mode in modes)
        traffic = " → ".join(format_bytes(getattr(mode, f"{section}_bytes")) for _, mode in modes)
        parts.append(f"{section}: launches {launches}, bytes {traffic}")
    saved = " → ".join(
        f"{format_bytes(mode.saved_bytes)} ({format_transfers(report.saved_transfers(name))})" for name, mode in modes
    )
    parts.append(f"saved for backward {saved}")
    return " · ".join(parts)


def device_text(device: str, device_name: str, threads: int | None, torch_version: str) -> str:
    """``cpu (AMD EPYC 7B13, 2 threads) · torch 2.14.1``: where the numbers come from. Threads only on a CPU,
    where they set how fast the kernels run."""
    thread_count = f", {threads} threads" if threads and device == "cpu" else ""
    return f"{device} ({device_name}{thread_count}) · torch {torch_version}"


def device_line(report: ScenarioReport) -> str:
    """Where the numbers come from, and at which size; no size when none was known (a file the engine could
    not read reports size 0: "size 0" read as a run on empty arrays)."""
    where = device_text(report.device, report.device_name, report.threads, report.torch_version)
    return f"{where} · size {report.size:,}" if report.size > 0 else where


def report_notes(report: ScenarioReport) -> list[str]:
    """What to know before trusting the numbers, the same lines in the CLI and the app."""
    notes = list(report.notes)
    for name in MODES:
        mode = report.mode(name)
        notes.extend(f"{name}: {note}" for note in (mode.notes if mode is not None else ()))
    noisy = [point for point in report.sweep if point.note and point.note.startswith("noisy")]
    if noisy:
        notes.append(f"{len(noisy)} of {len(report.sweep)} sweep points had noisy timing: is the machine busy?")
    if ended := sweep_end(report):
        notes.append(ended)
    if (load := busy_while_measuring(report)) is not None:
        notes.append(load.sentence())
    return notes


def busy_while_measuring(report: ScenarioReport) -> MachineLoad | None:
    """The machine's load where it was busy while something was measured; None otherwise, and for a run that
    failed before measuring anything: it has no numbers the load could have moved."""
    load = report.machine_load
    measured = any(report.mode(name) is not None for name in MODES) or bool(report.sweep)
    return load if measured and load is not None and load.busy else None


def sweep_end_short(points: Sequence[SweepPoint]) -> str | None:
    """Where and why the sweep stopped, short enough for the chart's border: ``ended before 2^18: about 103 s,
    budget 90 s``, ``ended at 2^22: out of memory``, ``2^14, 2^16 skipped: budget 90 s`` where it gave up middle
    sizes to reach the largest; None when every size was measured."""
    given_up = [point for point in points if point.eager_us is None and point.note]
    skipped = [
        point for point in given_up if point.note and point.note.startswith("skipped") and "elements so" in point.note
    ]
    for point in given_up:
        note = point.note or ""
        if point in skipped:
            continue
        if taking := re.search(r"would take about ([\d,.]+ s)", note):
            budget = re.search(r"budget is ([\d.]+ s)", note)
            return f"ended before {format_size(point.size)}: about {taking.group(1)}" + (
                f", budget {budget.group(1)}" if budget else ""
            )
        if "out of memory" in note:
            return f"ended at {format_size(point.size)}: out of memory"
        return f"ended before {format_size(point.size)}: {note.split(': ', 1)[-1]}"
    if skipped:
        budget = re.search(r"budget is ([\d.]+ s)", skipped[0].note or "")
        sizes = ", ".join(format_size(point.size) for point in skipped)
        return f"{sizes} skipped" + (f": budget {budget.group(1)}" if budget else "")
    return None


def sweep_end(report: ScenarioReport) -> str | None:
    """Why the sweep stopped before its last size (``sweep ended: this size would take about …``), or gave up a size
    in the middle to reach the largest (``skipped 16,384 elements so that …``), or None."""
    for point in report.sweep:
        if point.eager_us is None and point.note:
            if point.note.startswith(("sweep ended", "skipped")):
                return point.note
            return f"sweep ended: {point.note}"
    return None


VARIANT_HEADERS = ("kernels", "bytes", "time ± half IQR", "speedup", "compile", "breaks", "recomp.")
"""The numeric columns of a compile-variants row, after its name."""


def variant_rows(report: ScenarioReport) -> list[tuple[str, tuple[str, ...] | None]]:
    """Eager, compiled and each compile variant: (name, cells under ``VARIANT_HEADERS``), or (name, None) for a
    column with no numbers. One definition for the CLI, the lab report and the app."""
    rows: list[tuple[str, ModeResult | None, tuple[float, float] | None, float | None]] = [
        ("eager", report.eager, None, None),
        ("compiled", report.compiled, report.speedup_range, report.speedup_median),
    ]
    rows += [
        (name, variant.measured, variant.speedup_range, variant.speedup_median)
        for name, variant in report.variants.items()
    ]
    eager_us = report.eager.time_us if report.eager is not None else None
    shown: list[tuple[str, tuple[str, ...] | None]] = []
    for name, mode, spread, median in rows:
        if mode is None:
            shown.append((name, None))
            continue
        time = format_time_us(mode.time_us, report.is_preview)
        if mode.time_iqr_us is not None:
            time += f" ± {format_time_us(mode.time_iqr_us / 2)}"
        cells = (
            format_count(mode.kernel_count),
            format_bytes(mode.bytes_total),
            time,
            "" if name == "eager" else _speedup_cell(eager_us, mode.time_us, spread, median),
            f"{mode.compile_s:.2f} s" if mode.compile_s is not None else "",
            "" if mode.graph_breaks is None else str(mode.graph_breaks),
            "" if mode.recompiles is None else str(mode.recompiles),
        )
        shown.append((name, cells))
    return shown


def _speedup_cell(
    eager_us: float | None, time_us: float | None, spread: tuple[float, float] | None, median: float | None
) -> str:
    if not eager_us or not time_us:
        return "—"
    if too_wide(spread):
        return "too noisy"
    if spread is not None and holds_one(spread):
        return "≈ 1×"  # no measurable difference
    return format_ratio(median if median is not None else eager_us / time_us)


PREDICTED_MARK = "*"
"""After a preview's eager count that follows ATen's CUDA source (``Kernel.predicted``) rather than a rule."""
