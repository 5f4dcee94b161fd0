"""The code's gutter sits beside the line numbers on every course lesson, in the snippet editor and in the lesson
pane, at 120x36 and 80x24: each number whole, each note whole (or wrapped) and clear of the scrollbar, and the
editor opening on ``def fn`` with ``fn`` in view. No engine: each line of ``fn`` is given crafted work, the widest
words the gutter has."""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path

import pytest
from support.ui_support import explorer, finished, shown_text, wait_for
from test_ui_code_links import which_line_app
from textual.app import App, ComposeResult

from kernel_tui.model.report.kernel import Kernel
from kernel_tui.model.report.mode_result import ModeResult
from kernel_tui.text.by_line import LineWork, line_work
from kernel_tui.ui.state.course.catalog import load_catalog
from kernel_tui.ui.state.course.source import scenario_source
from kernel_tui.ui.state.snippets.snippet_session import opening_cursor
from kernel_tui.ui.view.code_gutter import WRAPPED_MIN_WIDTH, cell_texts, fitted, gutter_width
from kernel_tui.ui.widgets.lesson_view import LessonView
from kernel_tui.ui.widgets.snippet_text import SnippetTextArea, code_editor

COURSE = Path("scenarios")
LESSONS = sorted(COURSE.glob("[0-9][0-9]_*.py"))
PANES = {(120, 36): (44, 12, 42, 16), (80, 24): (80, 19, 78, 16)}
"""Per terminal size, the lesson pane's and the editor's text's width and height as the explorer lays them out
(measured with ``which_line.py``: the lesson beside the chart on a large terminal, a tab of its own on a small)."""

pytestmark = pytest.mark.usefixtures("from_the_repository")


def kernel(name: str, lines: tuple[int, ...], *ops: str) -> Kernel:
    return Kernel(name, name, 1, 1.0, 8, 8, lines=lines, aten_ops=ops)


def crafted_work(path: Path) -> dict[int, list[LineWork]]:
    """Every line of ``fn`` after its ``def`` with work, in turn a library call, one kernel, three operators
    fused, and one with a helper's line: every wording, and the longest."""
    (fn,) = [piece for piece in scenario_source(path.read_text()) if piece.name == "fn"]
    body = range(fn.first_line + 1, fn.first_line + len(fn.code.splitlines()))
    eager: list[Kernel] = []
    compiled: list[Kernel] = []
    for index, line in enumerate(body):
        match index % 3:
            case 0:
                eager.append(kernel("aten::addmm", (line,), "aten::addmm"))
                compiled.append(kernel("aten::addmm", (line,), "aten::addmm"))
            case 1:
                eager.append(kernel("aten::gelu", (line, 3), "aten::gelu"))
                compiled.append(kernel(f"cpp_fused_gelu_{line}", (line, 3), "aten::gelu"))
            case _:
                eager += [kernel(op, (line,), op) for op in ("aten::add", "aten::mul", "aten::relu")]
                ops = ("aten::add", "aten::mul", "aten::relu")
                compiled.append(kernel(f"cpp_fused_add_mul_relu_with_a_long_name_{line}", (line,), *ops))
    work = line_work(mode(eager), mode(compiled))
    return {line: parts for line, parts in work.items() if line in body}


def mode(kernels: list[Kernel]) -> ModeResult:
    return ModeResult(kernel_count=len(kernels), kernels=tuple(kernels), bytes_total=0, time_us=1.0)


def screen_rows(app: App[None]) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


def code_lines(path: Path) -> dict[int, str]:
    return dict(enumerate(path.read_text().splitlines(), start=1))


class OnePane(App[None]):
    """A widget alone, at the size the explorer gives it."""

    def __init__(self, widget: LessonView | SnippetTextArea, width: int, height: int) -> None:
        super().__init__()
        self.widget, self.width, self.height = widget, width, height

    def compose(self) -> ComposeResult:
        yield self.widget

    def on_mount(self) -> None:
        self.widget.styles.width, self.widget.styles.height = self.width, self.height
        if isinstance(self.widget, SnippetTextArea):
            self.widget.styles.border = ("none", "black")  # as in the editor pane (snippets.tcss)


def shows(app: App[None], pattern: re.Pattern[str]) -> bool:
    return any(pattern.search(row) for row in screen_rows(app))


def first_word(code: str) -> str:
    """What of a line is sure to be on its first row: a long line wraps in a narrow pane."""
    return code.split()[0]


