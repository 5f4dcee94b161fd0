"""Why these kernels, in the app: attribution and bandwidth columns, generated code, the bandwidth chart,
the tables' order (``o``) and the keys' help, driven by keys (Pilot) on the replayed engine messages.
Predict-then-reveal on the course is in ``test_ui_predict_reveal``."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from support.locations import REPO
from support.replay import Recording, ReplayEngineLink, ReplayGate
from support.ui_support import (
    ADD_RELU,
    DATA,
    explorer,
    finished,
    make_app,
    make_link,
    run_to_the_end,
    shown_text,
    tab_shown,
    wait_for,
)
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widgets import Tab, Tabs

from kernel_tui.model.report.kernel import Kernel
from kernel_tui.model.report.mode_result import ModeResult
from kernel_tui.model.report.report import SweepPoint
from kernel_tui.text.formatting import attribution_text, lines_text, link_text
from kernel_tui.text.kernel_columns import EXPLORER_COLUMNS, TableOf, fit_columns
from kernel_tui.transport.protocol import Done, Partial
from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.screens.actions import keyed
from kernel_tui.ui.screens.dialogs.help import HelpScreen
from kernel_tui.ui.screens.dialogs.kernel_code import KernelCodeScreen
from kernel_tui.ui.screens.explorer import ExplorerScreen
from kernel_tui.ui.state.kernel_rows import kernel_rows
from kernel_tui.ui.view.kernel_words import code_kernel, code_language, kernel_story, no_code_reason
from kernel_tui.ui.widgets.charts.bandwidth_plot import bandwidth_series
from kernel_tui.ui.widgets.charts.runtime_chart import RuntimeChart
from kernel_tui.ui.widgets.charts.runtime_plot import RuntimePlot
from kernel_tui.ui.widgets.kernel_name import KernelNameLine
from kernel_tui.ui.widgets.kernel_table import KernelTable

WIDE = (160, 48)
SMALL = (80, 24)
CEILING = 11.553  # the recording's bandwidth_ceiling_gbs


def table(app: KernelTuiApp, mode: str) -> KernelTable:
    return explorer(app).query_one(f"#{mode}", KernelTable)


def cells(app: KernelTuiApp, mode: str, row: int = 0) -> dict[str, str]:
    """A table row's cells by column key, as plain text."""
    kernel_table = table(app, mode)
    values = kernel_table.get_row_at(row)
    assert kernel_table.plan is not None, "the table has its columns once it is drawn"
    return {key: getattr(value, "plain", str(value)) for key, value in zip(kernel_table.plan.keys, values)}


def table_text(app: KernelTuiApp, mode: str) -> str:
    """A kernel table as drawn, border and all (``shown_text`` covers only its content height)."""
    kernel_table = table(app, mode)
    lines = kernel_table.render_lines(Region(0, 0, *kernel_table.outer_size))
    return "\n".join(strip.text.rstrip() for strip in lines)


def code_screen(app: KernelTuiApp) -> KernelCodeScreen:
    assert isinstance(app.screen, KernelCodeScreen), app.screen
    return app.screen


class NameLineApp(App[None]):
    """The kernel-name line alone, styled as in the explorer."""

    CSS_PATH = Path(sys.modules[KernelTuiApp.__module__].__file__ or "").parent / "app.tcss"

    def compose(self) -> ComposeResult:
        with Vertical(classes="-narrow"):  # the explorer's layout at 80x24
            yield KernelNameLine(id="kernel-name")


