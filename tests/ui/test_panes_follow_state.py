"""The panes follow the explorer's state: after each kind of event, every pane on screen holds its slice of
``Shown``, and ``Shown`` is what ``shown()`` derives from the state then, with no handler refreshing anything
by hand (a cursor's move in a table or in the editor included: the cursors are state too); and, by an AST scan
of ``kernel_tui/ui``, nothing derives ``Shown`` or hands the panes their slices outside the one funnel and
binding, and no pane is handed content outside the binding.
"""

from __future__ import annotations

import ast
from pathlib import Path

from support.locations import REPO
from support.ui_support import ADD_RELU, BROKEN, explorer, make_app, run_to_the_end, shown_text, wait_for
from textual.pilot import Pilot
from textual.widgets import TextArea

from kernel_tui.ui.screens.explorer import ExplorerScreen
from kernel_tui.ui.view.shown import Shown
from kernel_tui.ui.widgets.charts.runtime_chart import RuntimeChart
from kernel_tui.ui.widgets.charts.runtime_plot import RuntimePlot
from kernel_tui.ui.widgets.kernel_table import KernelTable
from kernel_tui.ui.widgets.lesson_view import LessonView
from kernel_tui.ui.widgets.scenario_list import ScenarioList
from kernel_tui.ui.widgets.summary_strip import SummaryStrip

UI = REPO / "kernel_tui" / "ui"
WIDE = (200, 50)


def derived_now(screen: ExplorerScreen) -> Shown:
    """``Shown`` derived afresh from the screen's state, without touching the one the panes hold."""
    held = screen.shown
    screen.derive_shown()
    derived = screen.shown
    assert derived is not None
    assert held == derived, "the funnel left the panes' Shown behind the state"
    return derived


def assert_panes_hold(screen: ExplorerScreen, value: Shown) -> None:
    eager, compiled = screen.query_one("#eager", KernelTable), screen.query_one("#compiled", KernelTable)
    assert eager.result is value.eager.result and compiled.result is value.compiled.result
    assert str(compiled.border_title) == value.compiled.title
    chart = screen.query_one("#chart", RuntimeChart)
    assert chart.mode == value.chart.mode and chart.shown == value.chart
    assert all(plot.shown is chart.shown for plot in chart.query(RuntimePlot)), "the plot holds the chart's slice"
    assert screen.query_one("#summary", SummaryStrip).shown == value.summary
    assert screen.query_one("#scenarios", ScenarioList).current == value.scenarios.index
    assert shown_text(screen.query_one("#status-text")) == value.status.text.plain
    assert screen.sub_title == value.sub_title
    assert chart.highlight == value.chart.highlight
    lesson = screen.query_one("#lesson", LessonView)
    assert (lesson.line_work, lesson.linked_lines) == (value.code.work, value.code.linked)
    assert lesson.cursor_line == value.code.lesson_cursor
    assert eager.marked_line == value.code.marked_line == compiled.marked_line
    said = shown_text(screen.query_one("#kernel-name")).strip()
    if value.name.story is not None:
        assert said == value.name.story.plain
    elif value.name.kernel is not None:
        assert said.startswith(f"{value.name.mode} › {value.name.kernel.name}"), said


async def settled(pilot: Pilot[None]) -> None:
    await pilot.pause()
    await pilot.pause()


