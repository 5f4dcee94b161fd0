"""The user's folder is not the engine's: modules next to the user, or next to a scenario, never stand in for
the standard library or torch's; a scenario may still import its own neighbours."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support.locations import REPO

pytestmark = pytest.mark.engine  # every test here starts kernel-tui (make test-fast runs none)

KERNEL_TUI = Path(sys.executable).parent / "kernel-tui"
ADD_RELU = REPO / "tests" / "data" / "add_relu.py"
POISON = "raise SystemExit('the learner\\'s ' + __name__ + '.py was imported')\n"


def test_modules_in_the_current_folder_or_a_scenarios_folder_do_not_shadow_the_standard_library(tmp_path: Path) -> None:
    for name in ("random", "copy", "timeit", "colorsys"):
        (tmp_path / f"{name}.py").write_text(POISON)
    lessons = tmp_path / "lessons"
    lessons.mkdir()
    (lessons / "colorsys.py").write_text(POISON)
    (lessons / "my_helpers.py").write_text("def double(t):\n    return t * 2\n")
    (lessons / "uses_neighbours.py").write_text(
        textwrap.dedent("""
        import colorsys
        import torch
        from my_helpers import double
        SIZE = 64
        assert colorsys.__file__ != __file__.replace("uses_neighbours", "colorsys")
        def fn(a):
            return double(a)
        def inputs(size, device):
            return (torch.ones(size, device=device),)
    """)
    )
    result = subprocess.run(
        [
            str(KERNEL_TUI),
            "run",
            "--device",
            "cpu",
            "--no-time",
            "--json",
            str(ADD_RELU),
            str(lessons / "uses_neighbours.py"),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    reports = [json.loads(line) for line in result.stdout.splitlines()]
    assert [report["error"] for report in reports] == [None, None], result.stderr[-2000:]
    assert result.returncode == 0
    assert reports[1]["eager"]["kernel_count"] == 1
