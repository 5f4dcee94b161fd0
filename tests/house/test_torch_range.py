"""Which torch kernel-tui runs on, and what it says, once and before measuring, where it cannot.

The refusals are tested with a stand-in ``torch`` package on the engine's path that has only a version (and,
for the preview, no CUDA): the engine must refuse before it touches anything else of torch's, so a stand-in
that has nothing else proves that too.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.locations import REPO

from kernel_tui.engine.serve.torch_floor import OLDEST_TORCH, below_floor, release

LESSONS = [REPO / "scenarios" / name for name in ("02_add_relu.py", "09_sum_of_squares.py", "14_matmul_bias_relu.py")]


def test_pyproject_asks_for_the_floor_the_engine_checks() -> None:
    project = (REPO / "pyproject.toml").read_text().split("[project.optional-dependencies]")[0]
    assert re.findall(r'"(torch\b[^"]*)"', project) == [f"torch>={'.'.join(map(str, OLDEST_TORCH))}"]


def test_the_floor_compares_releases_not_builds() -> None:
    assert release("2.13.0+cpu") == (2, 13)
    assert release("2.10.0a0+git1234") == (2, 10)
    assert below_floor("2.15.0") is None
    assert below_floor(f"{OLDEST_TORCH[0]}.{OLDEST_TORCH[1]}.0+cu128") is None
    refusal = below_floor("2.9.1+cu128")
    assert refusal is not None and "found torch 2.9.1+cu128" in refusal and "\n" not in refusal


def _stand_in_torch(folder: Path, version: str, cuda: str | None) -> dict[str, str]:
    (folder / "torch").mkdir(parents=True)
    (folder / "torch" / "__init__.py").write_text(
        f"import types\n__version__ = {version!r}\nversion = types.SimpleNamespace(cuda={cuda!r})\n"
    )
    return {**os.environ, "PYTHONPATH": str(folder)}


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kernel_tui", "run", *args, *map(str, LESSONS)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )


@pytest.mark.engine
@pytest.mark.parametrize("device", ["cpu", "cuda-preview"])
def test_below_the_floor_the_run_says_once_which_torch_it_found_and_which_it_needs(tmp_path: Path, device: str) -> None:
    finished = _run(_stand_in_torch(tmp_path, "2.9.1+cu128", "12.8"), "--device", device)
    assert finished.returncode == 2
    assert finished.stdout == ""
    oldest = ".".join(map(str, OLDEST_TORCH))
    assert finished.stderr.splitlines() == [
        f"kernel-tui run: kernel-tui needs torch {oldest} or newer and found torch 2.9.1+cu128 ({sys.executable}): "
        f"upgrade it there (pip install 'torch>={oldest}') or run kernel-tui from an environment that has one"
    ]


@pytest.mark.engine
def test_the_preview_on_a_cpu_only_torch_refuses_once_for_the_whole_run(tmp_path: Path) -> None:
    finished = _run(_stand_in_torch(tmp_path, "2.13.0+cpu", None), "--device", "cuda-preview")
    assert finished.returncode == 2
    assert finished.stdout == "", "no report, no ✗ claims"
    (line,) = finished.stderr.splitlines()
    assert line.startswith("kernel-tui run: --device cuda-preview needs the CUDA build of torch")
    assert "this is torch 2.13.0+cpu, a CPU-only build" in line
