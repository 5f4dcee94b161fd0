"""Odd files and odd endings: each is read as Python reads it, or reported at its stage and line; none
crashes ``list``, ``run`` or the explorer."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import WriteScenario, measure
from support import cli_support as cli_support
from support.cli_support import CliRun
from support.locations import DATA

from kernel_tui.model.scenario.scenario_file import ScenarioFileError, read_scenario, read_source
from kernel_tui.transport.client import EngineClient

BODY = (
    "import torch\nSIZE = 64\ndef fn(a):\n    return a + 1\n"
    "def inputs(size, device):\n    return (torch.ones(size, device=device),)\n"
)
FN_AND_INPUTS = "def fn(a):\n    return a\ndef inputs(size, device):\n    return (torch.ones(size),)\n"


def run_json(*args: str) -> CliRun:
    return cli_support.run_json("--device", "cpu", "--no-sweep", *args, timeout=300)


def test_a_byte_order_mark_and_a_coding_line_are_read_as_python_reads_them(
    tmp_path: Path, engine: EngineClient
) -> None:
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbf" + f'"""Starts with a byte-order mark"""\n{BODY}'.encode())
    latin = tmp_path / "latin.py"
    latin.write_bytes(f'# -*- coding: latin-1 -*-\n"""Caf\xe9 au lait"""\n{BODY}'.encode("latin-1"))
    assert read_scenario(bom).title == "Starts with a byte-order mark"
    assert read_scenario(latin).title == "Caf\xe9 au lait"
    for path, title in ((bom, "Starts with a byte-order mark"), (latin, "Caf\xe9 au lait")):
        report = measure(engine, path)
        assert report.error is None and report.title == title
        assert report.eager is not None
        assert report.eager.kernel_count == 1


def test_inputs_on_the_meta_device_are_an_error_not_a_speedup(
    write_scenario: WriteScenario, engine: EngineClient
) -> None:
    path = write_scenario(BODY.replace("device=device", "device='meta'"), "meta.py")
    report = measure(engine, path)
    assert report.error is not None and report.error.stage == "inputs"
    assert "meta device" in report.error.message
    assert report.eager is None and report.speedup is None


@pytest.mark.parametrize(
    ("source", "stage", "line", "message"),
    [
        ("import sys\nimport torch\nSIZE = 8\nsys.exit(2)\n" + FN_AND_INPUTS, "load", 4, "SystemExit: sys.exit(2)"),
        ("import torch\nSIZE = 8\nraise KeyboardInterrupt\n" + FN_AND_INPUTS, "load", 3, "KeyboardInterrupt"),
        (
            "import sys\nimport torch\nSIZE = 8\ndef fn(a):\n    sys.exit('bye')\n"
            "def inputs(size, device):\n    return (torch.ones(size),)\n",
            "eager",
            5,
            "SystemExit: sys.exit('bye')",
        ),
        (
            "import torch\nSIZE = 8\ndef fn(a):\n    raise KeyboardInterrupt\n"
            "def inputs(size, device):\n    return (torch.ones(size),)\n",
            "eager",
            4,
            "KeyboardInterrupt",
        ),
        (
            "import torch\nSIZE = 8\ndef fn(a):\n    return a\ndef inputs(size, device):\n    raise SystemExit(1)\n",
            "inputs",
            6,
            "SystemExit: sys.exit(1)",
        ),
    ],
    ids=["exit-at-import", "interrupt-at-import", "exit-in-fn", "interrupt-in-fn", "exit-in-inputs"],
)
def test_exits_and_interrupts_in_a_scenario_name_their_stage_and_line(
    write_scenario: WriteScenario, engine: EngineClient, source: str, stage: str, line: int, message: str
) -> None:
    report = measure(engine, write_scenario(source, "ends.py"))
    assert report.error is not None
    # The scenario's error at its stage, reported by the engine in its Done: an engine that had ended with the
    # scenario would be reported at the stage "engine".
    assert (report.error.stage, report.error.line) == (stage, line)
    assert report.error.message == message


def test_an_exit_on_a_later_call_keeps_what_was_measured_and_names_the_line(
    write_scenario: WriteScenario, engine: EngineClient
) -> None:
    source = textwrap.dedent("""
        import sys
        import torch
        SIZE = 8
        calls = []
        def fn(a):
            calls.append(1)
            if len(calls) == 3:
                sys.exit(5)
            return a + 1
        def inputs(size, device):
            return (torch.ones(size),)
    """)
    report = measure(engine, write_scenario(source, "exits_later.py"))
    assert report.error is not None and report.error.line == 9
    assert report.error.stage == "eager" and "SystemExit" in report.error.message


def test_a_fullgraph_graph_break_names_the_line_dynamo_names(
    write_scenario: WriteScenario, engine: EngineClient
) -> None:
    source = textwrap.dedent("""
        import torch
        SIZE = 64
        COMPILE = {"fullgraph": True}
        def fn(x):
            y = x.sin()
            if y.sum() > 0:
                return y.cos()
            return y
        def inputs(size, device):
            return (torch.randn(size, device=device),)
    """)
    report = measure(engine, write_scenario(source, "fullgraph.py"))
    assert report.error is not None
    assert report.eager is not None and report.error.stage == "compile"
    assert "Data-dependent branching" in report.error.message
    assert report.error.line == 7


CRAFTED = {
    "deep.py": "SIZE = " + "-" * 3000 + "1\n",
    "huge_list.py": "SIZES = [1024] * 2**60\n",
    "huge_power.py": "SIZE = ((2**64)**64)**64\n",
    "null_byte.py": "SIZE = 1\x00\n",
    "infinite_claim.py": 'EXPECT = {"eager": 1e400}\n',
}


@pytest.mark.engine
def test_crafted_files_are_listed_as_unreadable_not_a_crash(tmp_path: Path) -> None:
    for name, source in CRAFTED.items():
        (tmp_path / name).write_text(source)
        with pytest.raises(ScenarioFileError):
            read_scenario(tmp_path / name)
    (tmp_path / "zz_fine.py").write_text(BODY)
    result = subprocess.run(
        [sys.executable, "-m", "kernel_tui", "list", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        env={"COLUMNS": "300", **__import__("os").environ},
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and result.stderr == ""
    assert result.stdout.count("cannot read") == len(CRAFTED)
    assert "and finite" in result.stdout and "nested too deeply" in result.stdout


UNDECODABLE = {
    "binary.py": bytes(range(128, 256)) * 8,
    "unknown_coding.py": b"# -*- coding: no-such-codec -*-\nSIZE = 1\n",
    "not_utf8.py": b"SIZE = 1  # caf\xe9\n",
}
"""Files whose bytes Python cannot decode: ``read_source`` says so as a ScenarioFileError, the one error its
callers handle (the run command's saved text once let the SyntaxError of a binary file through)."""


@pytest.mark.engine
def test_a_file_python_cannot_decode_is_a_load_error_in_every_command(tmp_path: Path) -> None:
    for name, data in UNDECODABLE.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(ScenarioFileError, match="cannot read the file"):
            read_source(tmp_path / name)
    code, reports, stderr = run_json(*(str(tmp_path / name) for name in UNDECODABLE))
    assert code == 1 and "Traceback" not in stderr
    assert [report["error"]["stage"] for report in reports] == ["load"] * len(UNDECODABLE)
    assert all(report["error"]["message"].startswith("cannot read the file") for report in reports)
    assert all(report["source"] is None for report in reports)


async def test_the_explorer_opens_a_folder_of_crafted_files(tmp_path: Path) -> None:
    from support.ui_support import explorer, make_link

    from kernel_tui.ui.app.launch import build_app

    for name, source in CRAFTED.items():
        (tmp_path / name).write_text(source)
    for name, data in UNDECODABLE.items():
        (tmp_path / name).write_bytes(data)
    names = sorted([*CRAFTED, *UNDECODABLE])
    app = build_app([tmp_path / name for name in names], link_factory=lambda device: make_link())
    async with app.run_test(size=(160, 48)) as pilot:
        for _ in names:
            await pilot.press("n")
            await pilot.pause()
        assert len(explorer(app).catalog.entries) == len(names)
        assert all(entry.read_error is not None for entry in explorer(app).catalog.entries)


@pytest.mark.engine
def test_claims_must_be_finite_and_the_json_is_always_strict(write_scenario: WriteScenario) -> None:
    path = write_scenario('EXPECT = {"eager": 1e400}\n' + BODY, "infinite.py")
    code, (report,), _ = run_json(str(path))
    assert code == 1
    assert report["error"]["stage"] == "load" and "finite" in report["error"]["message"]


def test_strict_json_turns_what_is_not_a_number_into_null() -> None:
    from kernel_tui.commands.cli import strict_json

    assert strict_json({"a": [1.0, float("nan"), {"b": float("inf")}], "c": (float("-inf"),)}) == {
        "a": [1.0, None, {"b": None}],
        "c": [None],
    }
    assert json.dumps(strict_json({"speedup": float("inf")}), allow_nan=False) == '{"speedup": null}'


@pytest.mark.engine
def test_an_engine_that_died_is_still_reported_with_device_torch_and_size() -> None:
    exits = DATA / "faults" / "exits.py"
    code, (report,), _ = run_json(str(exits))
    assert code == 1 and report["error"]["stage"] == "engine"
    assert report["device"] == "cpu" and report["torch_version"] and report["device_name"]
    assert report["size"] == read_scenario(exits).size
