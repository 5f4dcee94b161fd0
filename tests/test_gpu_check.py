"""``make gpu-check``: its table, and that it runs where the GPU machines stand (no Textual, no plotext)."""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import WriteScenario

from kernel_tui.commands.gpu_check import OUTPUT_FILES, Row, table
from kernel_tui.commands.gpu_findings import audit_trace, compare_kernels, compiled_cell, eager_cell
from kernel_tui.model.kernel import Kernel
from kernel_tui.model.mode_result import ModeResult
from kernel_tui.model.report import ScenarioError, ScenarioReport

REPO = Path(__file__).resolve().parent.parent
WARM = ("--inductor-cache", os.environ["TORCHINDUCTOR_CACHE_DIR"]) if os.environ.get("TORCHINDUCTOR_CACHE_DIR") else ()
"""The suite's own Inductor cache where it has one: a cold compile here costs minutes, and no claim is on time."""
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


def test_same_kernels_and_how_they_differ() -> None:
    real = report("triton_red_fused_mul_sum_0", "triton_per_fused_mul_sum_1")
    assert compare_kernels(real, report("triton_red_fused_mul_sum_0", "triton_per_fused_mul_sum_1")).startswith("same")
    different = compare_kernels(real, report("triton_red_fused_mul_sum_0", "aten::mm"))
    assert "GPU only: triton_per_fused_mul_sum_1" in different and "library launches: preview 1, GPU 0" in different
    assert compare_kernels(real, None) == "no preview recorded"


def test_the_table_is_markdown_with_a_row_per_scenario() -> None:
    text = table([Row("a.py", "5/5", "same", "x | y", "same: preview 2, GPU 2", "all 10 launches recorded")])
    assert text.splitlines()[2] == "| a.py | 5/5 | same | same: preview 2, GPU 2 | all 10 launches recorded | x \\| y |"


@pytest.mark.engine
def test_runs_without_textual_or_plotext(tmp_path: Path) -> None:
    """The H200 machines have torch and rich only: the check, the CLI and the engine must not need the UI."""
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(BLOCK_UI_LIBRARIES)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), str(REPO)])}
    out = tmp_path / "out"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "kernel_tui.commands.gpu_check",
            str(REPO / "tests" / "data" / "add_relu.py"),
            "--device",
            "cpu",
            "--out",
            str(out),
            *WARM,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "| add_relu.py | 5/5 |" in result.stdout
    assert sorted(path.name for path in out.iterdir()) == sorted(OUTPUT_FILES)
    assert (out / "traces.tar.gz").stat().st_size > 0
    summary = json.loads((out / "gpu-check.json").read_text())
    assert summary["scenarios"]["add_relu.py"]["measured"]
    assert summary["cold_inductor_cache"] is not bool(WARM)
    assert re.search(
        r"course: 1/1 scenarios measured in \d+ s (from an empty|with a given) Inductor cache: within the",
        result.stdout,
    )
    assert "eager: no CUDA launch in the profile" in result.stdout


@pytest.mark.engine
def test_a_failed_claim_still_leaves_every_file_and_no_more(tmp_path: Path, write_scenario: WriteScenario) -> None:
    """A run on a borrowed GPU brings back what is under its output folder: a handful of files, written even when
    a claim fails (the exit status says so), never a folder of traces."""
    source = (REPO / "tests" / "data" / "add_relu.py").read_text()
    wrong = write_scenario(re.sub(r'"compiled": 1', '"compiled": 7', source, count=1), "wrong_claim.py")
    assert wrong.read_text() != source
    out = tmp_path / "out"
    command = [
        sys.executable,
        "-m",
        "kernel_tui.commands.gpu_check",
        str(wrong),
        "--device",
        "cpu",
        "--out",
        str(out),
        *WARM,
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=REPO)
    assert result.returncode == 1, result.stderr[-3000:]
    assert "failed: compiled" in result.stdout
    files = sorted(path.name for path in out.iterdir())
    assert files == sorted(OUTPUT_FILES) and len(files) <= 8
    assert all((out / name).stat().st_size > 0 for name in files)


