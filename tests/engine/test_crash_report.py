"""A scenario that segfaults leaves its stack in its report: the one line names the scenario's file and line and the
stage the engine died in, and the details hold the crashing frames (``engine.serve.crash_stacks``,
``model.death.crash_dump``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import cli_support as cli_support
from support.locations import DATA

from kernel_tui.transport.client import EngineClient
from kernel_tui.transport.engine_died import EngineDied
from kernel_tui.transport.run_record import RunRecord, fold

pytestmark = pytest.mark.engine  # every test here starts kernel-tui's engine (make test-fast runs none)

SEGFAULTS = DATA / "faults" / "segfaults.py"
"""Its fn reads address 0 (``ctypes.string_at(0)``) on line 14: the eager profile's first call."""
COMPILED_SEGFAULT = '''"""Crashes only when compiled"""
import ctypes

import torch


def fn(a):
    if torch.compiler.is_compiling():
        ctypes.string_at(0)
    return a + 1


def inputs(size, device):
    return (torch.ones(size, device=device),)
'''


def test_kernel_tui_run_names_the_line_and_the_stage_and_prints_the_frames() -> None:
    code, reports, stderr = cli_support.run_json(
        str(SEGFAULTS), "--device", "cpu", "--no-sweep", "--no-time", timeout=300
    )
    assert code == 1
    error = reports[0]["error"]
    assert (error["stage"], error["file"], error["line"]) == ("engine", str(SEGFAULTS), 14)
    assert error["message"] == "the engine was killed by SIGSEGV in the eager profile, in fn"
    assert f'File "{SEGFAULTS}", line 14 in fn' in error["details"]
    # Printed too, after the engine's own words, whatever the output's form.
    printed = stderr[stderr.index("segfaults.py: how the engine crashed") :]
    assert "stage: eager profile\nlast step announced: eager: " in printed
    assert f'File "{SEGFAULTS}", line 14 in fn' in printed
    assert "crashing frame: " in printed and "The crashing thread, innermost frame first:" in printed


def test_a_crash_in_the_compile_is_reported_at_the_compile_with_its_frames(tmp_path: Path) -> None:
    scenario = tmp_path / "compiled_segfault.py"
    scenario.write_text(COMPILED_SEGFAULT)
    record = RunRecord(1, scenario, sweep=False)
    with EngineClient("cpu") as client:
        with pytest.raises(EngineDied) as death:
            for message in client.run(
                str(scenario), sweep=False, timed=False, run_id=1, timeout=300, then_another=False
            ):
                record = fold(record, message)
    assert death.value.returncode == -11, "the engine still dies by its signal, after both handlers wrote"
    error = death.value.error(scenario, record)
    assert (error.stage, error.file, error.line) == ("engine", str(scenario), 9)
    assert error.message == "the engine was killed by SIGSEGV in the compile, in fn"
    assert error.details.startswith("stage: compile\nlast step announced: compile: torch.compile, first call\n")
    crashing = error.details.index("The crashing thread, innermost frame first:")
    assert error.details.index("in string_at", crashing) < error.details.index(f'"{scenario}", line 9 in fn')
    # Torch's native handler wrote the crashing thread's native frames, the faulting call below its own frames.
    assert "Its native frames, innermost first (torch's handler):" in error.details
    assert "fatalSignalHandler" not in error.details.split("crashing frame: ")[1].splitlines()[0]