class TestAttribution:
    """Each eager row names the compiled kernel that absorbed it; each compiled row, the ops and lines it
    replaced; the full-name line says all of it for the highlighted kernel."""

    @pytest.mark.parametrize("size", [WIDE, SMALL])
    async def test_tables_show_fused_into_and_replaces(self, size: tuple[int, int]) -> None:
        app = make_app()
        async with app.run_test(size=size) as pilot:
            await run_to_the_end(pilot)
            await pilot.press("3")
            eager, compiled = cells(app, "eager"), cells(app, "compiled")
            assert eager["link"] == "cpp_fused_add_relu_0"
            assert cells(app, "eager", 1)["link"] == "cpp_fused_add_relu_0"
            assert compiled["link"] == "add, relu · L11"
            assert "fused into" in table_text(app, "eager")
            assert "cpp_fused_add_relu_0" in table_text(app, "eager")
            assert "replaces" in table_text(app, "compiled")
            assert "add, relu · L11" in table_text(app, "compiled")

    async def test_while_compiling_the_eager_rows_wait_for_their_compiled_kernel(self) -> None:
        gate = ReplayGate()
        app = make_app(make_link(gate=gate))
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("r")
            gate.release_until(kind=Partial)  # up to the partial report with eager only
            await wait_for(pilot, lambda: len(table(app, "eager").kernels) == 2)
            assert cells(app, "eager")["link"] == "…"
            line = shown_text(explorer(app).query_one(KernelNameLine))
            assert "fused into" not in line and "7.17 GB/s" in line
            gate.release_all()
            await wait_for(pilot, lambda: finished(app))
            assert cells(app, "eager")["link"] == "cpp_fused_add_relu_0"

    async def test_the_full_name_line_tells_the_whole_story(self) -> None:
        app = make_app()
        async with app.run_test(size=WIDE) as pilot:
            await run_to_the_end(pilot)
            line = explorer(app).query_one(KernelNameLine)
            assert "fused into cpp_fused_add_relu_0 · 7.17 GB/s, 62% of the copy ceiling" in shown_text(line)
            table(app, "compiled").focus()
            await pilot.pause()
            assert "replaces aten::add, aten::relu (line 11)" in shown_text(line)
            assert "g shows its code" in shown_text(line)

    async def test_at_80x24_the_full_name_line_shows_long_names_whole(self) -> None:
        """The tables cut a long name to ``cpp_fused_a…``; the line under them is where it is read whole,
        however many kernels a composite op became and however long the story after it."""
        fused = tuple(f"cpp_fused__log_softmax_amax_exp_logsumexp_sub_sum_{index}" for index in range(4))
        kernel = Kernel(
            "aten::logsumexp",
            "aten::logsumexp",
            1,
            1.0,
            bytes_read=1 << 22,
            bytes_written=1 << 22,
            op="aten::logsumexp",
            fused_into=fused,
            gbs=7.17,
            ceiling_pct=62.0,
        )
        # The line on its own, 80 columns wide as under the explorer's tables at 80x24 and styled by the app's
        # stylesheet: in the explorer the line follows the highlighted row, and a row the table does not hold
        # would be replaced by the next redraw (which the line's own growth causes).
        async with NameLineApp().run_test(size=SMALL) as pilot:
            line = pilot.app.query_one(KernelNameLine)
            line.show("eager", kernel)
            await pilot.pause()
            rows = [row.strip() for row in shown_text(line).splitlines()]
            text = " ".join(rows)
            assert text.startswith("eager › aten::logsumexp")
            for name in fused:
                assert name in text or name in "".join(rows), text
            assert "62% of the copy ceiling" in text

    def test_narrow_tables_keep_the_name_whole_and_drop_share_then_bandwidth_then_attribution(self) -> None:
        """Names first: the name keeps its 20 cells at every width here; the figure columns go by priority."""
        eager = TableOf("eager", None)  # no FLOPs counted: no roofline column

        def fitted(room: int, name: int = 20) -> tuple[tuple[str, ...], int]:
            plan = fit_columns(EXPLORER_COLUMNS, room, 2, {"kernel": name, "link": 20}, eager)
            return plan.keys, plan.name_width

        assert fitted(200) == (("kernel", "calls", "time", "bytes", "gbs", "share", "link"), 20)
        assert fitted(85) == (("kernel", "calls", "time", "bytes", "gbs", "link"), 20)
        assert fitted(84) == (("kernel", "calls", "time", "bytes", "link"), 20)
        assert fitted(65) == (("kernel", "calls", "time", "bytes", "link"), 20), "the attribution cut, and last"
        assert fitted(64) == (("kernel", "calls", "time", "bytes"), 20)
        assert fitted(50) == (("kernel", "calls", "time"), 20)
        assert fitted(60, name=40) == (("kernel", "calls", "time"), 40), "the name is whole before any figure"
        assert fitted(30, name=40) == (("kernel",), 28), "a name wider than the table takes all of it, cut"
        plan = fit_columns(EXPLORER_COLUMNS, 90, 2, {"kernel": 10, "link": 20}, eager)
        assert plan.widths["link"] >= 20, "the attribution gets its whole text from what the name leaves"

    def test_link_texts(self) -> None:
        eager = Kernel("aten::add", "aten::add", 1, 1.0, fused_into=("cpp_fused_add_relu_0",))
        compiled = Kernel("k", "k", 1, 1.0, aten_ops=("aten::add", "aten::relu"), lines=(12, 13, 14))
        assert link_text(eager, "eager") == "cpp_fused_add_relu_0"
        assert link_text(compiled, "compiled") == "add, relu · L12-14"
        assert link_text(Kernel("k", "k", 1, 1.0), "eager") == "—"
        assert lines_text((12, 20)) == "L12,20"

    def test_a_library_call_is_not_fused_into_itself_and_g_agrees_with_the_row(self) -> None:
        """Lesson 14's eager matmul went to the library call addmm, which has no code; lesson 15's
        aten::item stays aten::item. The row, the full-name line and g say the same, from code_kernel."""
        addmm = Kernel("aten::addmm", "aten::addmm", 1, 1.0, kind="op", aten_ops=("aten::mm", "aten::add"))
        relu = Kernel("cpp_fused_relu_0", "cpp_fused_relu_0", 1, 1.0, aten_ops=("aten::relu",), code="void k() {}")
        item = Kernel("aten::item", "aten::item", 1, 1.0, kind="op")
        compiled = ModeResult(3, (addmm, relu, item), None, None)
        matmul = Kernel("aten::matmul", "aten::matmul", 1, 1.0, kind="op", fused_into=("aten::addmm",))
        eager_item = Kernel("aten::item", "aten::item", 1, 1.0, kind="op", fused_into=("aten::item",))
        eager_relu = Kernel("aten::relu", "aten::relu", 1, 1.0, kind="op", fused_into=("cpp_fused_relu_0",))
        assert link_text(matmul, "eager") == "aten::addmm (library)"
        assert link_text(eager_item, "eager") == "not fused: same call"
        assert attribution_text(eager_item, "eager") == "not fused: compiled runs the same library call"
        assert attribution_text(matmul, "eager") == "fused into the library call aten::addmm (no generated code)"
        for kernel in (matmul, eager_item):
            assert code_kernel(kernel, "eager", compiled) is None
            assert not any("g shows" in part for part in kernel_story(kernel, "eager", compiled))
            assert attribution_text(kernel, "eager") in no_code_reason(kernel, "eager")
        assert code_kernel(eager_relu, "eager", compiled) is relu
        assert kernel_story(eager_relu, "eager", compiled)[-1] == "g shows the code it became"


