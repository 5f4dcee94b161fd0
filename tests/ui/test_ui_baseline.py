"""``B`` pins a run as its scenario's baseline; later runs show per kernel what was added, removed or changed.

Two real recordings play the two runs of ``ui_add_relu.py``: its own (``ui_add_relu_messages.json``, size
2**20), then ``add_relu_then_scale.py`` recorded at size 2**19 (``ui_add_relu_then_scale_messages.json``),
replayed as the next run of the same file, as an edit that adds a ``* 2`` would be. Against the first, the
second adds one kernel per mode and halves every kept kernel's bytes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.replay import Recording, ReplayEngineLink
from support.ui_support import (
    ADD_RELU,
    DATA,
    PICTURED,
    SnapCompare,
    explorer,
    make_app,
    make_link,
    run_to_the_end,
    shown_text,
    still_app,
    wait_for,
)
from textual.pilot import Pilot

from kernel_tui.model.compare.baseline_marks import ADDED, CHANGED, SAME
from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.transport.protocol import Done
from kernel_tui.transport.run_record import RunRecord
from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.screens.dialogs.help import HelpScreen
from kernel_tui.ui.state.kernel_rows import kernel_rows
from kernel_tui.ui.state.pinned_baselines import PinnedBaselines
from kernel_tui.ui.state.run_state import ScenarioRun
from kernel_tui.ui.state.snippets.drafts import Draft, scenario_of
from kernel_tui.ui.widgets.kernel_table import KernelTable
from kernel_tui.ui.widgets.summary_strip import SummaryStrip

WIDE = (160, 48)
THEN_SCALE = Recording.load(DATA / "ui_add_relu_then_scale_messages.json")
"""Recorded from ``add_relu_then_scale.py``; a replay answers with it for any file its ``scenario`` names."""


def next_run_replays(link: ReplayEngineLink, recording: Recording) -> None:
    """The next run of ``ui_add_relu.py`` replays ``recording``, as if the file had been edited meanwhile."""
    link.recordings[ADD_RELU.name] = recording


def table(app: KernelTuiApp, mode: str) -> KernelTable:
    return explorer(app).query_one(f"#{mode}", KernelTable)


def summary(app: KernelTuiApp) -> str:
    return shown_text(explorer(app).query_one(SummaryStrip))


def marks(app: KernelTuiApp, mode: str) -> dict[str, tuple[str, str]]:
    """Each row's status and note against the baseline, by kernel name."""
    return {
        row.name.strip(): (row.change.status if row.change else "", row.note) for row in table(app, mode).shown_rows
    }


def notifications(app: KernelTuiApp) -> list[str]:
    return [notification.message for notification in app._notifications]


async def test_b_pins_and_the_next_run_shows_what_was_added_and_changed_and_b_unpins() -> None:
    link = make_link()
    app = make_app(link)
    async with app.run_test(size=WIDE) as pilot:
        await run_to_the_end(pilot)
        screen = explorer(app)
        first = screen.runs[ADD_RELU]
        assert "against the run pinned" not in summary(app)

        await pilot.press("B")
        assert screen.baselines.is_pinned(first)
        assert any("Pinned as the baseline of Add, then ReLU" in message for message in notifications(app))
        assert "this run is pinned · B unpins it" in summary(app)
        assert all(not row.mark for row in table(app, "compiled").shown_rows), "the pinned run is compared with nothing"

        next_run_replays(link, THEN_SCALE)
        await run_to_the_end(pilot)
        assert marks(app, "eager") == {
            "aten::add": (CHANGED, "-6.0 MiB"),
            "aten::relu": (CHANGED, "-4.0 MiB"),
            "aten::mul": (ADDED, ""),
        }
        assert marks(app, "compiled") == {
            "cpp_fused_add_relu_0": (CHANGED, "-6.0 MiB"),
            "cpp_fused_mul_0": (ADDED, ""),
        }
        compiled = table(app, "compiled")
        assert [compiled.get_row_at(row)[0].plain for row in range(compiled.row_count)] == [
            "~ cpp_fused_add_relu_0  -6.0 MiB",
            "+ cpp_fused_mul_0",
        ]
        shown = summary(app)
        assert "against the run pinned with B (size 1,048,576 → 524,288)" in shown
        assert "eager: 2 → 3 launches (+1), 20.0 MiB → 14.0 MiB (-6.0 MiB)" in shown
        assert "compiled: 1 → 2 launches (+1), 12.0 MiB → 10.0 MiB (-2.0 MiB)" in shown
        # The first recording has no spread, so a time change is given but cannot be judged.
        assert "time 213.0 µs → 2.42 ms (11.4× slower, spread unknown)" in shown

        await pilot.press("B")  # on a later run: it becomes the baseline in the first one's place
        assert screen.baselines.is_pinned(screen.runs[ADD_RELU]) and not screen.baselines.is_pinned(first)
        await pilot.press("B")
        assert not screen.baselines.is_pinned(screen.runs[ADD_RELU])
        assert any(message == "Unpinned the baseline of Add, then ReLU" for message in notifications(app))
        shown = summary(app)
        assert "pinned" not in shown and "launches (+1)" not in shown
        assert all(not row.mark and row.change is None for row in table(app, "eager").shown_rows)


