"""Reading scenario files without executing them: titles, lessons, sizes and claims, and clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel_tui.model.scenario.scenario_file import DEFAULT_SIZE, ScenarioFileError, find_scenarios, parse_scenario

GOOD = '''"""Add, then ReLU

Predict first: how many kernels?
"""
SIZE = 2**12
SIZES = [2**10, 2**14, 2**12]
EXPECT = {"eager": 2, "compiled": 1, "cuda": {"compiled_transfers": 3}}
COMPILE = {"mode": "max-autotune-no-cudagraphs"}

def fn(a, b):
    return (a + b).relu()

def inputs(size, device):
    return ()
'''


def test_metadata_comes_from_the_syntax_tree() -> None:
    info = parse_scenario(GOOD, Path("s.py"))
    assert info.title == "Add, then ReLU"
    assert info.lesson == "Predict first: how many kernels?"
    assert info.size == 4096 and info.sizes == (1024, 4096, 16384)
    assert info.compile_options == {"mode": "max-autotune-no-cudagraphs"}
    assert info.claims_for("cpu") == {"eager": 2, "compiled": 1}
    assert info.claims_for("cuda") == {"eager": 2, "compiled": 1, "compiled_transfers": 3}
    assert info.has_fn and info.has_inputs


def test_defaults() -> None:
    info = parse_scenario("def fn(a):\n    return a\n", Path("bare_title.py"))
    assert info.title == "bare_title" and info.size == DEFAULT_SIZE and info.sizes is None and info.expect == {}


@pytest.mark.parametrize(
    ("source", "line", "text"),
    [
        ("x = 1\ndef fn(:\n", 2, "syntax error"),
        ("EXPECT = [2, 1]\n", 1, "EXPECT must be a dict"),
        ("\nEXPECT = {'eagre': 2}\n", 2, "unknown claim 'eagre'"),
        ("EXPECT = {'eager': 'two'}\n", 1, "must be a number"),
        ("EXPECT = {'cuda': 3}\n", 1, "must be a dict of claims"),
        ("SIZE = -1\n", 1, "SIZE must be a positive integer"),
        ("SIZES = []\n", 1, "SIZES must be a non-empty list"),
        ("import os\nSIZE = os.cpu_count()\n", 2, "SIZE must be a literal"),
        ("COMPILE = {'fullgrpah': True}\n", 1, "COMPILE must be a dict"),
    ],
)
def test_malformed_files_name_the_line(source: str, line: int, text: str) -> None:
    with pytest.raises(ScenarioFileError) as error:
        parse_scenario(source, Path("bad.py"))
    assert error.value.line == line
    assert text in str(error.value)


def test_folders_expand_in_name_order_and_skip_private_files(tmp_path: Path) -> None:
    for name in ("02_b.py", "01_a.py", "__init__.py", "_helper.py", "notes.md"):
        (tmp_path / name).write_text("")
    assert [p.name for p in find_scenarios([tmp_path])] == ["01_a.py", "02_b.py"]
