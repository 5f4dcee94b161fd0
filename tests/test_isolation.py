"""One scenario cannot spoil the next: every scenario starts from the engine's state at start-up."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import REPO, WriteScenario, measure

from kernel_tui.engine.device import KERNEL_PROFILE_OFF
from kernel_tui.engine.timed_report import UNTIMED
from kernel_tui.transport.client import EngineClient

pytestmark = pytest.mark.engine  # every test here starts kernel-tui (make test-fast runs none)

DATA = Path(__file__).parent / "data" / "isolation"
SPOILER = DATA / "spoiler" / "spoils_everything.py"
PROBE = DATA / "probe" / "probe.py"
GRAPH_BREAK_LESSON = REPO / "scenarios" / "15_graph_break.py"
ADD_RELU_LESSON = REPO / "scenarios" / "02_add_relu.py"


def test_a_scenario_that_changes_the_engine_changes_nothing_for_the_next(tmp_path: Path) -> None:
    observed = tmp_path / "observed.jsonl"
    env = {**os.environ, "KERNEL_TUI_PROBE_OUT": str(observed)}
    with EngineClient("cpu", env=env, fresh_per_run=False) as client:
        hello = client.start()
        before = measure(client, PROBE)
        spoiled = measure(client, SPOILER)
        after = measure(client, PROBE)
        lesson = measure(client, GRAPH_BREAK_LESSON)
        add_relu = measure(client, ADD_RELU_LESSON)
        assert client.hello is not None and client.hello.pid == hello.pid, "restored, not restarted"
    # Its notes: the engine turned the kernel profile it turned off back on for its own compile; untimed. A
    # kernel whose data sat in cache (a copy-ceiling remark) is the machine's doing, not the scenario's state.
    state_notes = tuple(note for note in spoiled.notes if "copy ceiling" not in note)
    assert spoiled.error is None and state_notes == (KERNEL_PROFILE_OFF, UNTIMED), "all it changed is put back"
    assert before.error is None and after.error is None
    first, second = (json.loads(line) for line in observed.read_text().splitlines())
    assert first["helper"] == second["helper"] == "probe"
    assert second["spoiled"] is None and second["stdin_closed"] is False and second["stderr"] == "<stderr>"
    assert second == first
    assert lesson.error is None and lesson.threads == hello.threads
    assert lesson.compiled is not None
    assert lesson.compiled.graph_breaks == 1
    assert {key: check.ok for key, check in lesson.expect.items()} == dict.fromkeys(lesson.expect, True)
    assert add_relu.compiled is not None
    assert add_relu.compiled.kernel_count == 1, "Inductor's kernels are profiled again"


def test_what_cannot_be_restored_moves_the_next_scenario_to_a_fresh_engine(write_scenario: WriteScenario) -> None:
    leaves_a_thread = write_scenario(
        "import threading, time\nimport torch\nSIZE = 64\n"
        "threading.Thread(target=time.sleep, args=(600,), daemon=True, name='left-behind').start()\n"
        "def fn(a):\n    return a + 1\n"
        "def inputs(size, device):\n    return (torch.ones(size),)\n",
        name="leaves_a_thread.py",
    )
    with EngineClient("cpu", fresh_per_run=False) as client:
        first_pid = client.start().pid
        left = measure(client, leaves_a_thread)
        assert left.error is None
        told = [note for note in left.notes if "copy ceiling" not in note]
        assert told[0] == UNTIMED and len(told) == 2
        assert "fresh engine" in told[1] and "left-behind" in told[1]
        after = measure(client, ADD_RELU_LESSON)
        assert client.hello is not None
        assert client.hello.pid != first_pid
    assert after.error is None and all(check.ok for check in after.expect.values())
