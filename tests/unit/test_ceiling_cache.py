"""The cached copy ceiling is measured again when old, when a kernel beats it, or when asked; a busy moment cannot
set it, and it says when and under what load it was measured."""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from kernel_tui.engine.counting import bandwidth
from kernel_tui.model.report.kernel import Kernel

if TYPE_CHECKING:
    import torch


CACHE_BYTES = 1_000_000


@pytest.fixture
def measured(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[float]:
    monkeypatch.setenv("KERNEL_TUI_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(bandwidth, "_REMEASURED", set())
    monkeypatch.setattr(bandwidth, "_BEATEN", set())
    monkeypatch.setattr(bandwidth, "_GAVE_UP_WAITING", set())
    # The tests' kernels: 600 kB of data sits in this cache, 6 MB does not.
    monkeypatch.setattr(bandwidth, "last_level_cache_bytes", lambda device: CACHE_BYTES)
    rates = iter([5.0, 20.0, 12.0, 30.0])
    calls: list[float] = []

    def measure(device: str) -> float:
        calls.append(next(rates))
        return calls[-1]

    monkeypatch.setattr(bandwidth, "measure_ceiling_gbs", measure)
    return calls


def test_a_fresh_figure_is_reused_and_an_old_one_measured_again(measured: list[float], tmp_path: Path) -> None:
    assert bandwidth.ceiling_gbs("cpu", "EPYC") == 5.0
    assert bandwidth.ceiling_gbs("cpu", "EPYC") == 5.0 and measured == [5.0]
    cache = tmp_path / "bandwidth.json"
    entries = json.loads(cache.read_text())
    (key,) = entries
    entries[key]["measured_at"] = time.time() - bandwidth.MAX_AGE_S - 1
    cache.write_text(json.dumps(entries))
    assert bandwidth.ceiling_gbs("cpu", "EPYC") == 20.0 and measured == [5.0, 20.0]


def test_a_kernel_far_above_the_ceiling_makes_it_measured_again_and_the_higher_kept(measured: list[float]) -> None:
    slow_ceiling = bandwidth.ceiling_gbs("cpu", "EPYC")
    # 60 GB/s on 6 MB, which does not fit in the cache
    in_place_add = Kernel("aten::add_", "aten::add_", 1, 100.0, bytes_read=4_000_000, bytes_written=2_000_000)
    assert bandwidth.checked_ceiling("cpu", "EPYC", slow_ceiling, (in_place_add,)) == 20.0
    assert bandwidth.ceiling_gbs("cpu", "EPYC") == 20.0  # the cache keeps the higher figure
    plausible = Kernel("aten::add", "aten::add", 1, 1000.0, bytes_read=4_000_000, bytes_written=2_000_000)
    assert bandwidth.checked_ceiling("cpu", "EPYC", 20.0, (plausible,)) == 20.0 and len(measured) == 2


def test_asked_for_it_is_measured_again_once_per_engine(measured: list[float]) -> None:
    bandwidth.ceiling_gbs("cpu", "EPYC")
    assert bandwidth.ceiling_gbs("cpu", "EPYC", remeasure=True) == 20.0
    assert bandwidth.ceiling_gbs("cpu", "EPYC", remeasure=True) == 20.0 and len(measured) == 2


@pytest.fixture
def matmul_measured(measured: list[float], monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    rates = iter([100.0, 400.0, 250.0])
    calls: list[tuple[str, str]] = []

    def measure(device: str, dtype: torch.dtype) -> float:
        calls.append((device, str(dtype)))
        return next(rates)

    monkeypatch.setattr(bandwidth, "measure_matmul_gflops", measure)
    return calls


def test_the_matmul_ceiling_is_cached_beside_the_copy_ceiling_per_dtype(
    matmul_measured: list[tuple[str, str]], tmp_path: Path
) -> None:
    import torch

    assert bandwidth.ceiling_gbs("cpu", "EPYC") == 5.0
    assert bandwidth.matmul_ceiling_gflops("cpu", "EPYC", torch.float32) == 100.0
    assert bandwidth.matmul_ceiling_gflops("cpu", "EPYC", torch.float32) == 100.0
    assert matmul_measured == [("cpu", "torch.float32")]
    assert bandwidth.matmul_ceiling_gflops("cpu", "EPYC", torch.bfloat16) == 400.0  # a dtype of its own
    entries = json.loads((tmp_path / "bandwidth.json").read_text())
    figures = sorted(
        (name, value) for entry in entries.values() for name, value in entry.items() if name in ("gbs", "gflops")
    )
    assert figures == [("gbs", 5.0), ("gflops", 100.0), ("gflops", 400.0)]  # one cache file, both ceilings


def test_the_matmul_ceiling_is_measured_again_when_asked_or_beaten_by_far(
    matmul_measured: list[tuple[str, str]],
) -> None:
    import torch

    assert bandwidth.matmul_ceiling_gflops("cpu", "EPYC", torch.float32) == 100.0
    assert bandwidth.checked_matmul_ceiling("cpu", "EPYC", torch.float32, 100.0, 120.0) == 100.0
    assert len(matmul_measured) == 1  # within reach of the ceiling: nothing to re-measure
    assert bandwidth.checked_matmul_ceiling("cpu", "EPYC", torch.float32, 100.0, 300.0) == 400.0
    assert bandwidth.matmul_ceiling_gflops("cpu", "EPYC", torch.float32) == 400.0  # the higher figure is kept
    assert bandwidth.matmul_ceiling_gflops("cpu", "EPYC", torch.float32, remeasure=True) == 250.0  # the new figure
    assert (
        bandwidth.matmul_ceiling_gflops("cpu", "EPYC", torch.float32, remeasure=True) == 250.0
        and len(matmul_measured) == 3
    )


@pytest.mark.parametrize(
    "entry",
    [
        "fast",
        {"gbs": "fast", "measured_at": 1e18},
        {"gbs": 5.0, "measured_at": "yesterday"},
        {"gbs": [1], "measured_at": None},
        {"gbs": True, "measured_at": 1e18},
        {"gbs": -3.0, "measured_at": 1e18},
    ],
)
def test_an_entry_of_the_wrong_type_is_treated_as_absent_and_written_anew(
    measured: list[float], tmp_path: Path, entry: object
) -> None:
    cache = tmp_path / "bandwidth.json"
    bandwidth.ceiling_gbs("cpu", "EPYC")
    (key,) = json.loads(cache.read_text())
    cache.write_text(json.dumps({key: entry}))
    assert bandwidth.ceiling_gbs("cpu", "EPYC") == 20.0 and measured == [5.0, 20.0]
    assert json.loads(cache.read_text())[key]["gbs"] == 20.0


def test_a_kernel_that_beats_the_ceiling_at_all_has_it_measured_again_once_per_engine(measured: list[float]) -> None:
    # Measured in a busy moment (5 GB/s), a quiet run's kernel beats it by a little: the ceiling is measured again.
    slow_ceiling = bandwidth.ceiling_gbs("cpu", "EPYC")
    a_little_faster = Kernel("aten::add", "aten::add", 1, 1000.0, bytes_read=4_000_000, bytes_written=2_000_000)
    assert bandwidth.checked_ceiling("cpu", "EPYC", slow_ceiling, (a_little_faster,)) == 20.0
    assert bandwidth.checked_ceiling("cpu", "EPYC", 20.0, (a_little_faster,)) == 20.0 and len(measured) == 2
    assert bandwidth.checked_ceiling("cpu", "EPYC", 5.0, (a_little_faster,)) == 5.0 and len(measured) == 2  # once


def test_a_busy_moment_slows_some_rounds_and_the_best_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    from kernel_tui.engine.counting.timing import Timing

    # Rounds of a copy on a busy machine: the load comes and goes; the ceiling is the fastest, once confirmed.
    medians = iter([900.0, 310.0, 2000.0, 300.0, 305.0, 301.0])
    taken: list[float] = []

    def one_round(call: Callable[[], object], device: str, budget_s: float) -> Timing:
        taken.append(next(medians))
        return Timing(taken[-1], 0.0, 10, budget_s)

    monkeypatch.setattr(bandwidth, "time_call", one_round)
    assert bandwidth.best_of_rounds(lambda: None, "cpu", "copy") == 300.0
    assert taken == [900.0, 310.0, 2000.0, 300.0, 305.0]  # stopped once the two fastest agreed within 3%


def test_the_ceiling_says_when_and_under_what_load_it_was_measured(measured: list[float], tmp_path: Path) -> None:
    from kernel_tui.model.report.report import Ceilings
    from kernel_tui.text.parts.roofline_text import ceilings_line

    assert bandwidth.ceiling_conditions("cpu", "EPYC") is None
    bandwidth.ceiling_gbs("cpu", "EPYC")
    conditions = bandwidth.ceiling_conditions("cpu", "EPYC")
    assert conditions is not None and conditions.startswith(f"measured {time.strftime('%Y-%m-%d', time.gmtime())}")
    assert " UTC at load " in conditions and " cores" in conditions
    line = ceilings_line(Ceilings(5.0, 100.0, "float32", conditions))
    assert line.endswith(f"ridge 20.0 FLOP/B ({conditions})")


def _age(tmp_path: Path, seconds: float) -> None:
    """The cached copy ceiling's measurement and check made ``seconds`` earlier."""
    cache = tmp_path / "bandwidth.json"
    entries = json.loads(cache.read_text())
    (key,) = entries
    for field in ("measured_at", "checked_at"):
        if field in entries[key]:
            entries[key][field] -= seconds
    cache.write_text(json.dumps(entries))


def test_a_kernel_in_cache_sets_off_nothing_for_an_hour_after_a_measurement_and_one_from_memory_does(
    measured: list[float], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A kernel on data in the CPU's cache beats a copy of main memory by far, every run, faster or slower as the
    # data lies: within the hour of a measurement it sets off no other, in the next engines (each with nothing
    # remembered) either, however fast it runs.
    ceiling = bandwidth.ceiling_gbs("cpu", "EPYC")
    in_cache = Kernel("aten::add", "aten::add", 1, 10.0, bytes_read=400_000, bytes_written=200_000)  # 60 GB/s
    assert bandwidth.checked_ceiling("cpu", "EPYC", ceiling, (in_cache,)) == 5.0 and len(measured) == 1
    _age(tmp_path, bandwidth.RECHECK_HOLD_S + 1)  # an hour on, still within the week
    assert bandwidth.checked_ceiling("cpu", "EPYC", ceiling, (in_cache,)) == 20.0 and len(measured) == 2
    faster = Kernel("aten::add", "aten::add", 1, 2.0, bytes_read=400_000, bytes_written=200_000)  # 300 GB/s
    for kernel in (in_cache, faster, faster):
        monkeypatch.setattr(bandwidth, "_BEATEN", set())  # a new engine
        assert bandwidth.checked_ceiling("cpu", "EPYC", 20.0, (kernel,)) == 20.0
    assert len(measured) == 2
    # 6 MB does not fit in the cache: beating the ceiling, it says memory may be faster than measured.
    from_memory = Kernel("aten::add", "aten::add", 1, 200.0, bytes_read=4_000_000, bytes_written=2_000_000)  # 30 GB/s
    monkeypatch.setattr(bandwidth, "_BEATEN", set())
    assert bandwidth.checked_ceiling("cpu", "EPYC", 20.0, (from_memory, faster)) == 20.0 and len(measured) == 3
    assert bandwidth.checked_ceiling("cpu", "EPYC", 20.0, (from_memory,)) == 20.0 and len(measured) == 3  # 12 < 20
    assert json.loads((tmp_path / "bandwidth.json").read_text()).popitem()[1]["gbs"] == 20.0
    # A run whose ceiling was read before another engine raised it gets the higher figure.
    monkeypatch.setattr(bandwidth, "_BEATEN", set())
    assert bandwidth.checked_ceiling("cpu", "EPYC", 5.0, (in_cache,)) == 20.0 and len(measured) == 3
    _age(tmp_path, bandwidth.RECHECK_HOLD_S + 1)
    monkeypatch.setattr(bandwidth, "_BEATEN", set())
    assert bandwidth.checked_ceiling("cpu", "EPYC", 20.0, (in_cache,)) == 30.0 and len(measured) == 4  # an hour on


def test_where_the_cache_cannot_be_read_data_below_the_smallest_copy_counts_as_in_cache(
    measured: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bandwidth, "last_level_cache_bytes", lambda device: None)
    ceiling = bandwidth.ceiling_gbs("cpu", "EPYC")
    below = Kernel("aten::add", "aten::add", 1, 100.0, bytes_read=4_000_000, bytes_written=2_000_000)  # 60 GB/s
    assert bandwidth.checked_ceiling("cpu", "EPYC", ceiling, (below,)) == 5.0 and len(measured) == 1
    size = bandwidth.MIN_COPY_BYTES
    above = Kernel("aten::add", "aten::add", 1, 20.0, bytes_read=size, bytes_written=size)  # 1.7 TB/s
    assert bandwidth.checked_ceiling("cpu", "EPYC", ceiling, (above,)) == 20.0 and len(measured) == 2


@pytest.mark.parametrize(
    ("sizes", "expected"),
    [
        ({"index0": "48K", "index1": "64K", "index2": "2048K", "index3": "491520K"}, 491520 * 2**10),
        ({"index0": "32K", "index2": "1M", "index3": "36M"}, 36 * 2**20),
        ({"index0": "4096"}, 4096),
        ({"index0": "big", "index1": ""}, None),
        ({}, None),
    ],
)
def test_the_cpu_cache_size_is_read_from_sysfs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sizes: dict[str, str], expected: int | None
) -> None:
    from kernel_tui.engine.counting import device

    for index, size in sizes.items():
        (tmp_path / index).mkdir()
        (tmp_path / index / "size").write_text(f"{size}\n")
    (tmp_path / "index9").mkdir()  # a level with no size file is skipped
    monkeypatch.setattr(device, "CPU_CACHES", tmp_path)
    assert device.last_level_cache_bytes("cpu") == expected


def test_engines_that_start_together_measure_the_ceiling_once_and_share_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Three engines find nothing cached at the same moment: one measures, the others wait and read its figure
    # (each measuring beside the others would see a share of the device's rate, and cost three times over).
    import multiprocessing

    monkeypatch.setenv("KERNEL_TUI_CACHE_DIR", str(tmp_path))
    log = tmp_path / "measured"

    def slow_measure(device: str) -> float:
        with log.open("a") as handle:
            handle.write(f"{os.getpid()}\n")
        time.sleep(0.5)
        return 25.0

    monkeypatch.setattr(bandwidth, "measure_ceiling_gbs", slow_measure)
    context = multiprocessing.get_context("fork")
    start = context.Barrier(3)
    results = context.Queue()

    def engine() -> None:
        start.wait()
        results.put(bandwidth.ceiling_gbs("cpu", "EPYC"))

    engines = [context.Process(target=engine) for _ in range(3)]
    for process in engines:
        process.start()
    figures = [results.get(timeout=60) for _ in engines]
    for process in engines:
        process.join(timeout=60)
    assert figures == [25.0, 25.0, 25.0]
    assert len(log.read_text().splitlines()) == 1


def test_a_lock_held_past_the_wait_costs_an_engine_one_wait_and_a_fresh_figure_none(
    matmul_measured: list[tuple[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A run stopped with ctrl+z while it measured keeps the lock: the next run's engine waited for it at each
    # ceiling, 97 s for three. A fresh figure is now read without the lock, and an engine waits once, then measures.
    import torch

    from kernel_tui.model.storage import file_lock

    monkeypatch.setattr(bandwidth, "MEASURING_WAIT_S", 0.3)
    waits: list[tuple[float, bool]] = []

    @contextlib.contextmanager
    def spied(path: Path, wait_s: float) -> Iterator[bool]:
        with file_lock.held_alone(path, wait_s) as held:
            waits.append((wait_s, held))
            yield held

    monkeypatch.setattr(bandwidth, "held_alone", spied)
    assert bandwidth.ceiling_gbs("cpu", "EPYC") == 5.0 and waits == [(0.3, True)]
    from_memory = Kernel("aten::add", "aten::add", 1, 100.0, bytes_read=4_000_000, bytes_written=2_000_000)  # 60 GB/s
    with file_lock.held_alone(tmp_path / "bandwidth.lock", wait_s=0.0) as stopped_run_holds_it:
        assert stopped_run_holds_it
        assert bandwidth.ceiling_gbs("cpu", "EPYC") == 5.0  # fresh: read, not waited for
        assert bandwidth.matmul_ceiling_gflops("cpu", "EPYC", torch.float32) == 100.0
        assert bandwidth.checked_ceiling("cpu", "EPYC", 5.0, (from_memory,)) == 20.0
    assert waits == [(0.3, True), (0.3, False), (0.0, False)]
    monkeypatch.setattr(bandwidth, "_GAVE_UP_WAITING", set())  # the next engine, the lock free again
    assert bandwidth.ceiling_gbs("cpu", "EPYC", remeasure=True) == 12.0
    assert waits[-1] == (0.3, True)


@pytest.mark.parametrize(("properties", "expected"), [({"L2_cache_size": 50 * 2**20}, 50 * 2**20), ({}, None)])
def test_a_gpus_cache_size_is_its_l2_as_torch_reports_it(
    monkeypatch: pytest.MonkeyPatch, properties: dict[str, int], expected: int | None
) -> None:
    import types

    import torch

    from kernel_tui.engine.counting import device

    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda index: types.SimpleNamespace(**properties))
    assert device.last_level_cache_bytes("cuda") == expected


@pytest.mark.parametrize(
    ("field", "figure", "measured_at_offset"),
    [
        ("gbs", 50_000.0, 0.0),  # a CPU copy at 50 TB/s: fifty times the fastest CPU memory made
        ("gbs", 5.0, 1e9),  # a date decades ahead would keep any figure fresh for ever
    ],
)
def test_a_cached_ceiling_beyond_what_the_device_can_reach_is_refused_and_measured_again(
    measured: list[float], tmp_path: Path, field: str, figure: float, measured_at_offset: float
) -> None:
    cache = tmp_path / "bandwidth.json"
    bandwidth.ceiling_gbs("cpu", "EPYC")
    (key,) = json.loads(cache.read_text())
    cache.write_text(json.dumps({key: {field: figure, "measured_at": time.time() + measured_at_offset}}))
    assert bandwidth.ceiling_gbs("cpu", "EPYC") == 20.0 and measured == [5.0, 20.0]
    assert json.loads(cache.read_text())[key]["gbs"] == 20.0
    assert bandwidth.ceiling_conditions("cpu", "EPYC") is not None


def test_a_cached_matmul_ceiling_beyond_what_the_device_can_reach_is_refused_and_measured_again(
    matmul_measured: list[tuple[str, str]], tmp_path: Path
) -> None:
    import torch

    assert bandwidth.matmul_ceiling_gflops("cpu", "EPYC", torch.float32) == 100.0
    cache = tmp_path / "bandwidth.json"
    entries = json.loads(cache.read_text())
    (key,) = [key for key in entries if "matmul" in key]
    entries[key]["gflops"] = 1e9  # a PFLOP/s on a CPU in float32
    cache.write_text(json.dumps(entries))
    assert bandwidth.matmul_ceiling_gflops("cpu", "EPYC", torch.float32) == 400.0
    assert len(matmul_measured) == 2
