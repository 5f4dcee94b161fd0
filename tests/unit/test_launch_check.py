"""Launch fields read as measured data: a results file whose launch no kernel could have is refused, naming the
field, in one line (``kernel-tui view``), and a consistent one is read as it was written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.hostile_results import set_at, template

from kernel_tui.model.report.launch import gpu_launch
from kernel_tui.model.storage.results_file import ResultsFileError, read_results

LAUNCH = "compiled.kernels.0.launch"
GOOD = gpu_launch((64, 1, 1), (128, 1, 1), warps=4, elements=8192, registers_per_thread=32, occupancy_pct=50.0)


def with_launch(**changed: Any) -> dict[str, Any]:
    return set_at(template(), LAUNCH, {**GOOD.to_dict(), **changed})


def written(tmp_path: Path, report: dict[str, Any]) -> Path:
    path = tmp_path / "results.jsonl"
    path.write_text(json.dumps(report) + "\n")
    return path


def test_a_consistent_launch_is_read_as_written(tmp_path: Path) -> None:
    (report,) = read_results(written(tmp_path, with_launch()))
    assert report.compiled is not None
    launch = report.compiled.kernels[0].launch
    assert launch is not None and launch.threads == 64 * 128 and launch.warps == 4 and launch.grid == (64, 1, 1)


@pytest.mark.parametrize(
    ("changed", "field", "words"),
    [
        ({"grid": [-64, 1, 1]}, "grid", "each dimension is at least 1"),
        ({"block": [0, 1, 1], "threads": 0}, "block", "each dimension is at least 1"),
        ({"warps": -4}, "warps", "at least one warp"),
        ({"threads": 1000}, "threads", "not grid × block (64 × 128)"),
        ({"warps": 8}, "warps", "not the block's 128 threads in warps of 32"),
        ({"occupancy_pct": 250.0}, "occupancy_pct", "between 0 and 100"),
        ({"registers_per_thread": -1}, "registers_per_thread", "a negative count"),
        ({"shared_memory": -512}, "shared_memory", "a negative count"),
        ({"elements": -8192}, "elements", "a negative count"),
    ],
)
def test_a_launch_no_kernel_could_have_is_refused_naming_the_field(
    tmp_path: Path, changed: dict[str, Any], field: str, words: str
) -> None:
    path = written(tmp_path, with_launch(**changed))
    with pytest.raises(ResultsFileError) as refused:
        read_results(path)
    message = str(refused.value)
    assert "\n" not in message and str(path.name) in message and "line 1" in message
    assert f"{LAUNCH}.{field}" in message and words in message


@pytest.mark.parametrize("field", ["compiled.kernels.0.time_us", "eager.time_us", "compiled.compile_s"])
def test_a_negative_time_is_refused_naming_the_field(tmp_path: Path, field: str) -> None:
    """A results file's negative kernel time was shown as measured."""
    path = written(tmp_path, set_at(template(), field, -3.5))
    with pytest.raises(ResultsFileError) as refused:
        read_results(path)
    message = str(refused.value)
    assert "\n" not in message and "line 1" in message and field in message and "a negative time" in message
