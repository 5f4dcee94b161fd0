"""``--trace DIR`` names: unique per scenario path, stable across runs into the same folder."""

from __future__ import annotations

from pathlib import Path

from kernel_tui.engine.stages.trace_names import trace_path


def test_two_files_of_one_name_from_two_folders_never_share_a_trace(tmp_path: Path) -> None:
    traces = tmp_path / "traces"
    first, second = tmp_path / "a" / "dup.py", tmp_path / "b" / "dup.py"
    first_eager = trace_path(str(traces), first, "eager")
    second_eager = trace_path(str(traces), second, "eager")
    assert first_eager == str(traces / "dup.eager.json")
    assert second_eager is not None and second_eager != first_eager
    assert Path(second_eager).name.startswith("dup-") and second_eager.endswith(".eager.json")
    # Each keeps its own name, in this run and the next (each scenario runs in an engine of its own).
    assert trace_path(str(traces), second, "compiled") == second_eager.replace(".eager.", ".compiled.")
    assert trace_path(str(traces), first, "compiled") == str(traces / "dup.compiled.json")


def test_a_trace_already_there_from_an_unknown_scenario_is_not_overwritten(tmp_path: Path) -> None:
    (tmp_path / "dup.eager.json").write_text("{}")
    named = trace_path(str(tmp_path), tmp_path / "elsewhere" / "dup.py", "eager")
    assert named is not None and Path(named).name != "dup.eager.json"
    assert (tmp_path / "dup.eager.json").read_text() == "{}"


def test_no_folder_no_trace() -> None:
    assert trace_path(None, Path("dup.py"), "eager") is None


def test_a_crafted_index_cannot_put_a_trace_outside_its_folder(tmp_path: Path) -> None:
    """The folder's index is anyone's to write: a name in it such as ``../x`` put the trace beside the folder."""
    import json

    traces = tmp_path / "traces"
    traces.mkdir()
    scenario = tmp_path / "mine.py"
    crafted = {"../escaped": str(scenario.resolve()), "/tmp/abs": str(scenario.resolve()), "..": "x", "": "y"}
    (traces / ".kernel-tui-traces.json").write_text(json.dumps(crafted))
    named = trace_path(str(traces), scenario, "eager")
    assert named is not None and Path(named).parent == traces, named
    assert Path(named).name == "mine.eager.json"
