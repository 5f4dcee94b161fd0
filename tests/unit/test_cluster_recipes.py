"""The Slurm job-array recipe in ``docs/cluster.md``, run as written without Slurm: the array task's number picks the
lesson, its report lands in a file of its own that ``kernel-tui view`` reads, and a number outside the course stops
with one line."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.locations import REPO

from kernel_tui.model.scenario.course import course_dir
from kernel_tui.model.scenario.scenario_file import find_scenarios
from kernel_tui.model.storage.results_file import read_results

DOC = REPO / "docs" / "cluster.md"
COURSE = find_scenarios([course_dir()])


def _sbatch_script() -> str:
    """The page's sbatch script: its one code block that starts with ``#!/bin/bash``."""
    blocks: list[str] = re.findall(r"```bash\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    (script,) = [block for block in blocks if block.startswith("#!/bin/bash")]
    return script


def _array_task(tmp_path: Path, task: str | None, **env: str) -> subprocess.CompletedProcess[str]:
    """The script as array task ``task`` of a job on partition ``cpu``, with this interpreter's kernel-tui first."""
    script = tmp_path / "kernel-tui-course.sbatch"
    script.write_text(_sbatch_script(), encoding="utf-8")
    variables = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "SLURM_JOB_PARTITION": "cpu",
        "KERNEL_TUI_RESULTS": str(tmp_path / "results"),
        **env,
    }
    variables.pop("SLURM_ARRAY_TASK_ID", None)
    if task is not None:
        variables["SLURM_ARRAY_TASK_ID"] = task
    return subprocess.run(
        ["bash", str(script)], capture_output=True, text=True, env=variables, cwd=tmp_path, timeout=600
    )


def test_the_array_has_one_task_per_lesson() -> None:
    (first, last) = re.findall(r"^#SBATCH --array=(\d+)-(\d+)$", _sbatch_script(), re.MULTILINE)[0]
    assert (int(first), int(last)) == (0, len(COURSE) - 1)


@pytest.mark.parametrize("task", [str(len(COURSE)), "-1", "abc", None])
def test_a_task_number_outside_the_course_stops_with_one_line(tmp_path: Path, task: str | None) -> None:
    result = _array_task(tmp_path, task)
    assert result.returncode == 2
    assert result.stderr == (
        f"kernel-tui-course: array task '{task or ''}' has no lesson: the course has {len(COURSE)}, "
        f"--array=0-{len(COURSE) - 1}\n"
    )
    assert not (tmp_path / "results").exists()


@pytest.mark.engine
def test_an_array_task_measures_its_lesson_into_its_own_file(tmp_path: Path) -> None:
    task = 1
    result = _array_task(tmp_path, str(task), KERNEL_TUI_RUN_OPTIONS="--device cpu --no-sweep")
    assert result.returncode == 0, result.stderr[-2000:]
    (written,) = (tmp_path / "results").rglob("*.jsonl")
    assert written == tmp_path / "results" / "cpu" / f"{COURSE[task].stem}.jsonl"
    (report,) = read_results(written)  # as kernel-tui view reads it
    assert report.scenario == str(COURSE[task].resolve())
    assert report.ok and report.device == "cpu"
