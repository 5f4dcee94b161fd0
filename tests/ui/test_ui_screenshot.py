"""The README's screenshot (docs/screenshot.svg): the explorer at 120x40 on the course, after a sweep.

The engine is the replayed ``ui_add_relu`` recording, played for the course's add-then-ReLU lesson (the
same computation). The test always takes the screenshot; it rewrites docs/screenshot.svg only with
``KERNEL_TUI_WRITE_SCREENSHOT=1``:

    KERNEL_TUI_WRITE_SCREENSHOT=1 .venv/bin/pytest -q tests/ui/test_ui_screenshot.py
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest
from support.locations import REPO
from support.replay import Recording, ReplayEngineLink, ReplayGate
from support.ui_support import ADD_RELU, FROZEN_CLOCK, RECORDINGS, wait_for

from kernel_tui.model.scenario.course import course_dir
from kernel_tui.model.scenario.scenario_file import find_scenarios
from kernel_tui.transport.protocol import Done, SweepPointMessage
from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.state.course.catalog import load_catalog

SIZE = (120, 40)
RUN_SECONDS = 6.4
COURSE_LESSON = "02_add_relu.py"


@pytest.mark.usefixtures("from_the_repository")
async def test_screenshot_of_the_explorer_after_a_sweep(tmp_path: Path) -> None:
    course = course_dir()
    paths = find_scenarios([course])
    lesson = next((path for path in paths if path.name == COURSE_LESSON), None)
    if lesson is None:  # the course changed: show the test scenario instead
        paths, lesson = [ADD_RELU], ADD_RELU
    recording = dataclasses.replace(Recording.load(RECORDINGS[0]), scenario=lesson.name)
    gate = ReplayGate()
    link = ReplayEngineLink({lesson.name: recording}, gate=gate)
    now = [FROZEN_CLOCK]
    # No guess first: the picture is of the tables and the chart, not of the predict dialog.
    app = KernelTuiApp(
        load_catalog(paths, course), device="cpu", link_factory=lambda device: link, clock=lambda: now[0], predict=False
    )
    app.animation_level = "none"
    async with app.run_test(size=SIZE) as pilot:
        explorer = app.get_explorer()
        assert explorer is not None
        await wait_for(pilot, lambda: explorer.hello is not None)
        await pilot.press(*["n"] * paths.index(lesson), "s")
        for _ in range(6):
            gate.release_until(kind=SweepPointMessage)
        await wait_for(pilot, lambda: len(explorer.runs[lesson].record.points) == 6)
        now[0] += RUN_SECONDS  # a believable "done in" for the picture
        gate.release_until(kind=Done)
        await wait_for(pilot, lambda: not explorer.runs[lesson].running)
        await pilot.press("3")  # the eager table focused: the full-name line shows its first kernel
        await pilot.pause(0.2)
        target = REPO / "docs" if os.environ.get("KERNEL_TUI_WRITE_SCREENSHOT") else tmp_path
        path = app.save_screenshot(filename="screenshot.svg", path=str(target))
    svg = open(path, encoding="utf-8").read()
    assert svg.startswith("<svg") and "Eager" in svg and "Compiled" in svg
