"""Compile variants in the explorer: the variants table, a variant's kernels in the compiled table, and the
``v`` dialog that hides and shows variants and adds one for the next runs, driven by keys (Pilot).

``ui_variants_messages.json`` is a real run (``tests/data/record_messages.py``) of ``ui_variants.py`` on a CPU:
``dynamic``, ``reduce-overhead`` (whose CUDA graphs a CPU skips, with a note) and ``no-compiler`` (which
cannot compile: an error in its own row).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.locations import REPO
from support.replay import ReplayEngineLink
from support.ui_support import (
    ADD_RELU,
    DATA,
    RECORDINGS,
    SnapCompare,
    explorer,
    finished,
    make_app,
    run_to_the_end,
    shown_text,
    tab_shown,
    wait_for,
)
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input, SelectionList

from kernel_tui.model.report.compile_variants import parse_variant_flag
from kernel_tui.text.formatting import variant_rows
from kernel_tui.transport.protocol import Done
from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.link.engine_link import ClientEngineLink, CompileVariants
from kernel_tui.ui.link.run_lifecycle import RunMessages
from kernel_tui.ui.screens.dialogs.variants import VariantsScreen
from kernel_tui.ui.widgets.kernel_table import KernelTable
from kernel_tui.ui.widgets.variants_table import (
    COMPACT_HEADERS,
    ERROR_MARK,
    NO_NUMBERS,
    NOTE_MARK,
    VariantsPane,
    VariantsTable,
)

WIDE = (160, 48)
SMALL = (80, 24)
VARIANTS_FILE = DATA / "ui_variants.py"
VARIANTS_RECORDING = DATA / "ui_variants_messages.json"
RECORDED = ("dynamic", "reduce-overhead", "no-compiler")
CPU_GRAPHS_NOTE = "CUDA graphs need a CUDA device"
"""The start of the recorded note of ``reduce-overhead`` on a CPU."""


def variants_link() -> ReplayEngineLink:
    return ReplayEngineLink.from_files(*RECORDINGS, VARIANTS_RECORDING)


def variants_app(link: ReplayEngineLink | None = None) -> KernelTuiApp:
    return make_app(link if link is not None else variants_link(), paths=(VARIANTS_FILE, ADD_RELU))


def pane(app: KernelTuiApp) -> VariantsPane:
    return explorer(app).query_one("#variants", VariantsPane)


def variants_table(app: KernelTuiApp) -> VariantsTable:
    return explorer(app).query_one("#variants-table", VariantsTable)


def row_names(app: KernelTuiApp) -> list[str]:
    return [name for name, _ in variants_table(app).rows_shown]


def drawn(widget: Widget) -> str:
    """A widget as drawn, border and all (``shown_text`` covers only its content height)."""
    lines = widget.render_lines(Region(0, 0, *widget.outer_size))
    return "\n".join(strip.text.rstrip() for strip in lines)


def notes_text(app: KernelTuiApp) -> str:
    return shown_text(explorer(app).query_one("#variant-notes"))


async def open_dialog(pilot: Pilot[None]) -> VariantsScreen:
    await pilot.press("v")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, VariantsScreen), what="the variants dialog")
    dialog = pilot.app.screen
    assert isinstance(dialog, VariantsScreen)
    return dialog


async def add_variant(pilot: Pilot[None], dialog: VariantsScreen, text: str) -> None:
    field = dialog.query_one("#variant-input", Input)
    field.focus()
    await pilot.pause()
    field.value = text
    await pilot.press("enter")


@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["160x48", "80x24"])
async def test_the_variants_table_shows_every_variant_with_its_note(size: tuple[int, int]) -> None:
    app = variants_app()
    async with app.run_test(size=size) as pilot:
        await run_to_the_end(pilot, VARIANTS_FILE)
        shown = explorer(app).shown_run
        assert shown is not None
        report = shown.record.report
        assert pane(app).display and pane(app).has_class("-shown")
        assert row_names(app) == ["eager", "compiled", *RECORDED]
        assert report is not None
        assert variants_table(app).rows_shown == variant_rows(report)
        # An 80-column pane drops the spread and joins breaks and recompiles, so no row needs scrolling.
        assert variants_table(app).compact == (size == SMALL)
        if size == SMALL:
            assert len(variants_table(app).columns) == 1 + len(COMPACT_HEADERS)
        assert variants_table(app).virtual_size.width <= variants_table(app).scrollable_content_region.width
        notes = " ".join(notes_text(app).split())
        assert f"reduce-overhead: {CPU_GRAPHS_NOTE}" in notes
        assert "no-compiler:" in notes and "compile" in notes
        table = drawn(variants_table(app))
        for name in RECORDED:
            assert name in table
        failed = variants_table(app).get_row("no-compiler")
        assert str(failed[0]).split() == ["no-compiler", ERROR_MARK]  # a Text reads as its plain text
        assert {str(cell) for cell in failed[1:]} == {NO_NUMBERS}
        noted = variants_table(app).get_row("reduce-overhead")
        assert str(noted[0]).split() == ["reduce-overhead", NOTE_MARK]


async def test_a_scenario_without_variants_shows_no_variants_table() -> None:
    app = variants_app()
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("n")
        await run_to_the_end(pilot, ADD_RELU)
        assert explorer(app).entry.path == ADD_RELU
        assert not pane(app).display or not pane(app).has_class("-shown")
        assert pane(app).region.height == 0


async def test_enter_on_a_variant_shows_its_kernels_in_the_compiled_table() -> None:
    app = variants_app()
    async with app.run_test(size=WIDE) as pilot:
        await run_to_the_end(pilot, VARIANTS_FILE)
        shown = explorer(app).shown_run
        assert shown is not None
        report = shown.record.report
        compiled = explorer(app).query_one("#compiled", KernelTable)
        assert report is not None
        assert report.compiled is not None
        assert compiled.kernels == report.compiled.kernels
        table = variants_table(app)
        table.focus()
        table.move_cursor(row=row_names(app).index("dynamic"))
        await pilot.press("enter")
        await pilot.pause()
        assert report.variants["dynamic"].measured is not None
        assert compiled.kernels == report.variants["dynamic"].measured.kernels
        assert compiled.border_title == "Compiled · dynamic"
        table.move_cursor(row=row_names(app).index("compiled"))
        await pilot.press("enter")
        await pilot.pause()
        assert compiled.kernels == report.compiled.kernels
        assert compiled.border_title == "Compiled"


async def test_v_hides_and_shows_a_variant() -> None:
    app = variants_app()
    async with app.run_test(size=WIDE) as pilot:
        await run_to_the_end(pilot, VARIANTS_FILE)
        dialog = await open_dialog(pilot)
        listing = dialog.query_one("#variants-list", SelectionList)
        assert [listing.get_option_at_index(i).value for i in range(listing.option_count)] == list(RECORDED)
        assert set(listing.selected) == set(RECORDED)
        listing.focus()
        listing.highlighted = RECORDED.index("dynamic")
        await pilot.press("space")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, VariantsScreen), what="the dialog to close")
        assert row_names(app) == ["eager", "compiled", "reduce-overhead", "no-compiler"]
        subtitle = variants_table(app).border_subtitle
        assert subtitle is not None
        assert "1 hidden" in subtitle

        dialog = await open_dialog(pilot)
        listing = dialog.query_one("#variants-list", SelectionList)
        assert set(listing.selected) == {"reduce-overhead", "no-compiler"}
        listing.focus()
        listing.highlighted = RECORDED.index("dynamic")
        await pilot.press("space")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, VariantsScreen), what="the dialog to close")
        assert row_names(app) == ["eager", "compiled", *RECORDED]


async def test_an_added_variant_goes_with_the_next_run_of_that_scenario_only() -> None:
    link = variants_link()
    app = variants_app(link)
    async with app.run_test(size=WIDE) as pilot:
        await run_to_the_end(pilot, VARIANTS_FILE)
        assert link.variants == [None]
        dialog = await open_dialog(pilot)
        for flag in ("full=fullgraph:True", "fast=mode:max-autotune-no-cudagraphs"):
            await add_variant(pilot, dialog, flag)
        listing = dialog.query_one("#variants-list", SelectionList)
        assert "full" in [listing.get_option_at_index(i).value for i in range(listing.option_count)]
        assert dialog.query_one("#variant-input", Input).value == ""
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, VariantsScreen), what="the dialog to close")
        await run_to_the_end(pilot, VARIANTS_FILE)
        expected = dict(
            parse_variant_flag(flag) for flag in ("full=fullgraph:True", "fast=mode:max-autotune-no-cudagraphs")
        )
        assert link.variants[-1] == expected
        assert link.runs[-1] == (VARIANTS_FILE, False)
        # Another scenario's runs carry none of them.
        await pilot.press("n")
        await run_to_the_end(pilot, ADD_RELU)
        assert link.runs[-1][0] == ADD_RELU and link.variants[-1] is None


async def test_a_bad_variant_entry_keeps_the_text_and_says_why() -> None:
    link = variants_link()
    app = variants_app(link)
    async with app.run_test(size=SMALL) as pilot:
        dialog = await open_dialog(pilot)
        typed = "dyn=dynamc:True"
        await add_variant(pilot, dialog, typed)
        await pilot.pause()
        assert dialog.query_one("#variant-input", Input).value == typed
        problem = shown_text(dialog.query_one("#variant-problem"))
        assert "unknown torch.compile argument 'dynamc'" in " ".join(problem.split())
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, VariantsScreen), what="the dialog to close")
        await run_to_the_end(pilot, VARIANTS_FILE)
        assert link.variants == [None]


class AnyFileLink(ReplayEngineLink):
    """Replays the variants recording for any file: the editor runs drafts named after no recording."""

    def run(
        self, path: Path, *, sweep: bool, size: int | None = None, variants: CompileVariants | None = None
    ) -> RunMessages:
        self.recordings[Path(path).name] = self.recordings[VARIANTS_FILE.name]
        return super().run(path, sweep=sweep, size=size, variants=variants)


async def test_the_editors_runs_of_a_scenario_carry_its_added_variants(tmp_path: Path) -> None:
    scenario = tmp_path / VARIANTS_FILE.name
    scenario.write_text(VARIANTS_FILE.read_text(encoding="utf-8"), encoding="utf-8")
    link = AnyFileLink.from_files(*RECORDINGS, VARIANTS_RECORDING)
    app = make_app(link, paths=(scenario,))
    async with app.run_test(size=WIDE) as pilot:
        dialog = await open_dialog(pilot)
        # Before any run the dialog lists the file's own variants.
        listing = dialog.query_one("#variants-list", SelectionList)
        assert [listing.get_option_at_index(i).value for i in range(listing.option_count)] == list(RECORDED)
        await add_variant(pilot, dialog, "full=fullgraph:True")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, VariantsScreen), what="the dialog to close")
        await pilot.press("e")
        await wait_for(pilot, lambda: explorer(app).session.document is not None, what="the editor")
        document = explorer(app).session.document
        assert document is not None
        draft = document.path
        assert draft != scenario
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: finished(app, draft), what="the editor's run to finish")
        assert link.runs[-1][0] == draft
        assert link.variants[-1] == dict([parse_variant_flag("full=fullgraph:True")])


async def test_delete_drops_an_added_variant_but_not_the_files() -> None:
    link = variants_link()
    app = variants_app(link)
    async with app.run_test(size=WIDE) as pilot:
        dialog = await open_dialog(pilot)
        await add_variant(pilot, dialog, "full=fullgraph:True")
        listing = dialog.query_one("#variants-list", SelectionList)
        values = [listing.get_option_at_index(i).value for i in range(listing.option_count)]
        assert values == [*RECORDED, "full"]
        listing.focus()
        listing.highlighted = values.index("dynamic")
        await pilot.press("delete")
        listing.highlighted = values.index("full")
        await pilot.press("delete")
        await pilot.pause()
        assert [listing.get_option_at_index(i).value for i in range(listing.option_count)] == list(RECORDED)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, VariantsScreen), what="the dialog to close")
        await run_to_the_end(pilot, VARIANTS_FILE)
        assert link.variants == [None]
        assert row_names(app) == ["eager", "compiled", *RECORDED]


def still_variants_app() -> KernelTuiApp:
    """The app for pictures: the scenario by relative path (run from the repository), nothing animating."""
    app = make_app(variants_link(), paths=(VARIANTS_FILE.relative_to(REPO),))
    app.animation_level = "none"
    return app


async def after_a_run(pilot: Pilot[None]) -> None:
    app = pilot.app
    await wait_for(pilot, lambda: explorer(app).hello is not None, what="the engine's hello")
    await pilot.press("r")
    await wait_for(pilot, lambda: finished(app, VARIANTS_FILE.relative_to(REPO)), what="the run to finish")


@pytest.mark.usefixtures("from_the_repository")
@pytest.mark.parametrize("size", [WIDE, SMALL], ids=["160x48", "80x24"])
def test_picture_of_the_variants_table(snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    """After r: the variants under the kernel tables; at 80x24 in the kernels tab, in the narrow columns."""
    assert snap_compare(still_variants_app(), terminal_size=size, run_before=after_a_run)


@pytest.mark.engine
@pytest.mark.slow
def test_the_real_engine_link_sends_added_variants_with_the_run() -> None:
    """The hand-off the replay cannot check: the run request the engine gets carries the variants."""
    link = ClientEngineLink("cpu")
    try:
        name, arguments = parse_variant_flag("dyn=dynamic:True")
        messages = list(link.run(ADD_RELU, sweep=False, size=4096, variants={name: arguments}))
    finally:
        link.close()
    done = messages[-1]
    assert isinstance(done, Done) and done.report.error is None
    assert list(done.report.variants) == ["dyn"]
    assert done.report.variants["dyn"].options == {"dynamic": True}
    assert done.report.variants["dyn"].measured is not None


async def test_the_variants_table_keeps_the_kernels_pane_through_a_layout_switch() -> None:
    app = variants_app()
    async with app.run_test(size=WIDE) as pilot:
        await run_to_the_end(pilot, VARIANTS_FILE)
        variants_table(app).focus()
        await pilot.pause()
        await pilot.resize_terminal(*SMALL)
        await wait_for(pilot, lambda: not explorer(app).wide, what="the small layout")
        await wait_for(pilot, lambda: tab_shown(app) == "kernels", what="the kernels tab")