def check_row(row: str, number: int, code: str, note: str | None, right_edge: int) -> None:
    """``number`` whole, right before its code; ``note`` (where given) whole before it, clear of the scrollbar."""
    found = re.search(rf"(^|[\s❱▶]){number}\s+{re.escape(first_word(code))}", row)
    assert found, f"line {number} is not whole before its code: {row!r}"
    if note is not None:
        assert note in row[: found.start() + 1], f"line {number}'s note {note!r} is not beside its number: {row!r}"
        assert row.index(note) + len(note) < right_edge, f"line {number}'s note runs under the scrollbar: {row!r}"


@pytest.mark.parametrize("size", list(PANES), ids=lambda size: f"{size[0]}x{size[1]}")
@pytest.mark.parametrize("path", LESSONS, ids=lambda path: path.stem[:2])
async def test_the_editors_gutter_is_beside_the_numbers_on_every_lesson(path: Path, size: tuple[int, int]) -> None:
    *_, width, height = PANES[size]
    text = path.read_text()
    text_area = code_editor(text, id="snippet-text")
    text_area.start_cursor = opening_cursor(text)
    work = crafted_work(path)
    fn_first = opening_cursor(text)[0] + 1
    fn_last = max(work)
    async with OnePane(text_area, width, height).run_test(size=size) as pilot:
        await pilot.pause()
        top = text_area.scroll_offset.y
        rows_shown = text_area.scrollable_content_region.height
        # At the top where the file goes on long enough, else as far down as it scrolls: fn whole either way.
        assert top == min(fn_first - 1, text_area.max_scroll_y), "it opens on def fn"
        assert top < fn_first and fn_last <= top + rows_shown, "fn whole in view"
        text_area.show_lines(work, {}, frozenset({fn_last}))
        text_area.mark_line(fn_first)
        await pilot.pause()
        rows = screen_rows(pilot.app)
        code = code_lines(path)
        for number in range(fn_first, fn_last + 1):
            row = rows[number - 1 - top]
            # The notes column is a third of the pane: the name where it fits, else the words (cut where even they
            # do not fit: the line under the tables says them whole).
            note = fitted(cell_texts(work[number], None), text_area.notes_width) if number in work else None
            check_row(row, number, code[number], note, width - text_area.scrollbar_size_vertical)
        assert "❱" in rows[fn_last - 1 - top] and "▶" in rows[fn_first - 1 - top], "marks in a column of their own"


@pytest.mark.parametrize("size", list(PANES), ids=lambda size: f"{size[0]}x{size[1]}")
@pytest.mark.parametrize("path", LESSONS, ids=lambda path: path.stem[:2])
async def test_the_lessons_gutter_is_beside_the_numbers_on_every_lesson(path: Path, size: tuple[int, int]) -> None:
    width, height, *_ = PANES[size]
    (entry,) = load_catalog([path], COURSE)
    lesson = LessonView(id="lesson")
    work = crafted_work(path)
    async with OnePane(lesson, width, height).run_test(size=size) as pilot:
        # Shown before the Markdown widget mounts, so that it mounts with this lesson: an update after it would
        # scroll the pane back to the top when it lands.
        lesson.show(entry)
        lesson.show_work(work, frozenset({max(work)}))
        await wait_for(pilot, lambda: bool(lesson.query("#lesson-text")), what="the Markdown")
        await pilot.pause()
        code = code_lines(path)
        for number, parts in sorted(work.items()):
            # The line cursor (j's, handed on by the explorer) scrolls the pane to the line, into view
            lesson.show_work(work, frozenset({max(work)}), cursor=number)
            pattern = re.compile(rf"[\s❱▶]{number}\s+{re.escape(first_word(code[number]))}")
            await wait_for(pilot, partial(shows, pilot.app, pattern), what=f"line {number}")
            rows = screen_rows(pilot.app)
            (row,) = [row for row in rows if pattern.search(row)]
            full, short = cell_texts(parts, None)
            column = gutter_width(work, lesson.scrollable_content_region.width, minimum=WRAPPED_MIN_WIDTH)
            note = full if len(full) <= column else short
            # A note too long for its column wraps: its start is beside the number, the rest below it.
            check_row(row, number, code[number], note.split(" ⇒ ")[0] + " ⇒", width - lesson.scrollbar_size_vertical)
            source_rows = shown_text(lesson.query_one("#lesson-source")).splitlines()
            (start,) = [index for index, source_row in enumerate(source_rows) if pattern.search(source_row)]
            cell = []
            for offset, source_row in enumerate(source_rows[start:]):
                next_line = offset and re.match(r"\s*[❱▶]?\d+\s", source_row[column:])
                if next_line or not source_row[:column].strip():
                    break
                cell.append(source_row[:column].strip())
            assert " ".join(cell) == note, f"line {number}'s note is whole in its column: {cell}"


