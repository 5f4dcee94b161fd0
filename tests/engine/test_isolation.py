"""One scenario cannot spoil the next: each runs in an engine of its own, which ends with it, so whatever it
changed in its process is gone for the next (the front end's spare, a fresh engine)."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest
from conftest import measure
from support.locations import DATA, REPO

from kernel_tui.engine.compiler.torch_settings import KERNEL_PROFILE_OFF
from kernel_tui.engine.stages.timed_report import UNTIMED
from kernel_tui.transport.client import EngineClient

pytestmark = pytest.mark.engine  # every test here starts kernel-tui (make test-fast runs none)

ISOLATION = DATA / "isolation"
SPOILER = ISOLATION / "spoiler" / "spoils_everything.py"
PROBE = ISOLATION / "probe" / "probe.py"
GRAPH_BREAK_LESSON = REPO / "scenarios" / "15_graph_break.py"
ADD_RELU_LESSON = REPO / "scenarios" / "02_add_relu.py"


def test_a_scenario_that_changes_the_engine_changes_nothing_for_the_next(tmp_path: Path) -> None:
    observed = tmp_path / "observed.jsonl"
    env = {**os.environ, "KERNEL_TUI_PROBE_OUT": str(observed)}
    with EngineClient("cpu", env=env) as client:
        hello = client.start()
        before = measure(client, PROBE)
        spoiled = measure(client, SPOILER)
        after = measure(client, PROBE)
        lesson = measure(client, GRAPH_BREAK_LESSON)
        add_relu = measure(client, ADD_RELU_LESSON)
    # Its notes: the engine turned the kernel profile it turned off back on for its own compile; untimed. A
    # kernel whose data sat in cache (a copy-ceiling remark) is the machine's doing, not the scenario's state.
    state_notes = tuple(note for note in spoiled.notes if "copy ceiling" not in note)
    assert spoiled.error is None and state_notes == (KERNEL_PROFILE_OFF, UNTIMED), "nothing left for the next to know"
    assert before.error is None and after.error is None
    first, second = (json.loads(line) for line in observed.read_text().splitlines())
    assert first["helper"] == second["helper"] == "probe"
    assert second["spoiled"] is None and second["stdin_closed"] is False and second["stderr"] == "<stderr>"
    # Python's random reseeds itself in every forked process (as it does in any fork): each engine draws its own
    # numbers, and none the spoiler's seed (1234) would give.
    assert second["python_rng"] != random.Random(1234).random()
    assert {**second, "python_rng": None} == {**first, "python_rng": None}
    assert lesson.error is None and lesson.threads == hello.threads
    assert lesson.compiled is not None
    assert lesson.compiled.graph_breaks == 1
    assert {key: check.ok for key, check in lesson.expect.items()} == dict.fromkeys(lesson.expect, True)
    assert add_relu.compiled is not None
    assert add_relu.compiled.kernel_count == 1, "Inductor's kernels are profiled again"
