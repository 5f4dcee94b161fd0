"""The cursors as state, without an app: ``Cursors``' transitions, and what ``shown()`` derives from them (the
line under the tables, the code's links and marked line, the chart's highlight), on a recorded run."""

from __future__ import annotations

from dataclasses import replace

from support.ui_support import ADD_RELU, BROKEN
from test_shown import state

from kernel_tui.ui.state.cursors import NO_CURSORS, next_code_line, table_rows
from kernel_tui.ui.view.code_links import NOTHING_TO_WALK


def test_j_and_k_walk_the_lines_with_work_round_at_the_ends() -> None:
    lines = {8, 6, 7}
    assert next_code_line(lines, None, 1) == 6 and next_code_line(lines, None, -1) == 8
    assert [next_code_line(lines, line, 1) for line in (6, 7, 8)] == [7, 8, 6]
    assert [next_code_line(lines, line, -1) for line in (6, 7, 8)] == [8, 6, 7]
    assert next_code_line(lines, 3, 1) == 6, "from a line without work, the next one with some"
    assert next_code_line((), 6, 1) is None


def test_a_table_moved_by_the_learner_is_followed_and_silences_the_code_line() -> None:
    told = NO_CURSORS.lesson_line_moved(ADD_RELU, 11)
    assert told.telling and told.code_cursor == "lesson" and told.followed == "eager"
    unfocused = told.row_highlighted("compiled", 0, (), focused=False)
    assert unfocused.followed == "eager" and unfocused.telling, "a refill is not the learner's move"
    assert unfocused.compiled is not None and unfocused.compiled.row == 0
    moved = told.row_highlighted("compiled", 0, (), focused=True)
    assert moved.followed == "compiled" and not moved.telling
    assert NO_CURSORS.table_focused("compiled").followed == "compiled"
    edited = told.editor_line_moved(3)
    assert (edited.editor_line, edited.code_cursor, edited.telling) == (3, "editor", True)
    assert edited.lesson_line_on(ADD_RELU) == told.lesson and edited.lesson_line_on(BROKEN) is None


def test_the_followed_tables_cursor_names_its_kernel_links_its_lines_and_marks_the_chart() -> None:
    now = state()
    now.run()
    first = now.shown()
    assert first.eager.result is not None
    add, relu = first.eager.result.kernels
    assert (first.name.mode, first.name.kernel) == ("eager", add), "before any move, the first row"
    assert first.chart.highlight == ("eager", add) and first.code.linked == frozenset(add.lines)
    assert first.name.hint and first.name.compiled is first.compiled.result and first.name.story is None
    rows = table_rows(first.eager.result, first.eager.baseline)
    now.cursors = NO_CURSORS.row_highlighted("eager", 1, rows, focused=True)
    moved = now.shown()
    assert (moved.name.mode, moved.name.kernel) == ("eager", relu) and moved.chart.highlight == ("eager", relu)
    assert moved.code.linked == frozenset(relu.lines)
    now.cursors = now.cursors.table_focused("compiled")
    (fused,) = moved.compiled.result.kernels if moved.compiled.result else ()
    assert now.shown().name.kernel == fused and now.shown().chart.highlight == ("compiled", fused)


def test_a_cursor_on_rows_the_table_no_longer_shows_is_on_the_first_row() -> None:
    now = state()
    now.run()
    stale = table_rows(now.shown().eager.result, None)
    now.run()  # a new run: the table is refilled, and its cursor goes to the first row
    now.cursors = NO_CURSORS.row_highlighted("eager", 1, stale[:1], focused=True)
    value = now.shown()
    assert value.eager.result is not None and value.name.kernel == value.eager.result.kernels[0]
    now.cursors = NO_CURSORS.row_highlighted("eager", 1, stale, focused=True)
    assert now.shown().name.kernel == value.eager.result.kernels[1], "equal rows keep the table's cursor"


def test_the_lesson_line_cursor_marks_its_line_and_tells_of_it_until_a_table_moves() -> None:
    now = state()
    now.cursors = NO_CURSORS.lesson_line_moved(ADD_RELU, None)
    before = now.shown()
    assert before.name.story == NOTHING_TO_WALK and before.code.marked_line is None
    now.run()
    ran = now.shown()
    (line,) = ran.code.work
    now.cursors = now.cursors.lesson_line_moved(ADD_RELU, line)
    walked = now.shown()
    assert walked.code.lesson_cursor == line == walked.code.marked_line
    assert walked.name.story is not None and walked.name.story.plain.startswith(f"line {line} › eager aten::add ×1")
    now.cursors = now.cursors.row_highlighted("eager", 0, (), focused=True)
    after = now.shown()
    assert after.name.story is None and after.code.marked_line == line, "the line stays marked"
    now.catalog.select(1)
    other = now.shown()
    assert other.code.lesson_cursor is None and other.code.marked_line is None, "another scenario, no cursor"


def test_a_line_of_code_nothing_measured_says_why_rather_than_leaving_it_to_no_kernel() -> None:
    now = state()
    now.view = replace(now.view, editing=ADD_RELU)
    now.cursors = NO_CURSORS.editor_line_moved(3)
    said = now.shown().name.story
    assert said is not None and said.plain == "line 3: not run yet"


def test_the_editors_line_counts_only_while_it_holds_the_scenario_shown() -> None:
    now = state()
    now.run()
    (line,) = now.shown().code.work
    now.cursors = NO_CURSORS.lesson_line_moved(ADD_RELU, line).editor_line_moved(3)
    elsewhere = now.shown()
    assert not elsewhere.code.in_editor and elsewhere.code.marked_line == line, "the lesson's line, not the editor's"
    now.view = replace(now.view, editing=ADD_RELU)
    editing = now.shown()
    assert editing.code.in_editor and editing.code.marked_line == 3
    assert editing.name.story is None, "a quiet line leaves the line under the tables to the kernel"
    now.cursors = now.cursors.editor_line_moved(line)
    assert now.shown().name.story == editing.code.line_story(line)