async def test_the_explorers_editor_opens_on_fn_tall_enough_to_read_it_at_120x36() -> None:
    app = which_line_app()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = explorer(app)
        await wait_for(pilot, lambda: screen.hello is not None)
        await pilot.press("e")
        await wait_for(pilot, lambda: bool(screen.query("#snippet-text")), what="the editor")
        await pilot.pause()
        text_area = screen.query_one("#snippet-text", SnippetTextArea)
        fn_lines = 4  # which_line.py's fn: lines 5-8, inputs 11-12
        assert text_area.scrollable_content_region.height >= fn_lines + 4, "fn and inputs whole"
        assert text_area.cursor_location == (4, 0), "the cursor on def fn"
        await pilot.press("ctrl+r")
        assert screen.session.document is not None
        draft = screen.session.document.path
        await wait_for(pilot, lambda: finished(app, draft), what="the draft's run")
        await wait_for(pilot, lambda: bool(text_area.line_work), what="the gutter")
        await pilot.pause()
        rows = screen_rows(app)
        for number, code in ((6, "s = a + b"), (7, "r = s.relu()"), (8, "return r * 2")):
            (row,) = [row for row in rows if code in row]
            check_row(row, number, code, "1 ⇒ 1 fused", 120)


async def test_the_lesson_gutter_says_kernel_and_library_call_where_nothing_fused(tmp_path: Path) -> None:
    """``gelu_linear.py`` as measured on CPU, shown again by ``view``: its GELU is one kernel and its Linear (in
    the helper ``project``) a library call; the gutter said ``1 fused`` for both."""
    import json

    from kernel_tui.model.storage.results_file import read_results
    from kernel_tui.ui.app.view_app import build_view_app
    from kernel_tui.ui.link.view_link import saved_reports

    results = tmp_path / "results.jsonl"
    results.write_text(json.dumps(json.loads(Path("tests/data/gelu_linear_report.json").read_text())) + "\n")
    app = build_view_app(saved_reports(read_results(results), results), clock=lambda: 1000.0)
    async with app.run_test(size=(120, 36)) as pilot:
        lesson = explorer(app).query_one("#lesson", LessonView)
        await wait_for(pilot, lambda: bool(lesson.query("#lesson-text")), what="the Markdown")
        await pilot.press("r")
        await wait_for(pilot, lambda: bool(lesson.line_work), what="the gutter")
        await pilot.pause()
        code = shown_text(lesson.query_one("#lesson-source"))
        # Named where the name fits the column (the library call aten::mm), counted where it does not.
        assert "1 ⇒ 1 kernel" in code and "1 ⇒ aten::mm" in code, code
        assert " fused" not in code, code


async def test_a_course_copy_keeps_fn_in_view_through_a_layout_change() -> None:
    """The editor is built again when the layout changes (120x36 to 80x24): it scrolled only far enough to show
    the cursor on ``def fn`` at its bottom row, the body below the fold."""
    from support.ui_support import make_app

    lesson = COURSE / "26_an_mlp_block.py"
    app = make_app(paths=(lesson,), course=COURSE)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = explorer(app)
        await wait_for(pilot, lambda: screen.hello is not None)
        await pilot.press("e")
        await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "snippet-text", what="the editor")
        await pilot.press("escape")
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: not screen.wide, what="the small layout")
        await pilot.press("5")
        await wait_for(pilot, lambda: bool(screen.query("#snippet-text")), what="the editor again")
        text_area = screen.query_one("#snippet-text", SnippetTextArea)
        await wait_for(pilot, lambda: text_area.scrollable_content_region.height > 0, what="its size")
        await pilot.pause(0.2)
        fn_first = opening_cursor(lesson.read_text())[0] + 1
        fn_last = max(crafted_work(lesson))
        top, rows = text_area.scroll_offset.y, text_area.scrollable_content_region.height
        assert top < fn_first and fn_last <= top + rows, (
            f"fn (lines {fn_first}-{fn_last}) in rows {top + 1}-{top + rows}"
        )