async def test_every_pane_holds_its_slice_after_each_kind_of_event() -> None:
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        screen = explorer(app)
        await wait_for(pilot, lambda: screen.engine.hello is not None, what="the engine's hello")
        await settled(pilot)
        before = derived_now(screen)
        assert before.eager.result is None
        assert_panes_hold(screen, before)

        await run_to_the_end(pilot, key="s")  # engine messages: stages, reports, sweep points, Done
        await settled(pilot)
        ran = derived_now(screen)
        assert ran.eager.result is not None and len(ran.chart.points) == 6
        assert ran.chart.points is screen.runs[ADD_RELU].record.points, "the points are the run record's, not a copy"
        assert_panes_hold(screen, ran)

        await pilot.press("b")  # a key: the chart's next mode
        await settled(pilot)
        charted = derived_now(screen)
        assert charted.chart.mode != ran.chart.mode
        assert_panes_hold(screen, charted)

        await pilot.press("B")  # a key that changes what the tables are marked against
        await settled(pilot)
        pinned = derived_now(screen)
        assert pinned.summary.pinned and not ran.summary.pinned
        assert_panes_hold(screen, pinned)

        await pilot.press("n")  # the list: another scenario, never run
        await wait_for(pilot, lambda: screen.catalog.current_path == BROKEN, what="the next scenario")
        await settled(pilot)
        moved = derived_now(screen)
        assert moved.scenarios.index == 1 and moved.eager.result is None and moved.chart.points == ()
        assert_panes_hold(screen, moved)

        await pilot.press("p")  # and back: the run's numbers come back from the state, not from a widget
        await wait_for(pilot, lambda: screen.catalog.current_path == ADD_RELU, what="the first scenario")
        await settled(pilot)
        back = derived_now(screen)
        assert back.eager.result is ran.eager.result
        assert_panes_hold(screen, back)

        eager = screen.query_one("#eager", KernelTable)
        eager.focus()
        await pilot.press("down")  # a cursor's move in a table: the name line, the code's links, the chart's mark
        await settled(pilot)
        highlighted = derived_now(screen)
        assert highlighted.name.kernel is not None and highlighted.name.kernel == eager.kernels[1]
        assert highlighted.chart.highlight == ("eager", eager.kernels[1])
        assert highlighted.code.linked == frozenset(eager.kernels[1].lines) != frozenset()
        assert_panes_hold(screen, highlighted)

        await pilot.press("j")  # the lesson's line cursor: its line marked in both tables, told under them
        await settled(pilot)
        walked = derived_now(screen)
        assert walked.code.lesson_cursor is not None and walked.code.marked_line == walked.code.lesson_cursor
        assert walked.name.story is not None and walked.name.story.plain.startswith(f"line {walked.code.marked_line}")
        assert_panes_hold(screen, walked)

        await pilot.press("e")  # the editor, on a copy of the scenario: its cursor's line is state too
        await wait_for(pilot, lambda: bool(screen.query("#snippet-text")), what="the editor")
        text_area = screen.query_one("#snippet-text", TextArea)
        text_area.move_cursor((2, 0))
        await wait_for(pilot, lambda: screen.state.cursors.editor_line == 3, what="the editor's line in the state")
        await settled(pilot)
        edited = derived_now(screen)
        assert edited.editing and edited.code.in_editor and edited.code.marked_line == 3
        assert_panes_hold(screen, edited)


PANE_SETTERS = frozenset({"show", "say", "set_highlight", "show_work", "show_lines", "mark_line"})
"""The methods that hand a pane what to show (the panes' own, which their reactives' watchers call)."""
PANE_SLICES = frozenset({"shown", "code", "marked_line"})
"""The reactives that hold a pane's slice of ``Shown``; looked for where widgets are held (``HOLDERS``): the state
and the view below them touch no widget, and name other things so."""
HOLDERS = frozenset({"screens", "app"})
BINDING = UI / "screens" / "explorer_panes.py"
"""The one place panes are handed their slices of ``Shown``."""
HAND_REFRESHES = frozenset({"derive_shown", "refresh_shown", "hand", "_show_panes", "on_idle"})
"""Every way to derive ``Shown`` or hand the panes their slices by hand."""
FUNNEL = {
    ("app/app.py", "on_idle"): {"on_idle"},
    ("screens/explorer.py", "on_idle"): {"derive_shown"},
    ("screens/explorer.py", "on_mount"): {"derive_shown"},
    ("screens/explorer.py", "watch_shown"): {"_show_panes"},
    ("screens/explorer.py", "_show_panes"): {"hand"},
    ("screens/explorer.py", "on_snippet_editor_ready"): {"_show_panes"},
}
"""The funnel (the explorer's ``on_idle``, after every burst of events in its queue or the app's, and the first
frame) and the binding (``watch_shown``, and the editor once it mounted, is handed its slice again). The panes are
composed once: a layout switch only sets the screen's classes, so no pane is handed its slice again after one."""


