"""Every course kernel's name whole on the learner's screen (issue 36): in the explorer's tables at 120x36 and
at 80x24, where the name column gets its width before any figure column; in the name line under them for the
highlighted kernel, full name and all; in the roofline's legend; and a table's subtitle keeps ``you said N ✓``
where it has to leave something out.

The reports are real engine output, opened as saved results (nothing runs, no torch is imported): the whole
course on a CPU (``tests/data/course_cpu.jsonl``, recorded with ``kernel-tui run scenarios/ --device cpu
--no-sweep --json``) and previewed for sm_90 (``tests/data/preview/course_sm90.jsonl``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.locations import REPO
from support.ui_support import explorer, finished, shown_text, wait_for
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget

from kernel_tui.model.storage.results_file import read_results
from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.app.view_app import build_view_app
from kernel_tui.ui.link.view_link import saved_reports
from kernel_tui.ui.widgets.charts.runtime_chart import RuntimeChart
from kernel_tui.ui.widgets.kernel_name import KernelNameLine
from kernel_tui.ui.widgets.kernel_table import KernelTable

DATA = REPO / "tests" / "data"
COURSE_RECORDINGS = {"cpu": DATA / "course_cpu.jsonl", "sm90": DATA / "preview" / "course_sm90.jsonl"}
SIZES = {"120x36": (120, 36), "80x24": (80, 24)}
LESSONS = len(list((REPO / "scenarios").glob("[0-9][0-9]_*.py")))
"""The course's lessons, each of which both recordings hold (a new lesson is recorded with them)."""


def course_app(recording: Path, tmp_path: Path) -> KernelTuiApp:
    """The explorer on a recorded course, each report naming this checkout's lesson (the recordings name the
    checkout they were made in); predictions off, so that ``r`` shows each lesson's tables at once."""
    lines = []
    for line in recording.read_text().splitlines():
        data = json.loads(line)
        data["scenario"] = str(REPO / "scenarios" / Path(data["scenario"]).name)
        lines.append(json.dumps(data))
    saved = tmp_path / recording.name
    saved.write_text("\n".join(lines) + "\n")
    reports = read_results(saved)
    assert len(reports) == LESSONS, f"{recording.name} holds {len(reports)} lessons"
    return build_view_app(saved_reports(reports, saved), clock=lambda: 1000.0, predict=False)


def drawn(widget: Widget) -> list[str]:
    """A widget as drawn, border and all, each line as plain text."""
    return [strip.text for strip in widget.render_lines(Region(0, 0, *widget.outer_size))]


def on_screen(pilot: Pilot[None], widget: Widget) -> bool:
    """Whether the whole of ``widget`` lies inside the screen (the kernels tab scrolls at 80x24)."""
    return pilot.app.screen.region.contains_region(widget.region) and widget.region.height > 0


async def show_current(pilot: Pilot[None]) -> Path:
    """Show the saved run of the lesson on screen; return its path."""
    path = explorer(pilot.app).entry.path
    await pilot.press("r")
    await wait_for(pilot, lambda: finished(pilot.app, path), what=f"the saved {path.name} to be shown")
    return path


async def show_lesson(pilot: Pilot[None], prefix: str) -> None:
    """Move to the lesson whose file starts with ``prefix`` and show its saved run.

    In one step, as ``n`` held down moves (``action_move``: the explorer shows only the entry the list stops on):
    pressed one at a time and waited on, ``n`` showed each lesson on the way, twenty lessons' text and code
    drawn for nothing these tests look at. ``n`` itself is tested in ``test_ui_app``."""
    screen = explorer(pilot.app)
    (index,) = [index for index, path in enumerate(screen.catalog.paths()) if path.name.startswith(prefix)]
    screen.catalog.select(index)
    await show_current(pilot)
    assert screen.entry.path.name.startswith(prefix)


async def show_each_lesson(pilot: Pilot[None]) -> list[str]:
    """Show every lesson of the course in turn; after each, check its tables; return the lessons checked."""
    app = pilot.app
    checked = []
    for _ in range(LESSONS):
        screen = explorer(app)
        path = await show_current(pilot)
        await pilot.pause()
        for mode in ("eager", "compiled"):
            assert_names_whole(screen.query_one(f"#{mode}", KernelTable), path.name)
        checked.append(path.name)
        await pilot.press("n")
        await pilot.pause()
    return checked


def assert_names_whole(table: KernelTable, lesson: str) -> None:
    lines = drawn(table)
    for row in table.shown_rows:
        if row.kernel is None:
            continue
        # The name cell: after the border and the cell's padding, the whole name, then at least a space.
        assert any(line.startswith(f"│ {row.name} ") for line in lines), (lesson, table.mode, row.name, lines)


