"""The explorer's one state value, without an app: each named transition changes what it names and nothing else,
and ``shown(state, now)`` shows the change; the modules the state and ``Shown`` are made of never import Textual."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace

from support.locations import REPO
from support.ui_support import ADD_RELU, BROKEN
from test_shown import NOW, RECORDING, state

from kernel_tui.model.report.report import ScenarioError
from kernel_tui.text.kernel_order import KERNEL_ORDERS, next_order
from kernel_tui.transport.protocol import Done
from kernel_tui.ui.state.explorer_state import EngineState, ExplorerState
from kernel_tui.ui.state.variant_choices import VariantChoices
from kernel_tui.ui.view.shown import shown
from kernel_tui.ui.widgets.charts.chart_modes import CHART_MODES, next_chart_mode


def start() -> ExplorerState:
    parts = state()
    return ExplorerState(parts.catalog, parts.runs, parts.baselines, parts.variants, parts.predictions)


def turns(first: ExplorerState, count: int, turn: Callable[[ExplorerState], ExplorerState]) -> list[ExplorerState]:
    """``first`` and the states after each of ``count`` presses of a key that cycles a choice (``turn``)."""
    states = [first]
    for _ in range(count):
        states.append(turn(states[-1]))
    return states


def test_the_chart_mode_cycles_and_the_rest_stays() -> None:
    first = start()
    turned = turns(first, len(CHART_MODES), lambda now: now.chart_mode_chosen(next_chart_mode(now.view.chart_mode)))
    modes = [value.view.chart_mode for value in turned]
    assert modes == [mode.name for mode in CHART_MODES] + [CHART_MODES[0].name], "round to the first"
    charted = first.chart_mode_chosen(next_chart_mode(first.view.chart_mode))
    assert shown(charted, NOW).chart.mode == "bandwidth" and shown(first, NOW).chart.mode == "time"
    assert (charted.cursors, charted.engine, charted.catalog) == (first.cursors, first.engine, first.catalog)


def test_the_kernel_order_cycles_and_reaches_both_tables_of_every_scenario() -> None:
    first = start()
    turned = turns(first, len(KERNEL_ORDERS), lambda now: now.kernel_order_chosen(next_order(now.view.kernel_order)))
    orders = [value.view.kernel_order for value in turned]
    assert orders == ["launch", "time", "bytes", "launches", "launch"], "round to launch order"
    by_time = first.kernel_order_chosen("time").select_scenario(1)
    assert (shown(by_time, NOW).eager.order, shown(by_time, NOW).compiled.order) == ("time", "time")
    assert (by_time.cursors, by_time.engine) == (first.cursors, first.engine)


def test_selecting_a_scenario_shows_it() -> None:
    value = start().select_scenario(1)
    assert value.catalog.current_path == BROKEN and shown(value, NOW).scenarios.index == 1
    assert value.select_scenario(99).catalog.current_path == BROKEN, "clamped to the list"


def test_the_editor_focused_opened_and_left() -> None:
    first = start()
    focused = first.editor_focused(True)
    assert focused.view.editor_focused and not first.view.editor_focused
    assert "ctrl+r" in shown(focused, NOW).status.text.plain, "the status line names the editor's keys"
    assert focused.editor_focused(True) is focused, "a transition that changes nothing keeps the value"
    opened = first.editor_opened(ADD_RELU)
    assert shown(opened, NOW).editing and not shown(opened.editor_opened(None), NOW).editing
    assert not shown(first.editor_opened(BROKEN), NOW).editing, "the editor holds another scenario"


def test_the_engine_and_the_saved_origin() -> None:
    first = start()
    assert shown(first, NOW).summary.engine == "engine: starting…"
    ready = first.engine_changed(EngineState(hello=RECORDING.hello))
    assert shown(ready, NOW).summary.engine.startswith("engine ready: ")
    saved = ready.saved_origin_known("measured on h100")
    assert "measured on h100" in shown(saved, NOW).status.text.plain
    assert saved.saved_origin_known("measured on h100") is saved


def test_a_run_s_start_messages_and_end_change_the_run_book_through_the_state() -> None:
    """A run started, told of and ended, pinned and forgotten, all through the state's transitions: what the
    explorer's parts once did to the shared books in place."""
    first = start()
    value = first.run_started(7, ADD_RELU, sweep=True, now=NOW, output_from=3)
    run = value.runs.active
    assert run is not None and (run.record.run_id, run.output_from, run.running) == (7, 3, True)
    assert shown(value, NOW + 1).status.progress is not None, "the status line follows the run"
    for message in RECORDING.messages:
        done = isinstance(message, Done)
        value = value.run_said(run, replace(message, run_id=7), NOW + 5, output_to=11 if done else None)
    assert value.runs.active is None and run.output_to == 11 and run.record.report is not None
    assert shown(value, NOW + 6).scenarios.marks == ("done", None)
    pinned = value.baseline_toggled(run)
    assert shown(pinned, NOW).summary.pinned and not shown(pinned.baseline_toggled(run), NOW).summary.pinned
    assert value.engine is first.engine and value.view is first.view, "the frozen parts are left as they were"

    value = value.run_started(8, BROKEN, sweep=False, now=NOW, output_from=11)
    broken = value.runs.active
    assert broken is not None
    error = ScenarioError("eager", "name 'oops' is not defined", file=str(BROKEN), line=9)
    value = value.run_ended_early(broken, error, NOW + 1, cancelled=False, output_to=12)
    assert value.runs.active is None and broken.record.error is error and broken.output_to == 12
    value = value.run_started(9, BROKEN, sweep=False, now=NOW, output_from=12).run_cancelled(NOW + 2, output_to=13)
    assert value.runs.active is None and value.runs[BROKEN].record.cancelled and value.runs[BROKEN].output_to == 13
    assert value.runs_forgotten([BROKEN]).runs.get(BROKEN) is None and ADD_RELU in value.runs


