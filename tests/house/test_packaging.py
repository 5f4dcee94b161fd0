"""A non-editable install carries the course and finds it: build the wheel, install it aside, list it."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from support.locations import REPO


@pytest.mark.engine
def test_wheel_ships_the_course_and_finds_it_when_installed(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            str(tmp_path / "dist"),
            str(REPO),
        ],
        check=True,
        capture_output=True,
        cwd=tmp_path,
    )
    (wheel,) = (tmp_path / "dist").glob("kernel_tui-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    course = sorted(p.name for p in (REPO / "scenarios").glob("[0-9]*.py"))
    assert course, "the course has scenario files"
    assert {f"kernel_tui/scenarios/{name}" for name in course} <= names
    assert "kernel_tui/engine/__main__.py" in names
    # The tooling beside the package (the docs generator, gpu-check) works on a checkout and is not shipped.
    assert not [name for name in names if name.startswith("tools/")]
    assert not [name for name in names if Path(name).name.startswith(("docs_", "gpu_", "preview_table"))]

    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
    )
    probe = (
        "import kernel_tui, kernel_tui.commands.cli as cli;"
        "print(kernel_tui.__file__);raise SystemExit(cli.main(['list']))"
    )
    env = {**os.environ, "PYTHONPATH": str(target), "COLUMNS": "400"}
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0].startswith(str(target))
    for name in course:
        assert name in result.stdout.replace("\n", "")


def test_the_readme_says_once_how_to_get_the_command_and_then_writes_it_one_way() -> None:
    # After make run only .venv/bin/kernel-tui exists: a reader typing the README's `kernel-tui` must have
    # been told, before the first command, how to put it on the PATH.
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    quick_start = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert ". .venv/bin/activate" in quick_start
    assert "install" in quick_start and "tool" in quick_start
    assert readme.count(". .venv/bin/activate") == 1, "said once"
    assert ".venv/bin/kernel-tui" not in readme, "one form throughout: kernel-tui"
