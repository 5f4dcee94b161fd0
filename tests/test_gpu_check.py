"""``make gpu-check``: its table, and that it runs where the GPU machines stand (no Textual, no plotext)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from kernel_tui.gpu_check import Row, compare_kernels, table
from kernel_tui.report import Kernel, ModeResult, ScenarioReport

REPO = Path(__file__).resolve().parent.parent
BLOCK_UI_LIBRARIES = """
import importlib.abc, sys
class _NotOnTheGpuMachine(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in ("textual", "textual_plotext", "plotext", "textual_serve"):
            raise ImportError(name + " is not installed on the GPU machines")
sys.meta_path.insert(0, _NotOnTheGpuMachine())
"""


def report(*names: str, device: str = "cuda") -> ScenarioReport:
    kernels = tuple(Kernel(name, name, 1, 1.0) for name in names)
    compiled = ModeResult(len(kernels), kernels, None, 1.0)
    return ScenarioReport("/x/09.py", "t", device, "H200", "2.11", 1024, eager=compiled, compiled=compiled)


def test_same_kernels_and_how_they_differ():
    real = report("triton_red_fused_mul_sum_0", "triton_per_fused_mul_sum_1")
    assert compare_kernels(real, report("triton_red_fused_mul_sum_0", "triton_per_fused_mul_sum_1")).startswith("same")
    different = compare_kernels(real, report("triton_red_fused_mul_sum_0", "aten::mm"))
    assert "GPU only: triton_per_fused_mul_sum_1" in different and "library launches: preview 1, GPU 0" in different
    assert compare_kernels(real, None) == "no preview recorded"


def test_the_table_is_markdown_with_a_row_per_scenario():
    text = table([Row("a.py", "5/5", "same", "x | y")])
    assert text.splitlines()[2] == "| a.py | 5/5 | same | x \\| y |"


def test_runs_without_textual_or_plotext(tmp_path):
    """The H200 machines have torch and rich only: the check, the CLI and the engine must not need the UI."""
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(BLOCK_UI_LIBRARIES)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), str(REPO)])}
    out = tmp_path / "out"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "kernel_tui.gpu_check",
            str(REPO / "tests" / "data" / "add_relu.py"),
            "--device",
            "cpu",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "| add_relu.py | 5/5 |" in result.stdout
    assert (out / "gpu-check.md").exists() and (out / "traces.tar.gz").stat().st_size > 0
