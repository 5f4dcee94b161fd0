"""``kernel-tui run`` on bare-expression files, as a script would call it: one JSON object per file.

The editor's drafts are such files; this is the same path the app's engine takes, from the command line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.locations import REPO

pytestmark = pytest.mark.engine  # every test here starts kernel-tui (make test-fast runs none)

SNIPPETS = REPO / "tests" / "data" / "snippets"


def test_run_measures_bare_expressions_and_reports_their_errors_on_the_typed_line(tmp_path: Path) -> None:
    good = tmp_path / "relu.py"
    good.write_text("(a + b).relu()\n")
    typo, syntax = SNIPPETS / "ui_snippet_typo.py", SNIPPETS / "ui_snippet_syntax.py"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "kernel_tui",
            "run",
            str(good),
            str(typo),
            str(syntax),
            "--device",
            "cpu",
            "--json",
            "--no-time",
            "--size",
            "4096",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
    )
    assert result.returncode == 1, "two of the three fail: exit status 1"
    measured, unknown_name, unparsable = (json.loads(line) for line in result.stdout.splitlines())

    assert measured["error"] is None, result.stderr[-2000:]
    assert measured["title"] == "(a + b).relu()" and measured["size"] == 4096
    assert measured["eager"]["kernel_count"] == 2 and measured["compiled"]["kernel_count"] == 1
    assert measured["eager"]["transfers"] == 5 and measured["compiled"]["transfers"] == 3
    for mode in ("eager", "compiled"):
        assert all(kernel["lines"] == [1] for kernel in measured[mode]["kernels"]), "the line as typed"

    error = unknown_name["error"]
    assert (error["stage"], error["line"], error["file"]) == ("eager", 3, str(typo))
    assert error["message"] == "NameError: name 'q' is not defined"

    error = unparsable["error"]
    assert (error["stage"], error["line"]) == ("load", 1)
    assert "never closed" in error["message"]


def test_the_table_header_says_the_shapes_in_and_out(tmp_path: Path) -> None:
    # x @ y on the 1-D tensors a bare expression gets is a dot product: one number out, which no kernel
    # count makes obvious.
    dot = tmp_path / "dot.py"
    dot.write_text("(a + b).relu()\nx @ y\n")
    command = [sys.executable, "-m", "kernel_tui", "run", str(dot), "--device", "cpu", "--no-time", "--size", "4096"]
    result = subprocess.run([*command, "--json"], capture_output=True, text=True, timeout=600, cwd=REPO)
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout)
    assert report["signature"] == "x: (4096,) float32, y: (4096,) float32 → () float32"
    assert report["eager"]["kernel_count"] == report["compiled"]["kernel_count"] == 1, "the last line only"

    result = subprocess.run(
        command, capture_output=True, text=True, timeout=600, cwd=REPO, env={**os.environ, "COLUMNS": "160"}
    )
    assert "shapes: x: (4096,) float32, y: (4096,) float32 → () float32" in result.stdout