class TestGeneratedCode:
    """g shows the highlighted compiled kernel's source (or the one an eager kernel became); Esc closes."""

    async def test_g_shows_the_compiled_kernels_code_and_escape_closes_it(self) -> None:
        app = make_app()
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("g")  # nothing to show before a run: it says so
            assert isinstance(app.screen, ExplorerScreen)
            assert any("No generated code" in notice.message for notice in app._notifications)
            await run_to_the_end(pilot)
            table(app, "compiled").focus()
            await pilot.press("g")
            await wait_for(pilot, lambda: isinstance(app.screen, KernelCodeScreen))
            report = explorer(app).runs[ADD_RELU].record.report
            assert report is not None and report.compiled is not None
            (kernel,) = report.compiled.kernels
            code = code_screen(app)
            assert code.kernel == kernel and code.language == "cpp"
            body = shown_text(code.query_one("#code-source"))
            assert 'extern "C"' in body and "in_ptr0" in body
            assert "Generated code: cpp_fused_add_relu_0" in (code.query_one("#code-body").border_title or "")
            await pilot.press("escape")
            assert isinstance(app.screen, ExplorerScreen)

    async def test_on_an_eager_row_g_shows_the_kernel_it_was_fused_into(self) -> None:
        app = make_app()
        async with app.run_test(size=SMALL) as pilot:
            await run_to_the_end(pilot)
            await pilot.press("3", "down", "g")
            await wait_for(pilot, lambda: isinstance(app.screen, KernelCodeScreen))
            assert code_screen(app).kernel.short_name == "cpp_fused_add_relu_0"

    async def test_lesson_14s_eager_matmul_row_and_g_say_the_same(self) -> None:
        """The row said "fused into aten::addmm · g shows the code it became" and g then said no compiled
        kernel had done its work: both now say it became the library call, which has no code."""
        lesson = REPO / "scenarios" / "14_matmul_bias_relu.py"
        link = ReplayEngineLink.from_files(DATA / "ui_matmul_bias_relu_messages.json")
        app = make_app(link, paths=(lesson,))
        async with app.run_test(size=WIDE) as pilot:
            await run_to_the_end(pilot, lesson)
            eager = table(app, "eager")
            row = next(i for i, kernel in enumerate(eager.kernels) if kernel.short_name == "aten::matmul")
            eager.focus()
            eager.move_cursor(row=row)
            await pilot.pause()
            assert "aten::addmm (library)" in eager.get_row_at(row)[-1].plain
            line = shown_text(explorer(app).query_one(KernelNameLine))
            assert "library call aten::addmm" in line and "g shows" not in line
            await pilot.press("g")
            await pilot.pause()
            assert isinstance(app.screen, ExplorerScreen), "there is no code to show"
            said = [notice.message for notice in app._notifications][-1]
            assert "library call aten::addmm" in said and "no compiled kernel" not in said
            relu = next(i for i, kernel in enumerate(eager.kernels) if kernel.short_name == "aten::relu")
            eager.move_cursor(row=relu)
            await pilot.pause()
            assert "g shows the code it became" in shown_text(explorer(app).query_one(KernelNameLine))
            await pilot.press("g")
            await wait_for(pilot, lambda: isinstance(app.screen, KernelCodeScreen))
            assert code_screen(app).kernel.short_name == "cpp_fused_relu_0"

    def test_g_on_an_eager_row_without_attribution_opens_the_kernel_that_did_its_work_or_none(self) -> None:
        max_sin = Kernel(
            "cpp_fused_max_sin_0",
            "cpp_fused_max_sin_0",
            1,
            1.0,
            aten_ops=("aten::sin", "aten::max"),
            code='extern "C" void sin_max() {}',
        )
        cos = Kernel("cpp_fused_cos_1", "cpp_fused_cos_1", 1, 1.0, aten_ops=("aten::cos",), code='extern "C" {}')
        mm = Kernel("aten::mm", "aten::mm", 1, 1.0, kind="op", aten_ops=("aten::mm",))
        compiled = ModeResult(3, (max_sin, cos, mm), None, None)
        eager_cos = Kernel("aten::cos", "aten::cos", 1, 1.0, kind="op")
        assert code_kernel(eager_cos, "eager", compiled) is cos
        unrelated = ModeResult(1, (max_sin,), None, None)
        assert code_kernel(eager_cos, "eager", unrelated) is None, "not the first kernel that happens to have code"
        assert "no compiled kernel" in no_code_reason(eager_cos, "eager")
        assert code_kernel(mm, "compiled", compiled) is None, "a library call has no code of its own"
        fused = Kernel("aten::sin", "aten::sin", 1, 1.0, kind="op", fused_into=("cpp_fused_max_sin_0",))
        assert code_kernel(fused, "eager", compiled) is max_sin

    def test_triton_kernels_are_highlighted_as_python(self) -> None:
        triton = Kernel("triton_poi_fused_add_0", "triton_poi_fused_add_0", 1, 1.0, code="@triton.jit\ndef k(): pass")
        cpp = Kernel("cpp_fused_add_0", "cpp_fused_add_0", 1, 1.0, code='#include <x.h>\nextern "C" void kernel()')
        assert code_language(triton) == "python" and code_language(cpp) == "cpp"


