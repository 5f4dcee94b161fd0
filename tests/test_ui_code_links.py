"""The code's gutter and the two-way links between code lines and kernel rows, on a replayed run of a function
whose lines 6, 7 and 8 are ``s = a + b``, ``r = s.relu()`` and ``return r * 2``."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_ui_support import DATA, explorer, finished, make_app, shown_text, wait_for

from kernel_tui.by_line import LineWork
from kernel_tui.report import Kernel
from kernel_tui.ui.code_links import CodeLinks
from kernel_tui.ui.replay import ReplayEngineLink
from kernel_tui.ui.widgets.kernel_table import LINE_MARK, KernelTable
from kernel_tui.ui.widgets.lesson_view import LessonView

WHICH_LINE = Path("tests/data/which_line.py")
RECORDING = DATA / "ui_which_line_messages.json"
SMALL, LARGE = (80, 24), (160, 48)
FUSED = "cpp_fused_add_mul_relu_0"

pytestmark = pytest.mark.usefixtures("from_the_repository")


def which_line_app():
    link = ReplayEngineLink.from_files(RECORDING)
    # Editing the file opens it as a draft of its own, run under the draft's name: the same code, recorded once.
    link.recordings["which_line-1.py"] = link.recordings["which_line.py"]
    app = make_app(link, paths=(WHICH_LINE,))
    app.animation_level = "none"
    return app


async def run_it(pilot) -> None:
    screen = explorer(pilot.app)
    await wait_for(pilot, lambda: screen.hello is not None)
    await pilot.press("r")
    await wait_for(pilot, lambda: finished(pilot.app, WHICH_LINE), what="the replayed run")


def code_row(lesson: LessonView, code: str) -> str:
    """The row of the lesson pane's code that shows ``code``."""
    shown = shown_text(lesson.query_one("#lesson-source"))
    rows = [row for row in shown.splitlines() if code in row]
    assert rows, shown
    return rows[0]


async def test_every_run_fills_the_gutter_and_quiet_lines_stay_blank():
    app = which_line_app()
    async with app.run_test(size=SMALL) as pilot:
        await run_it(pilot)
        await pilot.press("2")
        lesson = explorer(app).query_one("#lesson", LessonView)
        await wait_for(pilot, lambda: bool(lesson.line_work), what="the gutter")
        await pilot.pause()
        assert sorted(lesson.line_work) == [6, 7, 8]
        for code in ("s = a + b", "r = s.relu()", "return r * 2"):
            row = code_row(lesson, code)
            assert "1 ⇒ " in row.split(code)[0], f"readable at 80x24: {row!r}"
        assert "⇒" not in code_row(lesson, "def fn(a, b):"), "a line that launches nothing is quiet"
        assert "⇒" not in code_row(lesson, "def inputs")


async def test_a_kernel_row_marks_its_lines_in_the_code():
    app = which_line_app()
    async with app.run_test(size=LARGE) as pilot:
        await run_it(pilot)
        screen = explorer(app)
        lesson = screen.query_one("#lesson", LessonView)
        eager = screen.query_one("#eager", KernelTable)
        eager.focus()
        eager.move_cursor(row=[k.name for k in eager.kernels].index("aten::relu"))
        await wait_for(pilot, lambda: lesson.linked_lines == frozenset({7}), what="relu's line marked")
        assert "❱" in code_row(lesson, "r = s.relu()") and "❱" not in code_row(lesson, "s = a + b")
        compiled = screen.query_one("#compiled", KernelTable)
        compiled.focus()
        compiled.move_cursor(row=0)
        await wait_for(pilot, lambda: lesson.linked_lines == frozenset({6, 7, 8}), what="the fused kernel's lines")


