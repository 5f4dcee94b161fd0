"""A run against its pinned baseline: per mode, which kernels were added, removed or changed, and how the
launches, bytes, peak memory and time moved. A library call counts as one launch however many kernels the
library ran for it (``Kernel.calls``), and pairs with the same operator's call in the other run whichever
kernels the library chose each time: cuBLAS's split-K on one GPU and not on another is no growth.

No torch and no Textual: ``kernel-tui run --baseline`` and the explorer's ``B`` both call ``compare`` on two
``ScenarioReport`` objects and show the rows it returns. Times are noisy, so a time difference counts only
where the two measurements' spreads do not overlap; launches and bytes are exact, and ``BaselineComparison.grew`` (a
launch count, a byte total or a peak went up in any mode) is what ``kernel-tui run --baseline`` exits 1 on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kernel_tui.model.compare.baseline_marks import ADDED, CHANGED, MARKS, REMOVED, SAME
from kernel_tui.model.names.names import kernel_identity, without_graph_counter
from kernel_tui.model.report.report_keys import MODES
from kernel_tui.text.formatting import format_bytes, format_count, format_ratio, format_time_us

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.mode_result import ModeResult
    from kernel_tui.model.report.report import ScenarioReport

NO_MEASURABLE_DIFFERENCE = "no measurable difference"
_COUNT_TOLERANCE = 1e-9
"""Launch counts are floats only when runs disagreed; a rounding error is no growth."""
PEAK_TOLERANCE = 0.01
"""A peak that grew by less is no growth: the allocator also counts a call's few-byte scalars."""


# -- matching kernels ---------------------------------------------------------------------------------------


def match_kernels(old: Sequence[Kernel], new: Sequence[Kernel]) -> list[tuple[Kernel | None, Kernel | None]]:
    """Pairs of the same kernel in two runs, in the new run's order, then the old kernels left over.

    The exact name is tried first, so that two kernels fusing the same operators (``cpp_fused_add_0`` and
    ``cpp_fused_add_1``) keep their own partners; only what is left is matched with the index ignored, in order.
    """
    partner: dict[int, int] = {}
    # The profiler's graph counter is process-wide: ``graph_3_cpp_fused_add_0`` is ``graph_0_cpp_fused_add_0``
    # of another run. A library call is its operator's, whichever kernels the library chose for it this time.
    keys: tuple[Callable[[Kernel], str | None], ...] = (
        lambda kernel: without_graph_counter(kernel.name),
        lambda kernel: kernel_identity(kernel.name),
        lambda kernel: kernel.library,
    )
    for key in keys:
        _pair_by(key, old, new, partner)
    taken = set(partner.values())
    pairs: list[tuple[Kernel | None, Kernel | None]] = [
        (old[partner[index]] if index in partner else None, kernel) for index, kernel in enumerate(new)
    ]
    pairs.extend((kernel, None) for index, kernel in enumerate(old) if index not in taken)
    return pairs


def _pair_by(
    key: Callable[[Kernel], str | None], old: Sequence[Kernel], new: Sequence[Kernel], partner: dict[int, int]
) -> None:
    """Pair the unpaired new kernels with the first unpaired old kernel of the same key (and launching operator);
    a kernel whose key is None pairs with none by it."""
    waiting: dict[tuple[str, str | None], list[int]] = {}
    taken = set(partner.values())
    for index, kernel in enumerate(old):
        if index not in taken and (known := key(kernel)) is not None:
            waiting.setdefault((known, kernel.op), []).append(index)
    for index, kernel in enumerate(new):
        if index in partner or (known := key(kernel)) is None:
            continue
        candidates = waiting.get((known, kernel.op))
        if candidates:
            partner[index] = candidates.pop(0)


# -- the comparison -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TimeChange:
    """Two medians with their interquartile ranges. Each is read as median ± half its range: where the two
    intervals overlap, the difference is within what the machine's noise moves a time by."""

    old_us: float | None
    new_us: float | None
    old_iqr_us: float | None = None
    new_iqr_us: float | None = None

    @property
    def delta_us(self) -> float | None:
        if self.old_us is None or self.new_us is None:
            return None
        return self.new_us - self.old_us

    @property
    def noise_us(self) -> float | None:
        """How far apart the two medians may be with their spreads still overlapping."""
        if self.old_iqr_us is None or self.new_iqr_us is None:
            return None
        return (self.old_iqr_us + self.new_iqr_us) / 2

    @property
    def measurable(self) -> bool | None:
        """Whether the time moved beyond the noise; None when there are no times, or no spread to judge by."""
        delta, noise = self.delta_us, self.noise_us
        if delta is None or noise is None:
            return None
        return abs(delta) > noise