def test_the_engine_s_hello_sets_the_device_lessons_ask_of() -> None:
    first = start()
    hello = replace(RECORDING.hello, device="cuda")
    ready = first.engine_said_hello(hello, NOW)
    assert ready.engine.hello is hello and ready.predictions.device == "cuda"
    assert (ready.engine.warmup_since is not None) == (hello.warmup is not None)


def test_the_variant_transitions_reach_the_variant_book_and_the_compiled_table() -> None:
    first = start()
    added = first.variants_added(ADD_RELU, {"max_autotune": {"options": {"max_autotune": True}}})
    assert added.variants.of(ADD_RELU).request() == {"max_autotune": {"options": {"max_autotune": True}}}
    shown_kernels = added.variant_kernels_shown(ADD_RELU, "max_autotune")
    assert shown_kernels.variants.of(ADD_RELU).kernels_of == "max_autotune"
    assert shown(shown_kernels, NOW).variants.kernels_of is None, "no report holds that variant yet"
    chosen = shown_kernels.variants_chosen(ADD_RELU, VariantChoices(hidden={"max_autotune"}))
    assert chosen.variants.of(ADD_RELU).hidden == {"max_autotune"} and chosen.variants.of(ADD_RELU).request() is None


def test_the_cursor_transitions_reach_the_cursors() -> None:
    value = start().lesson_line_moved(ADD_RELU, 11).editor_line_moved(3).table_focused("compiled")
    assert (value.cursors.followed, value.cursors.editor_line, value.cursors.code_cursor) == ("compiled", 3, "editor")
    moved = value.row_highlighted("eager", 1, (), focused=True)
    assert moved.cursors.followed == "eager" and moved.cursors.eager is not None and not moved.cursors.telling


def test_the_state_and_what_it_shows_never_import_textual() -> None:
    modules = ["state.explorer_state", "view.shown", "state.cursors", "view.code_links"]
    code = (
        "import sys\n"
        + "".join(f"import kernel_tui.ui.{name}\n" for name in modules)
        + "print(sorted(name for name in sys.modules if name.split('.')[0] in ('textual', 'textual_plotext')))"
    )
    imported = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert imported.stdout.strip() == "[]"