class TestBandwidth:
    """Achieved GB/s and % of the ceiling per kernel; b switches the chart to bandwidth with the ceiling."""

    async def test_the_tables_show_gbs_and_percent_of_the_ceiling(self) -> None:
        app = make_app()
        async with app.run_test(size=WIDE) as pilot:
            await run_to_the_end(pilot)
            assert cells(app, "eager")["gbs"].split() == ["7.17", "62%"]
            assert cells(app, "compiled")["gbs"].split() == ["6.77", "59%"]
            assert "GB/s %ceil" in table_text(app, "eager")

    async def test_b_switches_the_chart_to_bandwidth_with_the_ceiling_and_back(self) -> None:
        app = make_app()
        async with app.run_test(size=WIDE) as pilot:
            await run_to_the_end(pilot, key="s")
            chart = explorer(app).query_one(RuntimeChart)
            await wait_for(pilot, lambda: bool(chart.query("RuntimePlot")))
            plot = chart.query_one(RuntimePlot)
            await wait_for(pilot, lambda: "eager" in plot.drawn)
            assert "ceiling" not in plot.drawn
            await pilot.press("b")
            await wait_for(pilot, lambda: "ceiling" in plot.drawn, what="the bandwidth chart")
            assert chart.mode == plot.mode == "bandwidth"
            assert chart.border_title == "Bandwidth vs size"
            assert plot.drawn["ceiling"] == ([2**10, 2**20], [CEILING, CEILING])
            sizes, eager = plot.drawn["eager"]
            assert sizes[-1] == 2**20 and eager[-1] == pytest.approx(20971520 / 191.823 / 1e3)
            assert "b roofline" in (chart.border_subtitle or "")
            await pilot.press("n", "p")  # the mode stays as the learner left it
            assert chart.mode == "bandwidth"
            await pilot.press("b", "b", "b", "b")  # through the roofline, peak memory and the timeline, back to runtime
            await wait_for(pilot, lambda: "ceiling" not in plot.drawn and "eager" in plot.drawn)
            assert chart.border_title == "Runtime vs size"

    async def test_on_a_small_terminal_b_shows_the_chart_tab(self) -> None:
        app = make_app()
        async with app.run_test(size=SMALL) as pilot:
            await run_to_the_end(pilot, key="s")
            await pilot.press("b")
            await wait_for(pilot, lambda: tab_shown(app) == "chart")
            assert explorer(app).query_one(RuntimeChart).mode == "bandwidth"

    async def test_b_just_after_the_kernels_tab_keeps_the_chart_tab(self) -> None:
        """The tab bar says which tab it shows through a queued message (``Tabs.TabActivated``): ``b`` landing
        before the kernels tab's arrived must not see that stale message show the kernels again (as Textual's
        focus-following tabs once did, one run in six of the test above). Here it comes after ``b``."""
        app = make_app()
        async with app.run_test(size=SMALL) as pilot:
            await run_to_the_end(pilot)
            screen = explorer(app)
            assert tab_shown(app) == "kernels" and isinstance(app.focused, KernelTable)
            tabs = screen.query_one("#tabs", Tabs)
            await pilot.press("b")
            tabs.post_message(Tabs.TabActivated(tabs, screen.query_one("#tab-kernels", Tab)))  # the stale one
            for _ in range(10):
                await pilot.pause(0.02)
                assert tab_shown(app) == "chart", "the stale tab showed the kernels again"
            await wait_for(pilot, lambda: app.focused is screen.query_one(RuntimeChart), what="the chart's focus")

    def test_bandwidth_is_bytes_over_time_per_sweep_point(self) -> None:
        points = [SweepPoint(2048, 2.0, 4.0, eager_bytes=8000, compiled_bytes=4000), SweepPoint(1024, 1.0, None)]
        assert bandwidth_series(points) == {"eager": ([2048], [4.0]), "compiled": ([2048], [1.0])}