@dataclass(frozen=True)
class KernelChange:
    """One row of the comparison: a kernel of either run, or the same kernel in both."""

    status: str
    """``added``, ``removed``, ``changed`` (its calls or bytes differ) or ``same``."""
    name: str
    """The short name shown: the new run's, or the old run's for a removed kernel."""
    old_name: str | None
    new_name: str | None
    old_calls: float | None
    new_calls: float | None
    old_bytes: int | None
    new_bytes: int | None
    time: TimeChange
    """Kernel times have no spread of their own: their mode's spreads stand in for it."""

    @property
    def calls_delta(self) -> float:
        return (self.new_calls or 0) - (self.old_calls or 0)

    @property
    def bytes_delta(self) -> int | None:
        """New bytes minus old, a kernel absent from a run counting 0; None when a present kernel's are unknown."""
        if (self.old_name is not None and self.old_bytes is None) or (
            self.new_name is not None and self.new_bytes is None
        ):
            return None
        return (self.new_bytes or 0) - (self.old_bytes or 0)


@dataclass(frozen=True)
class ModeComparison:
    """Eager or compiled, old against new: totals and the kernel rows."""

    mode: str
    old_launches: float
    new_launches: float
    old_bytes: int | None
    new_bytes: int | None
    time: TimeChange
    kernels: tuple[KernelChange, ...]
    old_peak_bytes: int | None = None
    new_peak_bytes: int | None = None
    """The mode's peak memory in each run; None in results saved before peaks were measured."""

    @property
    def peak_grew(self) -> bool:
        old, new = self.old_peak_bytes, self.new_peak_bytes
        return old is not None and new is not None and new > old * (1 + PEAK_TOLERANCE)

    @property
    def launches_delta(self) -> float:
        return self.new_launches - self.old_launches

    @property
    def bytes_delta(self) -> int | None:
        if self.old_bytes is None or self.new_bytes is None:
            return None
        return self.new_bytes - self.old_bytes

    @property
    def launches_grew(self) -> bool:
        return self.launches_delta > _COUNT_TOLERANCE

    @property
    def bytes_grew(self) -> bool:
        delta = self.bytes_delta
        return delta is not None and delta > 0

    @property
    def differences(self) -> tuple[KernelChange, ...]:
        """The rows worth reading: every kernel that was added, removed or changed."""
        return tuple(kernel for kernel in self.kernels if kernel.status != SAME)


@dataclass(frozen=True)
class BaselineComparison:
    """A report against its baseline; ``grew`` is the verdict a CI guards a fusion with."""

    scenario: str
    baseline_scenario: str
    old_size: int
    new_size: int
    old_device: str
    new_device: str
    modes: tuple[ModeComparison, ...]
    notes: tuple[str, ...] = ()
    """Why a mode could not be compared (not measured in one of the runs)."""

    @property
    def grew(self) -> bool:
        return bool(self.growth())

    def growth(self) -> list[str]:
        """What grew, one phrase each: ``compiled launches 1 → 2``, ``compiled bytes 12.0 MiB → 20.0 MiB``."""
        grown = []
        for mode in self.modes:
            if mode.launches_grew:
                grown.append(
                    f"{mode.mode} launches {format_count(mode.old_launches)} → {format_count(mode.new_launches)}"
                )
            if mode.bytes_grew:
                grown.append(f"{mode.mode} bytes {format_bytes(mode.old_bytes)} → {format_bytes(mode.new_bytes)}")
            if mode.peak_grew:
                peaks = f"{format_bytes(mode.old_peak_bytes)} → {format_bytes(mode.new_peak_bytes)}"
                grown.append(f"{mode.mode} peak memory {peaks}")
        return grown

    def mode(self, name: str) -> ModeComparison | None:
        return next((mode for mode in self.modes if mode.mode == name), None)

    def to_dict(self) -> dict[str, Any]:
        """The ``baseline`` field of ``kernel-tui run --baseline OLD --json``: the rows, and the deltas
        computed, so that a script need not subtract."""
        data = asdict(self)
        data["grew"] = self.grew
        data["growth"] = self.growth()
        for mode, mode_data in zip(self.modes, data["modes"]):
            mode_data["launches_delta"] = mode.launches_delta
            mode_data["bytes_delta"] = mode.bytes_delta
            old_peak, new_peak = mode.old_peak_bytes, mode.new_peak_bytes
            mode_data["peak_delta"] = new_peak - old_peak if old_peak is not None and new_peak is not None else None
            _add_time_verdict(mode.time, mode_data["time"])
            for kernel, kernel_data in zip(mode.kernels, mode_data["kernels"]):
                kernel_data["calls_delta"] = kernel.calls_delta
                kernel_data["bytes_delta"] = kernel.bytes_delta
                _add_time_verdict(kernel.time, kernel_data["time"])
        return data


