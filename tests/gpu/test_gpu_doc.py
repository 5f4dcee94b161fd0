"""``docs/GPU.md``'s table of what the preview expects is the recording's, lesson for lesson."""

from __future__ import annotations

from pathlib import Path

from kernel_tui.model.scenario.course import course_dir
from kernel_tui.model.scenario.scenario_file import find_scenarios
from tools.docs import preview_table


def test_the_recording_covers_every_lesson_and_none_failed() -> None:
    recorded = {Path(report.scenario).name: report for report in preview_table.read_recording()}
    assert sorted(recorded) == sorted(path.name for path in find_scenarios([course_dir()]))
    failed = {name: report.error.message for name, report in recorded.items() if report.error is not None}
    assert not failed


def test_a_predicted_count_is_marked_and_a_training_step_shows_both_sections() -> None:
    reports = preview_table.read_recording()
    text = preview_table.table(reports)
    row = next(line for line in text.splitlines() if line.startswith("| 09_sum_of_squares.py"))
    assert "| 3* |" in row
    training = next(line for line in text.splitlines() if line.startswith("| 21_add_relu_backwards.py"))
    assert "forward: `triton_" in training and "backward: `triton_" in training