class TestKeysListed:
    async def test_help_and_palette_list_the_new_keys(self) -> None:
        app = make_app()
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("question_mark")
            assert isinstance(app.screen, HelpScreen)
            text = "".join(shown_text(static) for static in app.screen.query("Static"))
            for words in ("Generated code", "achieved bandwidth", "Predictions on/off"):
                assert words in text, words
            await pilot.press("escape")
            titles = [command.title for command in app.get_system_commands(app.screen)]
            switch = "Switch chart: runtime / bandwidth / roofline / memory / timeline"
            assert {"Generated code", switch, "Predictions on / off"} <= set(titles)


def test_recordings_carry_the_why_fields() -> None:
    """The UI fixtures were recorded by an engine that sends attribution, code and bandwidth."""
    data = json.loads((DATA / "ui_add_relu_messages.json").read_text())
    done = data["messages"][-1]["report"]
    assert done["bandwidth_ceiling_gbs"] and done["compiled"]["kernels"][0]["code"]
    assert done["eager"]["kernels"][0]["fused_into"] and done["sweep"][0]["eager_bytes"]


def test_the_bandwidth_charts_log_axis_never_labels_a_tick_0_00() -> None:
    """Tiny arrays move a few MB/s: the lowest tick of the log axis read "0.00" (two decimals of 0.002)."""
    from kernel_tui.text.formatting import format_gbs
    from kernel_tui.ui.widgets.charts.bandwidth_plot import draw_bandwidth
    from kernel_tui.ui.widgets.charts.runtime_lines import STYLES, time_ticks

    class Figure:
        """Records what the chart asks plotext for."""

        def __getattr__(self, name: str) -> Any:
            return lambda *args, **kwargs: setattr(self, name + "_args", args)

    points = [
        SweepPoint(2**10, 40.0, 30.0, eager_bytes=8, compiled_bytes=8),
        SweepPoint(2**20, 900.0, 500.0, eager_bytes=20 << 20, compiled_bytes=12 << 20),
    ]
    figure = Figure()
    draw_bandwidth(figure, points, 11.5, styles=STYLES, plain=False, xticks_for=lambda s: s, yticks_for=time_ticks)
    values, labels = figure.yticks_args
    assert min(values) < 0.005 and "0.00" not in labels, labels
    assert [format_gbs(value) for value in (0.002, 0.00031, 7.171)] == ["0.002", "0.0003", "7.17"]
    from kernel_tui.text.kernel_columns import GBS

    slow = Kernel("aten::item", "aten::item", 1, 11.9, bytes_read=4, gbs=0.00034, ceiling_pct=0.0)
    assert GBS.cell(slow, TableOf("eager", None)) == "<0.01   0%", "short enough for the column beside its share"
    assert GBS.width is not None and len(GBS.cell(slow, TableOf("eager", None))) <= GBS.width