@pytest.mark.long  # every lesson shown in turn, about a minute each on a busy machine: make test runs them
@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
@pytest.mark.parametrize("recording", COURSE_RECORDINGS.values(), ids=COURSE_RECORDINGS.keys())
async def test_every_course_kernel_name_is_whole_in_the_tables(
    recording: Path, size: tuple[int, int], tmp_path: Path
) -> None:
    app = course_app(recording, tmp_path)
    async with app.run_test(size=size) as pilot:
        if size == SIZES["80x24"]:
            await pilot.press("3")  # the kernels tab
        checked = await show_each_lesson(pilot)
    assert len(set(checked)) == LESSONS, checked


@pytest.mark.parametrize("recording", COURSE_RECORDINGS.values(), ids=COURSE_RECORDINGS.keys())
async def test_at_80x24_the_name_line_shows_the_highlighted_kernels_full_name_on_screen(
    recording: Path, tmp_path: Path
) -> None:
    """The lessons with the longest full names (a training step's backward kernels, lesson 23), every row."""
    app = course_app(recording, tmp_path)
    async with app.run_test(size=SIZES["80x24"]) as pilot:
        screen = explorer(app)
        await show_lesson(pilot, "23_")
        await pilot.press("3")
        line = screen.query_one(KernelNameLine)
        for mode in ("eager", "compiled"):
            table = screen.query_one(f"#{mode}", KernelTable)
            table.focus()
            for index, row in enumerate(table.shown_rows):
                table.move_cursor(row=index)
                await pilot.pause()
                if row.kernel is None:
                    continue
                shown = shown_text(line).splitlines()
                assert any(f"{mode} › {row.kernel.name} " in text for text in shown), (row.kernel.name, shown)
                assert on_screen(pilot, line), f"the name line is off the screen at {row.kernel.name}"


@pytest.mark.long  # sixty widths, a column at a time
@pytest.mark.parametrize("size", SIZES.values(), ids=SIZES.keys())
async def test_the_subtitle_leaves_out_the_bound_before_what_the_learner_said(
    size: tuple[int, int], tmp_path: Path
) -> None:
    """Lesson 21 on the CPU: its eager subtitle (launches, bytes, time, bound) and ``you said 5 ✓`` are wider
    than the table at 80 columns; the bound goes, the learner's answer stays whole."""
    app = course_app(COURSE_RECORDINGS["cpu"], tmp_path)
    async with app.run_test(size=size) as pilot:
        await show_lesson(pilot, "21_")
        await pilot.press("3")
        eager = explorer(app).query_one("#eager", KernelTable)
        assert eager.result is not None and eager.result.bound is not None
        eager.show_prediction(round(eager.result.kernel_count))  # as the explorer does once a guess is revealed
        await pilot.pause()
        bottom = drawn(eager)[-1]
        assert round(eager.result.kernel_count) == 5 and bottom.endswith(" · you said 5 ✓ ─╯"), bottom
        assert "…" not in bottom and bottom.lstrip("╰─ ").startswith("5 launches"), bottom
        assert ("memory-bound" in bottom) is (size == SIZES["120x36"]), bottom
        # A column at a time (within the layout: under 120x36 the explorer changes to tabs), Textual never has
        # to cut the subtitle: it always fits whole.
        for width in range(size[0], 60, -1) if size == SIZES["80x24"] else range(size[0], 161):
            await pilot.resize_terminal(width, size[1])
            await pilot.pause()
            bottom = drawn(eager)[-1]
            assert "…" not in bottom and bottom.endswith(" you said 5 ✓ ─╯"), (width, bottom)


@pytest.mark.parametrize("lesson", ["02_", "03_"])
async def test_the_roofline_legend_names_the_highlighted_kernel_whole(lesson: str, tmp_path: Path) -> None:
    """The issue read ``◆ compiled cpp…d_relu_0`` at 120x36; lesson 3's name is the course's longest on the CPU
    roofline (``cpp_fused_abs_add_exp_mul_neg_sin_sqrt_0``, 40 characters). The other entries give way first."""
    app = course_app(COURSE_RECORDINGS["cpu"], tmp_path)
    async with app.run_test(size=SIZES["120x36"]) as pilot:
        await show_lesson(pilot, lesson)
        screen = explorer(app)
        chart = screen.query_one(RuntimeChart)
        while chart.mode != "roofline":
            await pilot.press("b")
        compiled = screen.query_one("#compiled", KernelTable)
        compiled.focus()
        kernel = next(k for k in compiled.kernels if k.gflops and k.name.startswith("cpp_"))
        compiled.move_cursor(row=compiled.kernels.index(kernel))
        legend = chart.query_one("#chart-legend")
        # As drawn, padding and all: ``shown_text`` crops a padded widget's last column.
        await wait_for(pilot, lambda: kernel.short_name in "".join(drawn(legend)), what=f"{kernel.short_name} shown")
        lines = drawn(legend)
        assert len(lines) <= 2 and any(kernel.short_name in line for line in lines), lines
        assert chart.highlight == ("compiled", kernel) and f"◆ compiled {kernel.short_name}" in " ".join(
            " ".join(lines).split()
        ), lines