async def test_a_kernel_the_baseline_launched_and_the_run_does_not_is_a_dimmed_row() -> None:
    link = make_link()
    next_run_replays(link, THEN_SCALE)
    app = make_app(link)
    async with app.run_test(size=WIDE) as pilot:
        await run_to_the_end(pilot)
        await pilot.press("B")
        next_run_replays(link, Recording.load(DATA / "ui_add_relu_messages.json"))
        await run_to_the_end(pilot)
        eager = table(app, "eager")
        assert [(row.mark, row.name) for row in eager.shown_rows] == [
            ("~ ", "aten::add"),
            ("~ ", "aten::relu"),
            ("- ", "aten::mul"),
        ]
        assert [kernel.short_name for kernel in eager.kernels] == ["aten::add", "aten::relu"]
        removed = eager.shown_rows[2]
        assert removed.removed and removed.kernel is None
        eager.move_cursor(row=2)
        assert eager.highlighted_kernel() is None, "a removed kernel is none of this run's kernels"
        cell = eager.get_row_at(2)
        assert cell[0].plain == "- aten::mul" and "dim" in str(cell[0].spans[-1].style)
        assert cell[3].plain == "4.0 MiB", "a removed kernel shows the bytes it moved in the baseline"
        assert "eager: 3 → 2 launches (-1), 14.0 MiB → 20.0 MiB (+6.0 MiB)" in summary(app)


async def test_the_same_code_again_is_no_measurable_difference() -> None:
    link = make_link()
    next_run_replays(link, THEN_SCALE)
    app = make_app(link)
    async with app.run_test(size=WIDE) as pilot:
        await run_to_the_end(pilot)
        await pilot.press("B")
        await run_to_the_end(pilot)
        assert {status for status, _ in marks(app, "compiled").values()} == {SAME}
        shown = summary(app)
        assert "compiled: 2 → 2 launches (same), 10.0 MiB → 10.0 MiB (same)" in shown
        assert "time 2.42 ms → 2.42 ms: no measurable difference" in shown


async def test_b_needs_a_finished_run_and_help_lists_it() -> None:
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await pilot.pause()
        screen = explorer(app)
        assert screen.check_action("pin_baseline", ()) is False
        await pilot.press("B")
        assert not notifications(app)
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert "Pin / unpin baseline" in titles
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
        text = "".join(shown_text(static) for static in app.screen.query("Static"))
        assert "Pin (or unpin) this run as the baseline" in text