# -- o: the kernel tables' order -------------------------------------------------------------------------------
# ``ui_graph_break_messages.json`` is lesson 15 as the engine measured it: five eager operators that time, bytes
# and launch order rank differently (``cos`` and ``sin`` take the time, ``item`` moves four bytes), and three
# compiled kernels; ``ui_train_add_relu_messages.json`` is lesson 21's training step, whose sections a sort keeps
# apart.

GRAPH_BREAK = REPO / "scenarios" / "15_graph_break.py"
TRAINING = REPO / "scenarios" / "21_add_relu_backwards.py"


def order_app(lesson: Path, recording: str) -> KernelTuiApp:
    return make_app(ReplayEngineLink.from_files(DATA / recording), paths=(lesson,))


def drawn_names(table: KernelTable) -> list[str]:
    """Each row's name cell as drawn, without the indent of a section's rows."""
    return [table.get_row_at(row)[0].plain.strip() for row in range(table.row_count)]


def drawn_headers(table: KernelTable) -> list[str]:
    return [column.label.plain for column in table.ordered_columns]


def footer_says(app: KernelTuiApp) -> str | None:
    """What the footer shows for ``o``, if it shows it."""
    bound = app.screen.active_bindings.get("o")
    return bound.binding.description if bound is not None and bound.binding.show else None


