"""The device's two ceilings, measured here, not read from a datasheet: copy bandwidth and matmul throughput.

The bandwidth ceiling is the rate of a large device-to-device copy (read once, write once); the compute
ceiling is the rate of a large ``torch.mm`` in the scenario's dtype. Both are measured per device and thread
count and cached in one file in ``$KERNEL_TUI_CACHE_DIR`` (default ``~/.cache/kernel-tui``). A busy moment can
only make a measurement slower, so a cached figure is measured again when it is old, when a kernel beats the
copy (``checked_ceiling``), or when the user asks (``kernel-tui run --remeasure-ceiling``, which travels in the
run request as ``remeasure_ceiling``), and the higher of the two is kept unless the user asked.

One measurement is the best of short rounds repeated until the two best agree (``best_of_rounds``): a busy
moment slows some rounds, never all of them, so it cannot set the ceiling. Each cached figure keeps when and
under what load it was measured, shown beside it (``ceiling_conditions``).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch

from kernel_tui.engine.counting.device import free_memory_bytes, last_level_cache_bytes
from kernel_tui.engine.counting.timing import time_call
from kernel_tui.model.report.report import gbs
from kernel_tui.model.settings import cache_dir
from kernel_tui.model.storage.atomic_write import write_atomic
from kernel_tui.model.storage.file_lock import held_alone

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel

COPY_BYTES = {"cpu": 256 * 2**20, "cuda": 2 * 2**30}
MAX_AGE_S = 7 * 24 * 3600
IMPLAUSIBLE = 1.5
"""A kernel this many times faster than the copy ceiling had its data in cache, which the report says
(``measure._note_cache_resident``); a product this much faster than the matmul ceiling has it measured again."""
RECHECK_HOLD_S = 3600.0
"""How long after the ceiling was measured (or measured again for a kernel) a kernel whose data sits in cache sets
off no new measurement (``checked_ceiling``): an hour, so that a ceiling measured in a busy moment is measured once
more after the hour by a quiet run."""
PHYSICAL_LIMITS = {
    ("gbs", "cpu"): 5_000.0,
    ("gbs", "cuda"): 50_000.0,
    ("gflops", "cpu"): 2_000_000.0,
    ("gflops", "cuda"): 100_000_000.0,
}
"""Figures no device of the kind reaches, by several times: a CPU's memory moves at most about 1 TB/s (HBM on a
Xeon Max; 12 channels of DDR5 about 0.6), a GPU's about 8 TB/s (HBM3e); the fastest CPU matmul (AMX, a whole
server) is some hundreds of TFLOPS, a GPU's some PFLOPS in its narrowest dtype. A cached figure above one was not
measured (a hand edit, a scenario that wrote the cache) and is measured again (``_usable_entry``)."""
CLOCK_SLACK_S = 24 * 3600.0
"""How far ahead of the clock a cached date may be (a clock set back) before the entry counts as forged: a date
far ahead would keep any figure fresh for ever."""
_REMEASURED: set[str] = set()
_BEATEN: set[str] = set()
"""Ceilings measured again in this engine because a kernel beat them (by a little: once per engine)."""


def cache_file() -> Path:
    return cache_dir() / "bandwidth.json"


MEASURING_WAIT_S = 20.0
"""How long an engine waits for another's measurement of a ceiling (about two seconds, up to eight on a busy
machine) before measuring its own; an engine that waited this long once waits no more (``_measuring_alone``)."""
_GAVE_UP_WAITING: set[Path] = set()
"""The lock files this engine waited for in vain."""


@contextlib.contextmanager
def _measuring_alone() -> Iterator[bool]:
    """One engine on this machine measures or re-reads a ceiling at a time, and the others then read its figure.
    Engines started together (a folder fanned out, a test suite's workers, two terminals) each found nothing cached
    and measured at once, their copies sharing the memory and the cores: three test workers measured the copy three
    times over, each at a share of the device's rate. A holder that keeps the lock past the wait (a run stopped with
    ctrl+z mid-measurement) costs an engine one wait, not one for each ceiling: a run waited 97 s for three."""
    lock = cache_file().with_name("bandwidth.lock")
    with held_alone(lock, 0.0 if lock in _GAVE_UP_WAITING else MEASURING_WAIT_S) as held:
        if not held:
            _GAVE_UP_WAITING.add(lock)
        yield held


MIN_COPY_BYTES = 16 * 2**20
"""Below this a copy stays in a GPU's L2 (or a CPU's caches) and measures the cache, not memory."""


def copy_bytes(device: str, free_bytes: int) -> int:
    """The copy's size: the preferred one where it fits, with room to spare, in the free memory."""
    return max(min(COPY_BYTES[device], free_bytes // 4), MIN_COPY_BYTES)


def measure_ceiling_gbs(device: str) -> float | None:
    """The rate of a large copy, or None where not even the smallest one fits in memory."""
    size = copy_bytes(device, free_memory_bytes(device))
    while size >= MIN_COPY_BYTES:
        try:
            return _copy_rate_gbs(size, device)
        except (MemoryError, RuntimeError) as error:  # torch's OutOfMemoryError is a RuntimeError
            if "out of memory" not in str(error).lower() and not isinstance(error, MemoryError):
                raise
            # Another process took the memory between the query and the allocation: try half.
            size //= 2
    return None


ROUND_BUDGET_S = 0.1
MIN_ROUNDS, MAX_ROUNDS = 3, 8
STABLE = 0.03
"""Rounds stop once the two fastest agree within this share: the machine gave its best twice."""
_ROUNDS: dict[str, int] = {}
"""How many rounds the latest measurement of each kind took (``copy``, ``matmul``), for its conditions."""


def best_of_rounds(call: Callable[[], object], device: str, kind: str) -> float:
    """The fastest median time (µs) of short timing rounds, repeated until the two fastest agree."""
    medians: list[float] = []
    while len(medians) < MAX_ROUNDS:
        medians.append(time_call(call, device, budget_s=ROUND_BUDGET_S).median_us)
        fastest = sorted(medians)
        if len(medians) >= MIN_ROUNDS and fastest[1] <= fastest[0] * (1 + STABLE):
            break
    _ROUNDS[kind] = len(medians)
    return min(medians)


def _copy_rate_gbs(size: int, device: str) -> float | None:
    source = torch.empty(size // 4, dtype=torch.float32, device=device).fill_(1.0)
    target = torch.empty_like(source)
    target.copy_(source)
    return gbs(2 * size, best_of_rounds(lambda: target.copy_(source), device, "copy"))


def ceiling_gbs(device: str, device_name: str, *, remeasure: bool = False) -> float | None:
    """The copy bandwidth of this device: cached if the cache is recent, else measured now and cached."""
    return _cached_ceiling(_key(device, device_name), "gbs", lambda: measure_ceiling_gbs(device), remeasure)


MATMUL_SIDE = {"cpu": 1024, "cuda": 8192}
"""Square matrices this large reach a BLAS's peak (on CPU a 512 product ran at a quarter of the 1024 one's
rate); on two CPU cores the measurement takes about half a second (2 GFLOP a call)."""


def measure_matmul_gflops(device: str, dtype: torch.dtype = torch.float32) -> float | None:
    """The rate of a large square ``torch.mm`` in ``dtype``, or None where the device cannot run one."""
    side = MATMUL_SIDE[device]
    try:
        left = torch.randn(side, side, device=device).to(dtype)
        right = torch.randn(side, side, device=device).to(dtype)
        product = torch.empty(side, side, device=device, dtype=dtype)
        torch.mm(left, right, out=product)
        best_us = best_of_rounds(lambda: torch.mm(left, right, out=product), device, "matmul")
    except (MemoryError, RuntimeError):
        # No matmul in this dtype on this device, or no memory for it: no compute ceiling, not a crash.
        return None
    if best_us <= 0:
        return None
    return 2 * side**3 / best_us / 1e3


def matmul_ceiling_gflops(
    device: str, device_name: str, dtype: torch.dtype = torch.float32, *, remeasure: bool = False
) -> float | None:
    """Peak matmul throughput of this device in ``dtype``: cached beside the copy ceiling, else measured now."""
    key = _matmul_key(device, device_name, dtype)
    return _cached_ceiling(key, "gflops", lambda: measure_matmul_gflops(device, dtype), remeasure)


def checked_matmul_ceiling(
    device: str, device_name: str, dtype: torch.dtype, ceiling: float | None, fastest_gflops: float | None
) -> float | None:
    """The compute ceiling, measured once more if a kernel beat it by far; the higher figure is kept."""
    if not ceiling or not fastest_gflops or fastest_gflops <= IMPLAUSIBLE * ceiling:
        return ceiling
    key = _matmul_key(device, device_name, dtype)

    def raised_by_another_engine() -> float | None:
        figure = _fresh_figure(key, "gflops")
        return figure if figure is not None and figure > ceiling else None

    def measured_again() -> float:
        remeasured = measure_matmul_gflops(device, dtype)
        if remeasured is None or remeasured <= ceiling:
            return ceiling
        cached = _read_cache()
        cached[key] = _entry("gflops", remeasured, "matmul")
        _write_cache(cached)
        return remeasured

    return _unless_settled(raised_by_another_engine, measured_again)


def _matmul_key(device: str, device_name: str, dtype: torch.dtype) -> str:
    return f"{_key(device, device_name)}:matmul {str(dtype).removeprefix('torch.')}"


def _cached_ceiling(key: str, field: str, measure: Callable[[], float | None], remeasure: bool) -> float | None:
    # Asked for, it is measured once per engine, not before every scenario of the run.
    asked = remeasure and key not in _REMEASURED
    return _unless_settled(
        lambda: None if asked else _fresh_figure(key, field), lambda: _measured(key, field, measure, asked)
    )


def _unless_settled(settled: Callable[[], float | None], measure: Callable[[], float | None]) -> float | None:
    """What ``settled`` finds (a figure, else None), read first without the lock and then under it, as another
    engine may have measured while this one waited; else ``measure``, under the lock. The cache is written whole,
    so the unlocked read is safe, and another engine's measurement, or a run stopped while it held the lock, delays
    only an engine that has to measure."""
    figure = settled()
    if figure is not None:
        return figure
    with _measuring_alone():
        figure = settled()
        return figure if figure is not None else measure()


def _fresh_figure(key: str, field: str, cached: dict[str, Any] | None = None) -> float | None:
    """The figure in the cache (read now unless given) if it is usable and younger than ``MAX_AGE_S``."""
    entry = _usable_entry((_read_cache() if cached is None else cached).get(key), field, key)
    return entry[field] if entry and time.time() - entry["measured_at"] < MAX_AGE_S else None


def _measured(key: str, field: str, measure: Callable[[], float | None], asked: bool) -> float | None:
    """Measured now (nothing fresh was cached, or the user asked) and cached."""
    value = measure()
    if value is None:
        return None
    if asked:
        _REMEASURED.add(key)
    cached = _read_cache()
    cached[key] = _entry(field, value, "copy" if field == "gbs" else "matmul")
    _write_cache(cached)
    return value


def _usable_entry(found: object, field: str, key: str) -> dict[str, float]:
    """A cache entry whose figure and date are positive finite numbers, the figure one the device ``key`` names
    could reach (``PHYSICAL_LIMITS``) and the date not ahead of now; else none (``{}``), so that the ceiling is
    measured and the entry written anew. A hand-edited or damaged entry (``"gbs": "fast"``) once made every
    scenario fail, and stayed; one too high would have stayed too (a kernel beating the ceiling raises it, nothing
    lowers it), every kernel shown at a sliver of it."""
    if not isinstance(found, dict):
        return {}
    values = (found.get(field), found.get("measured_at"))
    if not all((number := _finite(value)) is not None and number > 0 for value in values):
        return {}
    figure, measured_at = float(found[field]), float(found["measured_at"])
    if (
        figure > PHYSICAL_LIMITS.get((field, key.split(":", 1)[0]), math.inf)
        or measured_at > time.time() + CLOCK_SLACK_S
    ):
        return {}
    return {field: figure, "measured_at": measured_at}


def _entry(field: str, value: float, kind: str) -> dict[str, Any]:
    """A cached figure with when and under what load it was measured."""
    return {
        field: value,
        "measured_at": time.time(),
        "load": os.getloadavg()[0],
        "cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "rounds": _ROUNDS.get(kind),
    }


def ceiling_conditions(device: str, device_name: str) -> str | None:
    """When and under what load the cached copy ceiling was measured: ``measured 2026-12-01 15:40 UTC at load
    0.4 on 2 cores, best of 4 rounds``; None when nothing is cached."""
    key = _key(device, device_name)
    entry = _read_cache().get(key)
    usable = _usable_entry(entry, "gbs", key)
    if not usable or not isinstance(entry, dict):
        return None  # a damaged entry is measured anew, not quoted
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(usable["measured_at"]))
    text = f"measured {when}"
    load, cores, rounds = entry.get("load"), entry.get("cores"), entry.get("rounds")
    if isinstance(load, (int, float)) and math.isfinite(load) and isinstance(cores, int) and cores > 0:
        text += f" at load {float(load):.1f} on {cores} cores"
    if isinstance(rounds, int) and rounds > 0:
        text += f", best of {rounds} rounds"
    return text


def ceiling_measured_at(device: str, device_name: str) -> str | None:
    """When the cached copy ceiling was measured, ISO 8601 in UTC; None when nothing usable is cached."""
    key = _key(device, device_name)
    usable = _usable_entry(_read_cache().get(key), "gbs", key)
    if not usable:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(usable["measured_at"]))


def _write_cache(cached: dict[str, Any]) -> None:
    try:
        write_atomic(cache_file(), json.dumps(cached, indent=2))  # read unlocked by the ceilings line
    except OSError:
        pass  # an unwritable cache costs a re-measure next time, nothing more


def checked_ceiling(device: str, device_name: str, ceiling: float | None, kernels: tuple[Kernel, ...]) -> float | None:
    """The ceiling, measured once more (once per engine) if these kernels beat it; the higher figure is kept. A
    ceiling set in a busy moment is beaten by the next quiet run.

    A kernel whose data fits in the device's last-level cache beats a copy from memory on any machine, every run,
    and says nothing of memory: it sets off a measurement only when none was made for one within
    ``RECHECK_HOLD_S`` (``checked_at`` in the cache). Each engine (one per run) measured again for every new
    fastest rate of such a kernel, to the same figure: about 1.4 s and 3 CPU-s each, eight times in one pass of
    the course's tests. A kernel whose data does not fit beats the ceiling only if memory is faster than measured."""
    if not ceiling:
        return ceiling
    key = _key(device, device_name)
    beating = [kernel for kernel in kernels if (gbs(kernel.bytes_total, kernel.time_us) or 0.0) > ceiling]
    if not beating or key in _BEATEN:
        return ceiling
    fits = last_level_cache_bytes(device) or MIN_COPY_BYTES
    from_memory = any((kernel.bytes_total or 0) > fits for kernel in beating)

    def held() -> float | None:
        if from_memory:
            return None
        cached = _read_cache()
        if not _checked_within_hold(cached.get(key)):
            return None
        return max(ceiling, _fresh_figure(key, "gbs", cached) or 0.0)

    def measured_again() -> float:
        _BEATEN.add(key)
        return _measured_again(key, device, ceiling)

    return _unless_settled(held, measured_again)


def _measured_again(key: str, device: str, ceiling: float) -> float:
    """The copy ceiling measured now, the highest of it, the run's and the cache's kept, and when it was checked."""
    remeasured = measure_ceiling_gbs(device)
    cached = _read_cache()
    best = max(ceiling, _fresh_figure(key, "gbs", cached) or 0.0)
    higher = remeasured is not None and remeasured > best
    entry = _entry("gbs", remeasured, "copy") if higher and remeasured is not None else cached.get(key)
    if isinstance(entry, dict):
        entry["checked_at"] = time.time()
        cached[key] = entry
        _write_cache(cached)
    return remeasured if higher and remeasured is not None else best


def _checked_within_hold(entry: object) -> bool:
    """Whether a cached ceiling was measured, or measured again for a kernel, within ``RECHECK_HOLD_S``."""
    if not isinstance(entry, dict):
        return False
    finite = [t for t in (_finite(entry.get("checked_at")), _finite(entry.get("measured_at"))) if t is not None]
    return bool(finite) and time.time() - max(finite) <= RECHECK_HOLD_S


def _finite(value: object) -> float | None:
    """A number read from the cache file, if it is one (a bool is not) and finite."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def _key(device: str, device_name: str) -> str:
    return f"{device}:{device_name}:{torch.get_num_threads()} threads"


def _read_cache() -> dict[str, Any]:
    try:
        cached = json.loads(cache_file().read_text())
    except (OSError, ValueError):
        return {}
    return cached if isinstance(cached, dict) else {}


def with_bandwidth(kernels: tuple[Kernel, ...], ceiling: float | None) -> tuple[Kernel, ...]:
    rows = []
    for kernel in kernels:
        achieved = gbs(kernel.bytes_total, kernel.time_us)
        share = 100 * achieved / ceiling if achieved is not None and ceiling else None
        rows.append(replace(kernel, gbs=achieved, ceiling_pct=share))
    return tuple(rows)