async def test_the_editors_cursor_line_marks_its_kernels_in_both_tables():
    app = which_line_app()
    async with app.run_test(size=LARGE) as pilot:
        await run_it(pilot)
        screen = explorer(app)
        await pilot.press("e")
        await wait_for(pilot, lambda: bool(screen.query("#snippet-text")), what="the editor")
        await pilot.press("ctrl+r")
        draft = screen.session.document.path
        await wait_for(pilot, lambda: finished(app, draft), what="the draft's run")
        text_area = screen.query_one("#snippet-text")
        text_area.move_cursor((6, 4))  # line 7, 0-based 6
        eager, compiled = screen.query_one("#eager", KernelTable), screen.query_one("#compiled", KernelTable)
        await wait_for(pilot, lambda: eager.marked_line == 7 == compiled.marked_line, what="line 7 marked")
        said = shown_text(screen.query_one("#kernel-name"))
        assert "line 7 ›" in said and "aten::relu ×1" in said and FUSED in said, said
        relu_row = [k.name for k in eager.kernels].index("aten::relu")
        name_cell = eager.get_row_at(relu_row)[0]
        assert any(LINE_MARK in str(span.style) for span in name_cell.spans), "relu's row is marked"
        add_row = eager.get_row_at([k.name for k in eager.kernels].index("aten::add"))[0]
        assert not any(LINE_MARK in str(span.style) for span in add_row.spans)
        assert text_area.line_notes and 7 in text_area.line_notes, "the editor has the gutter's notes too"
        text_area.move_cursor((4, 0))  # line 5: def fn(a, b):
        await wait_for(pilot, lambda: eager.marked_line == 5)
        said = shown_text(screen.query_one("#kernel-name"))
        assert "line 7" not in said, "a quiet line leaves the line under the tables to the highlighted kernel"
        assert not any(
            LINE_MARK in str(span.style) for row in range(len(eager.kernels)) for span in eager.get_row_at(row)[0].spans
        )


def test_a_line_whose_work_vanished_compiled_says_so():
    links = CodeLinks()
    view = Kernel("aten::clone", "aten::clone", 1, 1.0, lines=(9,))
    links.work = {9: [LineWork(9, None, ((view, 1),), ())]}
    story = links.line_story(9).plain
    assert "eager aten::clone ×1 ⇒ compiled no compiled kernel" in story and "vanished" in story
    assert links.gutter(9, 20) == "1 ⇒ 0"


def test_snapshot_of_the_gutter_at_80x24(snap_compare):
    """After a run, key 2: the lesson's code with each line's kernels in its gutter."""

    async def run_before(pilot) -> None:
        await run_it(pilot)
        await pilot.press("2")
        lesson = explorer(pilot.app).query_one("#lesson", LessonView)
        await wait_for(pilot, lambda: "⇒" in shown_text(lesson.query_one("#lesson-source")), what="the gutter")
        lesson.scroll_end(animate=False)
        await pilot.pause()

    assert snap_compare(which_line_app(), terminal_size=SMALL, run_before=run_before)


async def test_the_gutter_follows_the_variant_shown_in_the_compiled_table():
    from test_ui_variants import row_names, run_to_the_end, variants_app, variants_table

    app = variants_app()
    async with app.run_test(size=LARGE) as pilot:
        await run_to_the_end(pilot)
        lesson = explorer(app).query_one("#lesson", LessonView)
        links = explorer(app).code_links
        (line,) = lesson.line_work
        assert links.gutter(line, 11) == "2 ⇒ 1 fused"
        table = variants_table(app)
        table.focus()
        table.move_cursor(row=row_names(app).index("no-compiler"))
        await pilot.press("enter")
        # That variant has no numbers: what the line became is not known, and the gutter does not guess.
        await wait_for(pilot, lambda: links.gutter(line, 11) == "2 ⇒ ?", what="the unmeasured variant's gutter")
        assert not lesson.line_work[line][0].vanished
        table.move_cursor(row=row_names(app).index("dynamic"))
        await pilot.press("enter")
        await wait_for(pilot, lambda: links.gutter(line, 40) == "2 ⇒ cpp_fused_add_relu_0", what="dynamic's kernel")