async def tables_after_a_run(pilot: Pilot[None], app: KernelTuiApp, lesson: Path) -> tuple[KernelTable, KernelTable]:
    await run_to_the_end(pilot, lesson)
    screen = explorer(app)
    eager, compiled = screen.query_one("#eager", KernelTable), screen.query_one("#compiled", KernelTable)
    eager.focus()
    await pilot.pause()
    return eager, compiled


LAUNCHED = ["aten::sin", "aten::max", "aten::item", "aten::cos", "aten::div"]
COMPILED_LAUNCHED = ["cpp_fused_max_sin_0", "aten::item", "cpp_fused_cos_div_0"]


async def test_o_orders_both_tables_by_time_bytes_launches_and_back() -> None:
    app = order_app(GRAPH_BREAK, "ui_graph_break_messages.json")
    async with app.run_test(size=WIDE) as pilot:
        eager, compiled = await tables_after_a_run(pilot, app, GRAPH_BREAK)
        assert drawn_names(eager) == LAUNCHED and drawn_names(compiled) == COMPILED_LAUNCHED
        assert "▼" not in "".join(drawn_headers(eager))
        assert footer_says(app) == "By time", "the footer says what o does next while a table has the focus"

        await pilot.press("o")
        # cos 15.8 ms, sin 15.7 ms, div 63 µs, max 43 µs, item 7.7 µs; compiled cos_div 5.8 µs, max_sin 5.4, item 1.3.
        assert drawn_names(eager) == ["aten::cos", "aten::sin", "aten::div", "aten::max", "aten::item"]
        assert drawn_names(compiled) == ["cpp_fused_cos_div_0", "cpp_fused_max_sin_0", "aten::item"]
        assert drawn_headers(eager)[:4] == ["kernel", "calls", "time ▼", "bytes"]
        assert drawn_headers(compiled)[:4] == ["kernel", "calls", "time ▼", "bytes"]
        assert footer_says(app) == "By bytes"

        await pilot.press("o")
        # sin, cos and div move 32 KiB each (ties keep launch order), max 16 KiB, item 4 bytes.
        assert drawn_names(eager) == ["aten::sin", "aten::cos", "aten::div", "aten::max", "aten::item"]
        assert drawn_names(compiled) == ["cpp_fused_max_sin_0", "cpp_fused_cos_div_0", "aten::item"]
        assert drawn_headers(eager)[:4] == ["kernel", "calls", "time", "bytes ▼"]
        assert footer_says(app) == "By launches"

        await pilot.press("o")
        # One launch each: launch order, with the calls column marked (and widened for its mark, not cut).
        assert drawn_names(eager) == LAUNCHED and drawn_names(compiled) == COMPILED_LAUNCHED
        assert drawn_headers(eager)[:4] == ["kernel", "calls ▼", "time", "bytes"]
        assert footer_says(app) == "As launched"

        await pilot.press("o")
        assert drawn_names(eager) == LAUNCHED and drawn_names(compiled) == COMPILED_LAUNCHED
        assert drawn_headers(eager)[:4] == ["kernel", "calls", "time", "bytes"]
        assert footer_says(app) == "By time"

        explorer(app).query_one("#scenarios").focus()
        await pilot.pause()
        assert footer_says(app) is None, "the footer shows o only where a kernel table has the focus"
        await pilot.press("o")
        assert drawn_names(eager)[0] == "aten::cos", "o orders the tables from any pane"