def _add_time_verdict(time: TimeChange, data: dict[str, Any]) -> None:
    data["delta_us"] = time.delta_us
    data["measurable"] = time.measurable


def compare(old: ScenarioReport, new: ScenarioReport) -> BaselineComparison:
    """``new`` against the baseline ``old``, mode by mode."""
    modes = []
    notes = []
    for name in MODES:
        old_mode, new_mode = old.mode(name), new.mode(name)
        if old_mode is None or new_mode is None:
            if old_mode is not None or new_mode is not None:
                notes.append(f"{name}: not measured in the {'baseline' if old_mode is None else 'new run'}")
            continue
        modes.append(compare_modes(name, old_mode, new_mode))
    return BaselineComparison(
        scenario=new.scenario,
        baseline_scenario=old.scenario,
        old_size=old.size,
        new_size=new.size,
        old_device=old.device,
        new_device=new.device,
        modes=tuple(modes),
        notes=tuple(notes),
    )


def compare_modes(name: str, old: ModeResult, new: ModeResult) -> ModeComparison:
    time = TimeChange(old.time_us, new.time_us, old.time_iqr_us, new.time_iqr_us)
    pairs = match_kernels(old.kernels, new.kernels)
    rows = [_kernel_change(old_kernel, new_kernel, time) for old_kernel, new_kernel in pairs]
    return ModeComparison(
        mode=name,
        old_launches=old.kernel_count,
        new_launches=new.kernel_count,
        old_bytes=old.bytes_total,
        new_bytes=new.bytes_total,
        time=time,
        kernels=tuple(rows),
        old_peak_bytes=old.peak_bytes,
        new_peak_bytes=new.peak_bytes,
    )


def _kernel_change(old: Kernel | None, new: Kernel | None, mode_time: TimeChange) -> KernelChange:
    shown = new or old
    if shown is None:
        raise ValueError("a kernel row needs a kernel from at least one of the runs")
    if old is None:
        status = ADDED
    elif new is None:
        status = REMOVED
    elif abs(old.calls - new.calls) > _COUNT_TOLERANCE or old.bytes_total != new.bytes_total:
        status = CHANGED
    else:
        status = SAME
    return KernelChange(
        status=status,
        name=shown.short_name,
        old_name=old.name if old else None,
        new_name=new.name if new else None,
        old_calls=old.calls if old else None,
        new_calls=new.calls if new else None,
        old_bytes=old.bytes_total if old else None,
        new_bytes=new.bytes_total if new else None,
        time=TimeChange(
            old.time_us if old else None, new.time_us if new else None, mode_time.old_iqr_us, mode_time.new_iqr_us
        ),
    )


# -- finding the baseline of a report ------------------------------------------------------------------------


def baseline_of(report: ScenarioReport, baselines: Sequence[ScenarioReport], alone: bool) -> ScenarioReport | None:
    """The baseline of ``report``: the latest one of the same file, else the only one of the same file name
    (the baseline was written in another checkout), else, when ``alone`` (one scenario runs now and the
    baseline holds one report), that report: a variant in a file of its own is compared with the original. Where
    the baseline holds the device and architecture of ``report`` (a preview of several), only those count."""
    target = (report.device, report.arch)
    baselines = [old for old in baselines if (old.device, old.arch) == target] or list(baselines)
    same_path = [old for old in baselines if old.scenario == report.scenario]
    if same_path:
        return same_path[-1]
    name = Path(report.scenario).name
    same_name = {old.scenario: old for old in baselines if Path(old.scenario).name == name}
    if len(same_name) == 1:
        return next(iter(same_name.values()))
    if alone and len(baselines) == 1:
        return baselines[0]
    return None


# -- how the comparison reads --------------------------------------------------------------------------------


def signed(value: float, form: Callable[[float], str]) -> str:
    """``+4.0 MiB``, ``-1``, ``0``: a delta with its sign, in the unit ``form`` writes."""
    if value > 0:
        return "+" + form(value)
    if value < 0:
        return "-" + form(-value)
    return form(0)


def signed_bytes(value: int | None) -> str:
    return "—" if value is None else signed(value, format_bytes)


def signed_time(value_us: float | None) -> str:
    return "—" if value_us is None else signed(value_us, format_time_us)


