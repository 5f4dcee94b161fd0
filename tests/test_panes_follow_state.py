"""The panes follow the explorer's state: after each kind of event, every pane on screen holds its slice of
``Shown``, and ``Shown`` is what ``shown()`` derives from the state then, with no handler refreshing anything
by hand; and, by an AST scan of ``kernel_tui/ui``, nothing derives ``Shown`` or hands the panes their slices
outside the one funnel and binding, and no pane is handed content outside the binding but for the paths
listed as still going around it.
"""

from __future__ import annotations

import ast
from pathlib import Path

from test_ui_support import ADD_RELU, BROKEN, REPO, explorer, make_app, run_to_the_end, shown_text, wait_for
from textual.pilot import Pilot

from kernel_tui.ui.screens.explorer import ExplorerScreen
from kernel_tui.ui.shown import Shown
from kernel_tui.ui.widgets.kernel_table import KernelTable
from kernel_tui.ui.widgets.runtime_chart import RuntimeChart
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
    assert chart.mode == value.chart.mode and tuple(chart.points) == value.chart.points
    assert screen.query_one("#summary", SummaryStrip).summary == value.summary
    assert screen.query_one("#scenarios", ScenarioList).current == value.scenarios.index
    assert shown_text(screen.query_one("#status-text")) == value.status.text.plain
    assert screen.sub_title == value.sub_title


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


PANE_SETTERS = frozenset({"show", "say", "set_highlight", "show_work", "show_lines", "mark_line"})
"""The methods that hand a pane what to show."""
BINDING = UI / "screens" / "explorer_panes.py"
"""The one place panes are handed their slices of ``Shown``."""
HAND_REFRESHES = frozenset({"derive_shown", "refresh_shown", "show_panes", "_show_panes", "on_idle"})
"""Every way to derive ``Shown`` or hand the panes their slices by hand."""
FUNNEL = {
    ("app.py", "on_idle"): {"on_idle"},
    ("screens/explorer.py", "on_idle"): {"derive_shown"},
    ("screens/explorer.py", "on_mount"): {"derive_shown"},
    ("screens/explorer.py", "watch_shown"): {"_show_panes"},
    ("screens/explorer.py", "on_deferred_mounted"): {"_show_panes"},
    ("screens/explorer.py", "_show_panes"): {"show_panes"},
    ("screens/explorer.py", "__init__"): {"_show_panes"},
}
"""The funnel (the explorer's ``on_idle``, after every burst of events in its queue or the app's, and the first
frame) and the binding (``watch_shown``, and a pane mounted late, or every pane anew after a layout switch, which
the screen hands the ``LayoutSwitch`` it holds, is handed its slice again)."""
STILL_AROUND = {
    ("screens/explorer.py", "_show_kernel_name"): {"say", "show", "set_highlight"},
    ("screens/snippet_actions.py", "on_text_area_selection_changed"): {"say"},
    ("code_links.py", "show"): {"show_work", "show_lines", "mark_line"},
    ("code_links.py", "lesson_line_moved"): {"say"},
    ("code_links.py", "code_line_moved"): {"mark_line"},
}
"""The cursor's line layer, the editor's line marks and the chart's highlight: the paths that still go around
``Shown`` (issue 36). Listed exactly, so a new path fails the scan, and so does one of these once it is gone
(take it off the list then)."""


def _calls_by_function(path: Path) -> dict[str, set[str]]:
    """Per function of ``path``, the pane setters it calls on something other than ``self``."""
    found: dict[str, set[str]] = {}
    for function in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in PANE_SETTERS
                and not (isinstance(node.func.value, ast.Name) and node.func.value.id == "self")
            ):
                found.setdefault(function.name, set()).add(node.func.attr)
    return found


def _modules() -> list[Path]:
    # The widgets show themselves (their own ``show`` calls their parts); the screens and parts must not.
    return [path for path in sorted(UI.rglob("*.py")) if "widgets" not in path.parts and path != BINDING]


def test_no_pane_is_handed_content_outside_the_binding() -> None:
    around: dict[tuple[str, str], set[str]] = {}
    for path in _modules():
        for function, setters in _calls_by_function(path).items():
            around[(path.relative_to(UI).as_posix(), function)] = setters
    assert around == STILL_AROUND


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