async def test_the_order_survives_a_resize_and_a_rerun_and_the_cursor_stays_on_its_kernel() -> None:
    app = order_app(GRAPH_BREAK, "ui_graph_break_messages.json")
    async with app.run_test(size=WIDE) as pilot:
        eager, _ = await tables_after_a_run(pilot, app, GRAPH_BREAK)
        screen = explorer(app)
        await pilot.press("down", "down")
        item = eager.highlighted_kernel()
        assert item is not None and item.short_name == "aten::item"

        await pilot.press("o")
        assert drawn_names(eager)[-1] == "aten::item"
        assert eager.cursor_row == 4, "the cursor follows its kernel to its new row"
        await wait_for(pilot, lambda: screen.name_shown is not None and screen.name_shown.kernel is not None)
        assert screen.name_shown is not None and screen.name_shown.kernel is item is eager.highlighted_kernel()

        await pilot.resize_terminal(*SMALL)
        await pilot.pause()
        await pilot.resize_terminal(*WIDE)
        await pilot.pause()
        assert drawn_names(eager) == ["aten::cos", "aten::sin", "aten::div", "aten::max", "aten::item"]
        assert "time ▼" in drawn_headers(eager)
        assert eager.cursor_row == 4

        await run_to_the_end(pilot, GRAPH_BREAK)
        assert drawn_names(eager) == ["aten::cos", "aten::sin", "aten::div", "aten::max", "aten::item"]
        assert "time ▼" in drawn_headers(eager)


async def test_a_small_terminal_keeps_the_order_and_its_mark() -> None:
    app = order_app(GRAPH_BREAK, "ui_graph_break_messages.json")
    async with app.run_test(size=SMALL) as pilot:
        eager, _ = await tables_after_a_run(pilot, app, GRAPH_BREAK)
        assert footer_says(app) is None, "at 80 columns the footer has no room for o (? Help would be cut)"
        await pilot.press("o", "o")
        assert drawn_names(eager)[:3] == ["aten::sin", "aten::cos", "aten::div"]
        assert "bytes ▼" in drawn_headers(eager)


async def test_a_training_step_is_sorted_within_each_section() -> None:
    app = order_app(TRAINING, "ui_train_add_relu_messages.json")
    async with app.run_test(size=WIDE) as pilot:
        eager, compiled = await tables_after_a_run(pilot, app, TRAINING)
        await pilot.press("o")
        # Forward: sum 6.3 µs, add 6.2, relu 4.4; backward: threshold_backward 4.0, copy_ 3.2.
        assert drawn_names(eager) == [
            "forward",
            "aten::sum",
            "aten::add",
            "aten::relu",
            "backward",
            "aten::threshold_backward",
            "aten::copy_",
        ]
        await pilot.press("o")
        # By bytes across the step, threshold_backward (32,772) would stand above relu (32,768): each section
        # is sorted on its own.
        assert drawn_names(eager) == [
            "forward",
            "aten::add",
            "aten::relu",
            "aten::sum",
            "backward",
            "aten::threshold_backward",
            "aten::copy_",
        ]
        assert drawn_names(compiled)[0] == "forward" and drawn_names(compiled)[2] == "backward"


def test_unknown_figures_go_last_and_ties_keep_launch_order() -> None:
    """A preview has no times: a kernel without one goes after those with one, not before as a zero would."""
    recording = Recording.load(DATA / "ui_graph_break_messages.json")
    report = next(message.report for message in reversed(recording.messages) if isinstance(message, Done))
    assert report.eager is not None
    sin, peak, item, cos, div = report.eager.kernels
    kernels = (sin, replace(peak, time_us=None), replace(item, calls=3), cos, replace(div, calls=2, time_us=None))
    eager = replace(report.eager, kernels=kernels)
    by_time = [row.kernel.short_name for row in kernel_rows(eager, order="time") if row.kernel is not None]
    assert by_time == ["aten::cos", "aten::sin", "aten::item", "aten::max", "aten::div"]
    by_launches = [row.kernel.short_name for row in kernel_rows(eager, order="launches") if row.kernel is not None]
    assert by_launches == ["aten::item", "aten::div", "aten::sin", "aten::max", "aten::cos"]


def test_help_lists_o_once() -> None:
    from kernel_tui.ui.screens.actions import ORDER_HELP

    rows = [action for action in keyed(*ExplorerScreen.ACTIONS) if action.key == "o"]
    assert [row.help for row in rows] == [ORDER_HELP]
