"""Device columns on real runs: the preview of three architectures in one run agrees with three runs of one
each, and ``kernel-tui view --text`` lays a CPU run and a preview of the course side by side, lesson by lesson.

Two lessons (a fused pointwise pair, a matmul with its epilogue), each previewed for sm_80, sm_90 and sm_100 in
one run and in three, and measured on the CPU without the sweep: about twelve compiles, warm in the shared
Inductor cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from support.cli_support import kernel_tui
from support.locations import REPO

from kernel_tui.model.compare.device_columns import compare_devices
from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.report.report_keys import MODES
from kernel_tui.model.storage.results_file import read_results

pytestmark = pytest.mark.engine

LESSONS = (REPO / "scenarios" / "02_add_relu.py", REPO / "scenarios" / "14_matmul_bias_relu.py")
ARCHES = (80, 90, 100)


@dataclass(frozen=True)
class Runs:
    together: Path
    """``run --device cuda-preview --arch 80,90,100 --json`` of both lessons."""
    alone: dict[int, Path]
    """The same, one architecture per run."""
    cpu: Path
    """Both lessons measured on the CPU, no sweep and untimed: the view's columns are read for kernels."""


def saved(folder: Path, name: str, *args: str) -> Path:
    ran = kernel_tui("run", "--json", *args, *map(str, LESSONS))
    assert ran.returncode == 0, ran.stderr
    path = folder / name
    path.write_text(ran.stdout)
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    folder = tmp_path_factory.mktemp("device-columns")
    preview = ("--device", "cuda-preview", "--arch")
    together = saved(folder, "together.jsonl", *preview, ",".join(map(str, ARCHES)))
    alone = {arch: saved(folder, f"sm_{arch}.jsonl", *preview, str(arch)) for arch in ARCHES}
    return Runs(together, alone, saved(folder, "cpu.jsonl", "--device", "cpu", "--no-sweep", "--no-time"))


def test_each_architecture_is_a_report_of_its_own_that_says_which(runs: Runs) -> None:
    reports = read_results(runs.together)
    assert [(Path(r.scenario).name, r.arch) for r in reports] == [
        (lesson.name, arch) for lesson in LESSONS for arch in ARCHES
    ]
    for report in reports:
        assert report.device == "cuda-preview" and f"(sm_{report.arch})" in report.device_name
        assert report.machine is not None and report.machine.architecture == f"sm_{report.arch}"
        assert report.machine.triton_version  # the preview generates Triton: the version it had matters


def test_the_three_columns_agree_with_three_single_architecture_runs(runs: Runs) -> None:
    together = {(r.scenario, r.arch): r for r in read_results(runs.together)}
    for arch, path in runs.alone.items():
        for single in read_results(path):
            assert single.arch == arch
            joint = together[(single.scenario, arch)]
            for mode in MODES:
                assert kernels_of(joint, mode) == kernels_of(single, mode), (single.scenario, arch, mode)


def kernels_of(report: ScenarioReport, mode: str) -> list[tuple[object, ...]]:
    result = report.mode(mode)
    assert result is not None
    return [(k.name, k.calls, k.bytes_total, k.aten_ops, k.lines, k.launch, k.code) for k in result.kernels]


def test_view_shows_the_same_columns_for_one_run_of_three_and_three_runs_of_one(runs: Runs) -> None:
    one_run = kernel_tui("view", "--text", str(runs.together))
    three_runs = kernel_tui("view", "--text", *(str(runs.alone[arch]) for arch in ARCHES))
    assert one_run.returncode == three_runs.returncode == 0, one_run.stderr + three_runs.stderr
    assert one_run.stdout == three_runs.stdout
    blocks = one_run.stdout.split("\n\n")
    for lesson in LESSONS:
        (block,) = [block for block in blocks if f"({lesson})" in block]
        heads = [line.split(" · ")[1] for line in block.splitlines() if line.startswith(("  A  ", "  B  ", "  C  "))]
        assert [head.rsplit("(", 1)[1] for head in heads] == ["sm_80)", "sm_90)", "sm_100)"]


def test_view_of_a_cpu_run_and_a_preview_shows_both_columns_per_lesson(runs: Runs) -> None:
    shown = kernel_tui("view", "--text", str(runs.cpu), str(runs.alone[90]))
    assert shown.returncode == 0, shown.stderr
    blocks = shown.stdout.split("\n\n")
    cpu, preview = read_results(runs.cpu), read_results(runs.alone[90])
    for lesson, measured, previewed in zip(LESSONS, cpu, preview):
        (block,) = [block for block in blocks if f"({lesson})" in block]
        assert f"  A  cpu · {measured.device_name}" in block
        assert "  B  cuda-preview · NVIDIA H100 80GB HBM3 (sm_90)" in block
        compiled = compare_devices([measured, previewed]).modes[MODES.index("compiled")]
        # Every compiled kernel of either column sits in a row beside the other column's kernels for that work.
        for row in compiled.rows:
            assert all(cell is not None and cell.kernels for cell in row.cells), row
    fused = compare_devices([cpu[0], preview[0]]).modes[MODES.index("compiled")].rows
    assert [[k.name for k in cell.kernels] for row in fused for cell in row.cells if cell is not None] == [
        [kernel.name for kernel in cpu[0].compiled.kernels],  # type: ignore[union-attr]
        ["triton_poi_fused_add_relu_0"],
    ]


def test_an_architecture_that_picks_another_config_is_marked(tmp_path: Path) -> None:
    """Lesson 9's sum of squares splits its reduction: Inductor sizes the first kernel's blocks by the GPU, so an
    A100 and a B200 launch it with other configs, and the row says which."""
    lesson = REPO / "scenarios" / "09_sum_of_squares.py"
    ran = kernel_tui("run", "--json", "--device", "cuda-preview", "--arch", "80,100", str(lesson))
    assert ran.returncode == 0, ran.stderr
    (tmp_path / "two.jsonl").write_text(ran.stdout)
    a100, b200 = read_results(tmp_path / "two.jsonl")
    (row,) = compare_devices([a100, b200]).modes[MODES.index("compiled")].rows
    configs = {
        report.arch: next(k.launch for k in report.compiled.kernels if k.name.startswith("triton_red"))  # type: ignore[union-attr]
        for report in (a100, b200)
    }
    assert configs[80] != configs[100]
    (change,) = row.changes
    assert change.startswith("config triton_red_fused_mul_sum: ")
    shown = kernel_tui("view", "--text", str(tmp_path / "two.jsonl"))
    assert "1 row where the columns chose differently" in shown.stdout