def _calls_by_function(path: Path, *, slices: bool = True) -> dict[str, set[str]]:
    """Per function of ``path``, the pane setters it calls, and the panes' slices it sets, on something other than
    ``self`` (the screen's own ``shown`` is the funnel's)."""
    found: dict[str, set[str]] = {}
    for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in PANE_SETTERS
                and not _on_self(node.func)
            ):
                found.setdefault(function.name, set()).add(node.func.attr)
            if slices and isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Attribute) and target.attr in PANE_SLICES and not _on_self(target):
                        found.setdefault(function.name, set()).add(f"{target.attr} =")
    return found


def _on_self(attribute: ast.Attribute) -> bool:
    return isinstance(attribute.value, ast.Name) and attribute.value.id == "self"


def _modules() -> list[Path]:
    # The widgets show themselves (their own ``show`` calls their parts); the screens and parts must not.
    return [path for path in sorted(UI.rglob("*.py")) if "widgets" not in path.parts and path != BINDING]


def test_no_pane_is_handed_content_outside_the_binding() -> None:
    around: dict[tuple[str, str], set[str]] = {}
    for path in _modules():
        for function, setters in _calls_by_function(path, slices=bool(HOLDERS & set(path.parts))).items():
            around[(path.relative_to(UI).as_posix(), function)] = setters
    assert around == {}, "a pane handed content outside the binding (explorer_panes.Panes.hand)"


def test_the_scan_finds_a_pane_handed_content_around_the_binding(tmp_path: Path) -> None:
    """The scan above would catch the paths it once listed as still going around ``Shown``."""
    module = tmp_path / "around.py"
    module.write_text(
        "def _kernel_highlighted(self, event):\n"
        "    self.query_one('#kernel-name').say(event.text)\n"
        "    table.mark_line(7)\n"
        "    self.show(1)\n"
        "    self.panes.eager.marked_line = 7\n"
        "    self.shown = None\n"
    )
    assert _calls_by_function(module) == {"_kernel_highlighted": {"say", "mark_line", "marked_line ="}}


def test_no_handler_refreshes_the_panes_outside_the_funnel() -> None:
    calls: dict[tuple[str, str], set[str]] = {}
    derives: list[str] = []
    for path in sorted(UI.rglob("*.py")):
        for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            where = (path.relative_to(UI).as_posix(), function.name)
            for node in ast.walk(function):
                if not isinstance(node, ast.Call):
                    continue
                name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
                if name in HAND_REFRESHES:
                    calls.setdefault(where, set()).add(name)
                if name == "compute_shown":
                    derives.append(":".join(where))
    assert calls == FUNNEL
    assert derives == ["screens/explorer.py:derive_shown"], "Shown is derived in one place"


BOOK_CHANGES = frozenset(
    {"start", "cancel", "ended", "forget", "toggle", "take", "ended_without_report", "use_device", "replace", "add"}
)
"""What changes the run book, a run, the pinned baselines, the device lessons ask of or the variant book, in
place."""
BOOKS = frozenset({"runs", "run", "cancelled", "baselines", "predictions", "book"})
"""The names the explorer's parts hold those books (and a run of the run book) by."""


def _book_changes(path: Path) -> set[str]:
    """``function: receiver.method`` for each call of a book's changing method in ``path``."""
    found: set[str] = set()
    for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            receiver = node.func.value
            name = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", "")
            if node.func.attr in BOOK_CHANGES and name in BOOKS:
                found.add(f"{function.name}: {name}.{node.func.attr}")
    return found


def test_the_books_change_only_through_the_state_s_transitions() -> None:
    """The run book, its runs, the pinned baselines and the device lessons ask of are changed by ``ExplorerState``'s
    transitions (``run_started``, ``run_said``, ...), not by the screen's parts in place."""
    changes = {
        path.relative_to(UI).as_posix(): found
        for path in sorted(UI.rglob("*.py"))
        if "state" not in path.parts and (found := _book_changes(path))
    }
    assert changes == {}


def test_the_book_scan_finds_a_book_changed_in_place(tmp_path: Path) -> None:
    module = tmp_path / "around.py"
    module.write_text(
        "def action_run(self):\n    self.runs.start(1, path)\n    run.take(message, now)\n    go.start()\n"
    )
    assert _book_changes(module) == {"action_run: runs.start", "action_run: run.take"}
