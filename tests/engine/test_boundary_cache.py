"""The scheduler's decisions are kept per graph: a graph watched before is not compiled again, and anything that
could change what the scheduler decides or where its work was written is a graph of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch
from support.locations import DATA, TESTS

from kernel_tui.engine.compiler import boundary_cache
from kernel_tui.engine.compiler.fusion_watch import GraphFusion
from kernel_tui.engine.stages.boundary_compile import watched_compile
from kernel_tui.engine.stages.loader import LoadedScenario, load_scenario

pytestmark = pytest.mark.engine  # compiles in the test process

SUM_THEN_SCALE = DATA / "boundaries" / "sum_then_scale.py"
SIZE = 2**12


@pytest.fixture
def kept_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The kept graphs' folder, empty; Inductor's own cache stays the suite's, so kernels are not compiled anew."""
    folder = tmp_path / "kept"
    monkeypatch.setattr(boundary_cache, "folder", lambda: folder)
    torch._dynamo.reset()
    yield folder
    torch._dynamo.reset()


def _watched(path: Path, size: int = SIZE) -> list[GraphFusion]:
    scenario = load_scenario(path)
    return watched_compile(scenario, scenario.make_inputs(size, "cpu"))


def _decided(graphs: list[GraphFusion]) -> list[tuple[Any, ...]]:
    """What the scheduler decided, less the wrapper's ``# AOT ID`` line, which counts compiles in the process."""
    return [
        (graph.nodes, graph.pairs, graph.inputs, graph.outputs, graph.output_bytes, graph.wrapper.split("\n", 1)[1])
        for graph in graphs
    ]


def _refuse_to_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    def compile_again(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("Inductor compiled a graph whose decisions were kept")

    monkeypatch.setattr(torch._TorchCompileInductorWrapper, "__call__", compile_again)


def test_a_graph_watched_before_is_read_back_not_compiled(kept_in: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = _watched(SUM_THEN_SCALE)
    assert [len(graph.nodes) for graph in first] == [2] and first[0].pairs and first[0].wrapper
    assert len(list(kept_in.glob("*.pickle"))) == 1
    _refuse_to_compile(monkeypatch)
    assert _watched(SUM_THEN_SCALE) == first


def test_a_line_moved_is_compiled_and_watched_again(kept_in: Path, tmp_path: Path) -> None:
    first = _watched(SUM_THEN_SCALE)
    moved = tmp_path / SUM_THEN_SCALE.name
    moved.write_text("# one line more above fn\n" + SUM_THEN_SCALE.read_text())
    again = _watched(moved)
    assert len(list(kept_in.glob("*.pickle"))) == 2
    lines = [line for node in first[0].nodes for _, line in node.lines]
    assert [line for node in again[0].nodes for _, line in node.lines] == [line + 1 for line in lines]


def test_a_damaged_file_is_compiled_again_and_replaced(kept_in: Path) -> None:
    first = _watched(SUM_THEN_SCALE)
    (kept,) = kept_in.glob("*.pickle")
    kept.write_bytes(b"not a pickle")
    assert boundary_cache.kept(kept.stem) is None
    again = _watched(SUM_THEN_SCALE)
    assert _decided(again) == _decided(first) and boundary_cache.kept(kept.stem) == again


def _keys(scenario: LoadedScenario, size: int, options: dict[str, Any] | None = None) -> list[str | None]:
    keys: list[str | None] = []

    def backend(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Any:
        keys.append(boundary_cache.graph_key(gm, example_inputs, options or {}))
        return gm.forward

    torch._dynamo.reset()
    scenario.call(torch.compile(scenario.module.fn, backend=backend), scenario.make_inputs(size, "cpu"), "compile")
    return keys


def test_sizes_options_and_inductors_config_are_keys_of_their_own() -> None:
    scenario = load_scenario(SUM_THEN_SCALE)
    (plain,) = _keys(scenario, SIZE)
    assert plain is not None and _keys(scenario, SIZE) == [plain]
    (larger,) = _keys(scenario, 2 * SIZE)
    (tuned,) = _keys(scenario, SIZE, {"mode": "max-autotune", "options": {"epilogue_fusion": False}})
    with torch._inductor.config.patch(max_fusion_size=1):
        (configured,) = _keys(scenario, SIZE)
    assert len({plain, larger, tuned, configured}) == 4


def test_an_option_with_no_stable_text_makes_no_key() -> None:
    assert _keys(load_scenario(SUM_THEN_SCALE), SIZE, {"options": {"hook": object()}}) == [None]


KEY_IN_ANOTHER_PROCESS = """
import sys
from pathlib import Path
from kernel_tui.engine.stages.loader import load_scenario
from test_boundary_cache import _keys
print(*_keys(load_scenario(Path(sys.argv[1])), int(sys.argv[2])))
"""


def test_another_process_makes_the_same_key() -> None:
    """Nothing printed with an address or a process's hash seed reaches the key, or no engine would find what
    another one kept."""
    other = subprocess.run(
        [sys.executable, "-c", KEY_IN_ANOTHER_PROCESS, str(SUM_THEN_SCALE), str(SIZE)],
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), str(TESTS)])},  # its _keys
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert other.stdout.split() == _keys(load_scenario(SUM_THEN_SCALE), SIZE)