def test_a_drafts_runs_count_as_its_scenarios(tmp_path: Path) -> None:
    scenario, draft_path = tmp_path / "lesson.py", tmp_path / "drafts" / "snippet.py"
    drafts = {draft_path: Draft(draft_path, based_on=scenario)}
    baselines = PinnedBaselines(lambda path: scenario_of(path, drafts))
    assert scenario_of(tmp_path / "other.py", drafts) == tmp_path / "other.py"
    pinned = finished_run(1, scenario, final_report(Recording.load(DATA / "ui_add_relu_messages.json")))
    assert baselines.toggle(pinned)
    edited = finished_run(2, draft_path, final_report(THEN_SCALE))
    comparison = baselines.comparison(edited)
    assert comparison is not None and comparison.grew, "the draft's run is compared with the lesson's pin"
    assert baselines.comparison(finished_run(3, tmp_path / "other.py", final_report(THEN_SCALE))) is None
    running = ScenarioRun(RunRecord(4, draft_path, sweep=False, report=final_report(THEN_SCALE)), started_at=0.0)
    assert baselines.comparison(running) is None, "a run still going has no compiled side to compare yet"
    assert not baselines.toggle(pinned), "B on the pinned run unpins it"
    assert baselines.comparison(edited) is None


def final_report(recording: Recording) -> ScenarioReport:
    return next(message.report for message in reversed(recording.messages) if isinstance(message, Done))


def finished_run(run_id: int, path: Path, report: ScenarioReport) -> ScenarioRun:
    run = ScenarioRun(RunRecord(run_id, path, sweep=False), started_at=0.0)
    run.take(Done(run_id, report), now=1.0)
    return run


def test_rows_without_a_baseline_are_the_kernels_as_before() -> None:
    report = final_report(THEN_SCALE)
    assert report.compiled is not None
    rows = kernel_rows(report.compiled)
    assert [row.label for row in rows] == ["cpp_fused_add_relu_0", "cpp_fused_mul_0"]
    assert all(row.change is None and row.heading is None for row in rows)


@pytest.mark.usefixtures("from_the_repository")
def test_picture_of_a_run_against_its_baseline(snap_compare: SnapCompare) -> None:
    """160x48: both tables marked against the pinned run, and the summary's baseline lines under the totals."""
    link = make_link()
    app = still_app(link)

    async def run_before(pilot: Pilot[None]) -> None:
        screen = explorer(app)
        await wait_for(pilot, lambda: screen.hello is not None and bool(screen.query("RuntimePlot")))
        await run_to_the_end(pilot, PICTURED[0])
        await pilot.press("B")
        next_run_replays(link, THEN_SCALE)
        await run_to_the_end(pilot, PICTURED[0])
        app.clear_notifications()  # the toasts fade on a timer; the picture is of what stays
        await pilot.pause()

    assert snap_compare(app, terminal_size=WIDE, run_before=run_before)


async def test_added_and_removed_names_are_whole_at_80_columns_and_cut_in_the_middle_narrower() -> None:
    """At 80 columns every name is whole, its change note too: the name column gets its width before any figure
    column. Narrower, ``+ cpp_fused…`` and ``- cpp_fused…`` would read the same: the end of a kernel's name
    is what tells it from another, so a name too long for its column loses its middle."""
    link = make_link()
    next_run_replays(link, THEN_SCALE)
    app = make_app(link)
    async with app.run_test(size=(80, 24)) as pilot:
        await run_to_the_end(pilot)
        await pilot.press("B")
        next_run_replays(link, Recording.load(DATA / "ui_add_relu_messages.json"))
        await run_to_the_end(pilot)
        await pilot.press("3")
        await pilot.pause()
        compiled = table(app, "compiled")
        cells = [compiled.get_row_at(row)[0].plain for row in range(compiled.row_count)]
        assert cells == [row.label for row in compiled.shown_rows], "whole at 80 columns"
        await pilot.resize_terminal(34, 24)
        await pilot.pause()
        assert compiled.plan is not None
        width = compiled.plan.name_width
        cells = [compiled.get_row_at(row)[0].plain for row in range(compiled.row_count)]
        assert all(len(cell) <= width for cell in cells), (cells, width)
        assert len(set(cells)) == len(cells) and cells[-1].startswith("- "), cells
        assert cells[-1].endswith("mul_0"), "the distinguishing end is kept"
        assert any("…" in cell for cell in cells), f"the test needs a cut name at {width} columns: {cells}"