def test_version_drift_is_told_from_a_preview_error() -> None:
    real = report("triton_per_fused__softmax_exp_prepare_softmax_online_sub_0")
    live = report("triton_per_fused__softmax_exp_prepare_softmax_online_sub_0", device="cuda-preview")
    recorded = report("triton_per_fused__softmax_prepare_softmax_online_0", device="cuda-preview")
    drift = compiled_cell(real, live, recorded)
    assert drift.startswith("same") and "version drift: the recording (torch 2.11)" in drift
    failed = ScenarioReport(
        "/x/09.py", "t", "cuda-preview", "H200", "2.11", 1024, error=ScenarioError("compile", "boom", None, None, "")
    )
    cell = compiled_cell(real, failed, recorded)
    assert cell.startswith("preview error on this torch: boom; against the recording") and "different" in cell


def test_the_eager_cell_names_what_the_gpu_ran() -> None:
    preview = report("aten::sum", device="cuda-preview")
    gpu = report("Memset (Device)", "reduce_kernel")
    assert eager_cell(gpu, preview) == "different: preview 1, GPU 2 (Memset (Device), reduce_kernel)"


def _as_engine_trace(source: Path, target: Path, step: str, drop: int = 0) -> Path:
    """A real GPU trace whose profiled steps carry the engine's range name; ``drop`` device records removed."""
    data = json.loads(gzip.decompress(source.read_bytes()))
    events = data["traceEvents"]
    for event in events:
        if event.get("cat") in ("user_annotation", "cpu_op") and re.search(step, event.get("name", "")):
            event["name"], event["cat"] = "kernel_tui::run", "user_annotation"
    device = [i for i, e in enumerate(events) if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    for index in sorted(device[-drop:] if drop else [], reverse=True):
        del events[index]
    target.write_text(json.dumps(data))
    return target


def test_the_device_records_of_real_traces_are_audited_against_their_launch_calls(tmp_path: Path) -> None:
    """B200: every one of 929 launches in the step has its device record. H100: 22 ``cudaMemsetAsync`` calls
    inside the step have none (the trace holds no memset activity at all): a GPU count there would miss them,
    which is what this column is for."""
    traces = REPO / "tests" / "data" / "cuda_traces"
    b200 = audit_trace(
        _as_engine_trace(traces / "tracelens_b200_vllm_compiled.json.gz", tmp_path / "b.json", "^execute_context_")
    )
    assert (b200.runs, b200.launch_calls, b200.lost) == (1, 929, 0)
    assert b200.text() == "all 929 launches recorded"
    h100 = audit_trace(
        _as_engine_trace(traces / "tracelens_h100_bert_small.json.gz", tmp_path / "h.json", r"^ProfilerStep#\d+$")
    )
    assert (h100.launch_calls, h100.lost) == (83, 22) and h100.text() == "22 of 83 launches without a device record"
    dropped = audit_trace(
        _as_engine_trace(
            traces / "tracelens_b200_vllm_compiled.json.gz", tmp_path / "d.json", "^execute_context_", drop=3
        )
    )
    assert dropped.lost == 3


def test_a_checkout_on_pythonpath_finds_the_course() -> None:
    """The first GPU run: ``make gpu-check`` runs from a checkout that is installed nowhere, and found no course
    (``kernel_tui.scenarios`` exists only once installed). ``-S``: no site-packages, so no editable install."""
    repo = REPO
    found = subprocess.run(
        [sys.executable, "-S", "-c", "from kernel_tui.model.course import course_dir; print(course_dir())"],
        cwd="/",
        env={"PYTHONPATH": str(repo)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip() == str(repo / "scenarios")


def test_a_preview_this_torch_refuses_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    """The H200's torch 2.11 made no live preview and the table said only "no preview on this torch": the engine's
    refusal is what the check reports, and the recording is compared against instead."""
    from kernel_tui.commands import gpu_check

    refused = ScenarioReport("/course/02_add_relu.py", "Add", "cuda-preview", "", "2.11.0", 1024)
    why = "the engine exited with code 3: --device cuda-preview cannot fake a GPU on this torch"
    refused = replace(refused, error=ScenarioError("engine", why))
    line = json.dumps(refused.to_dict())
    monkeypatch.setattr(gpu_check, "run_command", lambda *_args: [sys.executable, "-c", f"print({line!r})"])
    assert gpu_check.live_preview([Path("02_add_relu.py")], 90, 60.0) == ({}, why)