def calls_text(change: KernelChange) -> str:
    """``1 call``, ``3 calls``, or ``1 → 2 calls`` when the count changed."""
    if change.old_calls is not None and change.new_calls is not None and change.status == CHANGED:
        if abs(change.old_calls - change.new_calls) > _COUNT_TOLERANCE:
            return f"{format_count(change.old_calls)} → {format_count(change.new_calls)} calls"
    calls = change.new_calls if change.new_calls is not None else change.old_calls
    return f"{format_count(calls)} call{'' if calls == 1 else 's'}"


def kernel_bytes_text(change: KernelChange) -> str:
    """An added kernel's bytes as ``+8.0 MiB``, a removed one's as ``-8.0 MiB``, a kept one's change."""
    return signed_bytes(change.bytes_delta)


def kernel_time_text(change: KernelChange) -> str:
    """Added, ``+1.20 ms``; removed, ``-1.20 ms``; in both runs, the change, or ``≈`` within the noise."""
    if change.time.old_us is None and change.time.new_us is None:
        return ""
    if change.status == ADDED:
        return signed_time(change.time.new_us)
    if change.status == REMOVED:
        return signed_time(None if change.time.old_us is None else -change.time.old_us)
    if change.time.measurable is False:
        return "≈"
    return signed_time(change.time.delta_us)


def kernel_cells(change: KernelChange) -> tuple[str, str, str, str, str]:
    """One row as the CLI and the app show it: mark, kernel, calls, bytes, time."""
    return MARKS[change.status], change.name, calls_text(change), kernel_bytes_text(change), kernel_time_text(change)


def time_text(time: TimeChange) -> str:
    """``time 16.35 ms → 802.1 µs (20.4× faster)``, ``… : no measurable difference``, ``""`` without times."""
    if time.old_us is None or time.new_us is None:
        return ""
    text = f"time {format_time_us(time.old_us)} → {format_time_us(time.new_us)}"
    if time.measurable is False:
        return f"{text}: {NO_MEASURABLE_DIFFERENCE}"
    if time.new_us <= 0 or time.old_us <= 0:
        return text
    if time.new_us < time.old_us:
        ratio = f"{format_ratio(time.old_us / time.new_us)} faster"
    else:
        ratio = f"{format_ratio(time.new_us / time.old_us)} slower"
    return f"{text} ({ratio}{'' if time.measurable else ', spread unknown'})"


def totals_text(mode: ModeComparison) -> str:
    """``compiled: 2 → 1 launches (-1), 12.0 MiB → 8.0 MiB (-4.0 MiB)``."""
    launches = f"{format_count(mode.old_launches)} → {format_count(mode.new_launches)} launches"
    launches += f" ({_delta_or_same(mode.launches_delta, format_count)})"
    traffic = f"{format_bytes(mode.old_bytes)} → {format_bytes(mode.new_bytes)}"
    if mode.bytes_delta is not None:
        traffic += f" ({_delta_or_same(mode.bytes_delta, format_bytes)})"
    return f"{mode.mode}: {launches}, {traffic}"


def _delta_or_same(value: float, form: Callable[[float], str]) -> str:
    return "same" if abs(value) <= _COUNT_TOLERANCE else signed(value, form)


def unchanged_text(mode: ModeComparison) -> str:
    """``2 kernels unchanged``; "" when every kernel changed."""
    same = len(mode.kernels) - len(mode.differences)
    return f"{same} kernel{'' if same == 1 else 's'} unchanged" if same else ""


def heading_text(comparison: BaselineComparison, source: str) -> str:
    """``add_relu.py in old.jsonl``, with what differs between the two runs besides the code."""
    return ", ".join([f"{Path(comparison.baseline_scenario).name} in {source}", *run_differences(comparison)])


def run_differences(comparison: BaselineComparison) -> list[str]:
    """What differs between the two runs besides the code: ``size 4,096 → 8,192``, ``device cpu → cuda``."""
    differences = []
    if comparison.old_size != comparison.new_size:
        differences.append(f"size {comparison.old_size:,} → {comparison.new_size:,}")
    if comparison.old_device != comparison.new_device:
        differences.append(f"device {comparison.old_device} → {comparison.new_device}")
    return differences


def verdict_text(comparison: BaselineComparison) -> str:
    """``grew: compiled launches 1 → 2, compiled bytes 12.0 MiB → 20.0 MiB``, or that nothing grew."""
    growth = comparison.growth()
    return "grew: " + ", ".join(growth) if growth else "no launch count, byte total or peak memory grew"
