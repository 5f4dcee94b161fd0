"""Settings read from the environment: a value a setting cannot take is one line naming the variable, said by the
command at its start; an engine that meets one anyway keeps the default rather than exiting at its import."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from cli_support import kernel_tui

from kernel_tui.model.settings import SECONDS

pytestmark = pytest.mark.engine


@pytest.mark.parametrize("name", sorted(SECONDS))
@pytest.mark.parametrize("value", ["abc", "-1", "nan", "inf"])
def test_a_setting_that_is_no_number_of_seconds_is_one_line_naming_it(
    name: str, value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(name, value)
    result = kernel_tui("list", "scenarios/", timeout=120)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and name in result.stderr and "Traceback" not in result.stderr
    assert result.stdout == ""


def test_an_engine_that_meets_a_bad_sweep_budget_keeps_the_default() -> None:
    """``KERNEL_TUI_SWEEP_BUDGET_S=abc`` made every engine exit 1 as it imported the sweep."""
    env = {**os.environ, "KERNEL_TUI_SWEEP_BUDGET_S": "abc"}
    probe = "from kernel_tui.engine.stages import sweep; print(sweep.SWEEP_BUDGET_S)"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    assert float(result.stdout) == SECONDS["KERNEL_TUI_SWEEP_BUDGET_S"]


@pytest.mark.parametrize("columns", ["0", "5", "abc"])
def test_a_columns_that_is_no_width_still_prints_the_table(columns: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``COLUMNS=0 kernel-tui list`` printed nothing and exited 0."""
    monkeypatch.setenv("COLUMNS", columns)
    result = kernel_tui("list", "scenarios/", timeout=120)
    assert result.returncode == 0, result.stderr
    assert "title" in result.stdout and "01_" in result.stdout.replace("\n", "")
