"""The explorer: the scenario list, the lesson and its code, the kernel tables, the summary and the chart.

This screen composes its parts, each the one owner of its state: the ``Catalog`` (which scenarios are
listed, which one is shown), the ``RunBook`` (each scenario's latest run, the one the engine works on),
the ``SnippetSession`` with its ``SnippetWorkbench`` (the editor) and ``SnippetActions`` (its keys and
messages, and the size every run asks for), the ``WhyPart`` (code, predictions), the
``VariantsPart`` (which compile variants are shown and added) and the ``PinnedBaselines`` (each scenario's
run pinned with B). What the panes derive from is one value, ``state`` (``ExplorerState``: those books, the
engine's state, the view's choices and the cursors), which the handlers change through its transitions; what
the panes show is one value, ``shown``, computed from it by one pure function (``kernel_tui.ui.view.shown``) in one
funnel, after every burst of events (``on_idle``); its watcher hands each pane its slice (``explorer_panes``), a
reactive the pane holds and compares, so only a pane whose slice changed draws again; no handler refreshes a pane
by hand. Runs go through the engine
link it is given (``explorer_engine``).

Two layouts (``explorer_layout``): side by side when the terminal is large, tabs when it is small
(80x24). The widgets are composed once; a resize only changes the screen's classes, which lay them out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.events import DescendantBlur, DescendantFocus, Resize
from textual.reactive import Reactive, var
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import DataTable, OptionList, Tabs

from kernel_tui.model.scenario.scenario_file import ScenarioFileError
from kernel_tui.text.kernel_order import next_order
from kernel_tui.ui.screens.actions import (
    EXPLORER_ACTIONS,
    ORDER_ACTIONS,
    QUIT_ACTIONS,
    SNIPPET_ACTIONS,
    VARIANT_ACTIONS,
    WHY_ACTIONS,
    ActionTables,
    bindings,
)
from kernel_tui.ui.screens.asked import Asked, Reply
from kernel_tui.ui.screens.explorer_engine import EngineSide
from kernel_tui.ui.screens.explorer_layout import ExplorerLayout, compose_explorer, find
from kernel_tui.ui.screens.explorer_panes import Panes
from kernel_tui.ui.screens.focus_staying import FocusOnStayingWidgets
from kernel_tui.ui.screens.key_queue import KEY_WAIT_S, held_keys, keys_waiting
from kernel_tui.ui.screens.latest_size import LatestSizeOnly
from kernel_tui.ui.screens.snippet_actions import SnippetActions
from kernel_tui.ui.screens.snippets import SnippetWorkbench
from kernel_tui.ui.screens.variants_part import VariantsPart
from kernel_tui.ui.screens.why import WhyPart
from kernel_tui.ui.state.course.catalog import Catalog, ScenarioEntry
from kernel_tui.ui.state.course.source import scenario_source, shown_line_numbers
from kernel_tui.ui.state.cursors import next_code_line, table_rows
from kernel_tui.ui.state.explorer_state import ExplorerState, ViewState
from kernel_tui.ui.state.pinned_baselines import PinnedBaselines
from kernel_tui.ui.state.run_state import RunBook, ScenarioRun
from kernel_tui.ui.state.snippets.snippet_session import SnippetSession
from kernel_tui.ui.view import describe
from kernel_tui.ui.view.shown import NameShown, Shown
from kernel_tui.ui.view.shown import shown as compute_shown
from kernel_tui.ui.widgets.charts.chart_modes import next_chart_mode
from kernel_tui.ui.widgets.kernel_table import KernelTable
from kernel_tui.ui.widgets.snippet_editor import SnippetEditor

if TYPE_CHECKING:
    from textual.widgets import TextArea
    from textual.worker import Worker

    from kernel_tui.model.report.report import ScenarioReport
    from kernel_tui.transport.protocol import Hello
    from kernel_tui.ui.link.engine_link import EngineLink
    from kernel_tui.ui.link.messages import EngineSaid
    from kernel_tui.ui.state.course.score import PredictionBook
    from kernel_tui.ui.state.explorer_state import EngineState
    from kernel_tui.ui.state.snippets.session_effects import Effects
    from kernel_tui.ui.view.code_links import CodeLinks


class ExplorerScreen(LatestSizeOnly, FocusOnStayingWidgets, Screen[None]):
    """The one main screen of the app."""

    AUTO_FOCUS = "#scenarios"
    MEASURES = True
    """False where nothing can be measured (``kernel-tui view``): no drafts offered back, no sweep to run."""

    # Textual's own repaints the whole screen on every focus move, though only the two panes whose
    # ``:focus`` style changes need it (restyling them repaints them): a Tab press cost a full frame.
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)

    ACTIONS: ActionTables = (
        EXPLORER_ACTIONS,
        ORDER_ACTIONS,
        SNIPPET_ACTIONS,
        WHY_ACTIONS,
        VARIANT_ACTIONS,
        QUIT_ACTIONS,
    )
    """The action tables this screen answers to: its keys, and what help and the palette list for it."""
    BINDINGS = bindings(*ACTIONS)

    shown: var[Shown | None] = var(None, init=False)
    """What every pane shows (``kernel_tui.ui.view.shown``): the one value the panes are handed slices of."""
    editing: var[bool] = var(False, init=False, toggle_class="-editing")
    """The editor holds the scenario shown (``Shown.editing``): on a large terminal it takes the lesson's place."""
    keys_follow: var[tuple[object, ...]] = var((), init=False, bindings=True)
    """The slices of ``Shown`` whose change can change which keys apply (a run's, a scenario's): a new one asks
    the footer to read the keys again. A sweep point (the chart), a cursor's move (the code's links, the line under
    the tables) or a tick (the status line) changes none, and they come many times a second."""

    def __init__(
        self,
        entries: list[ScenarioEntry],
        *,
        link: EngineLink,
        clock: Callable[[], float],
        predictions: PredictionBook,
        app_title: str = "kernel-tui",
    ) -> None:
        super().__init__()
        self.link = link
        self.clock = clock
        """Where elapsed times come from; tests freeze it so screenshots do not change."""
        self.app_title = app_title
        self.catalog = Catalog(entries)
        self.runs = RunBook()
        self.predictions = predictions
        self.session = SnippetSession(self.catalog)
        self.snippets = SnippetWorkbench(self, self.session, self.runs, clock)
        self.why = WhyPart(self.catalog, self.runs, predictions)
        self.baselines = PinnedBaselines(self.session.scenario_of)
        self.variants = VariantsPart(self.catalog, self.runs, self.session, self)
        books = (self.catalog, self.runs, self.baselines, self.variants.book, predictions)
        self.state = ExplorerState(*books, view=ViewState(measures=self.MEASURES))
        """What every pane derives from (``explorer_state``): changed by its transitions, shown by the funnel."""
        self.engine_side = EngineSide(self, link, clock, self.runs, (self.snippets, self.why), self.reply)
        """The engine's part: its workers, what they say, and the engine's state."""
        self.panes_layout = ExplorerLayout(self)
        """Which layout the widgets are in (side by side, or tabs), and which pane the tabs show."""
        self.snippet_actions = SnippetActions(self, self.panes_layout, self.snippets, app_title)
        """The editor's keys and messages, and the size every run asks for (``z``)."""

    # -- layout ------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        self.panes = Panes.made()
        """The panes, composed once and held: the funnel hands each its slice (``explorer_panes``)."""
        yield from compose_explorer(self.panes)

    def on_mount(self) -> None:
        self.panes_layout.fit_tables()
        self.derive_shown()  # the first frame shows the state as it starts
        self.set_interval(1.0, self._tick)
        # After the first frame: starting a process (which then imports torch) must not delay the paint.
        self.call_after_refresh(self._start_engine)
        self.snippets.start(offer_drafts=self.MEASURES)

    def on_unmount(self) -> None:
        # Quitting: the draft is written, and drafts that hold nothing unsaved go. (The widgets are going.)
        self.snippets.close()

    # -- showing -----------------------------------------------------------------------------------

    @property
    def wide(self) -> bool:
        return self.panes_layout.wide

    def on_resize(self, event: Resize) -> None:
        was_wide = self.wide
        self.panes_layout.fit()
        if self.wide != was_wide:
            self.refresh_bindings()  # the footer shows o in the wide layout only

    @on(Tabs.TabActivated, "#tabs")
    def _tab_activated(self, event: Tabs.TabActivated) -> None:
        self.panes_layout.tab_activated(event.tabs, event.tab)

    @property
    def entry(self) -> ScenarioEntry:
        return self.catalog.current

    @property
    def shown_run(self) -> ScenarioRun | None:
        return self.runs.get(self.entry.path) if self.catalog else None

    @property
    def index(self) -> int:
        """Which scenario the list was last told is on screen."""
        return self.shown.scenarios.index if self.shown is not None else 0

    def on_idle(self) -> None:
        """The one funnel: whatever event changed the state (an engine message, a key's action, a widget's
        message, a timer, a dialog's answer), ``Shown`` is derived from it here, once its burst of messages has
        been handled, and the panes follow their slices (``watch_shown``); nothing refreshes a pane by hand.
        Actions run in the app's queue, whose idle calls this too (``KernelTuiApp.on_idle``)."""
        if keys_waiting(self.app):
            # A key held on a busy machine: the next key would throw this frame away; shown after the keys.
            self.set_timer(KEY_WAIT_S, self.on_idle)
            return
        self.derive_shown()

    def derive_shown(self) -> None:
        """Compute what the panes show from the state now; the watcher shows what changed. Called by the
        funnel (``on_idle``) and once on mount."""
        if not self.catalog:
            return
        self.engine_side.warming_ended()
        # Where saved numbers were measured is the saved results' link's to say, per scenario (``kernel-tui view``).
        self.state = self.state.saved_origin_known(self.saved_origin())
        self.shown = compute_shown(self.state, self.clock())

    def session_reports(self) -> list[ScenarioReport]:
        """Every report this session holds: each scenario's latest finished run and every pinned baseline."""
        return [
            *(run.record.report for run in self.runs.values() if run.record.report is not None),
            *self.baselines.reports(),
        ]

    def saved_origin(self) -> str | None:
        """Where the saved numbers on screen were measured; None: they are measured here."""
        return None

    def watch_shown(self, old: Shown | None, new: Shown | None) -> None:
        self._show_panes(old)

    def _show_panes(self, old: Shown | None) -> None:
        """Hand every pane its slice of ``shown`` (``Panes.hand``); each pane's reactive compares it with the one it
        holds, so handing them all (``old`` None, once the editor mounted) costs no drawing of what did not change."""
        if (shown := self.shown) is None:
            return
        self.sub_title = shown.sub_title
        self.editing = shown.editing
        self.panes.hand(self.app, shown)
        self.keys_follow = (
            shown.scenarios,
            shown.lesson,
            shown.signature,
            shown.eager,
            shown.variants,
            shown.compiled,
            shown.summary,
        )

    def watch_editing(self) -> None:
        self.panes_layout.fit_tables()  # the editor takes more of the rows than the lesson

    @property
    def code_links(self) -> CodeLinks | None:
        """The code's links as the panes show them (tests read this)."""
        return self.shown.code if self.shown is not None else None

    @property
    def name_shown(self) -> NameShown | None:
        """The kernel under the followed table's cursor, as the line under the tables names it."""
        return self.shown.name if self.shown is not None else None

    def reply(self, replies: list[Reply]) -> None:
        """Show what a part handed back (notices, a dialog); the funnel shows the state it changed."""
        for each in replies:
            if isinstance(each, Asked):
                self.push_dialog(each.dialog, each.answered)
            else:
                self.notify(each.message, severity=each.severity, timeout=each.timeout)

    def _tick(self) -> None:
        """Time passing is an event too: a run's elapsed seconds, the first compile's progress and its end (which the
        link keeps, not posts) are shown by the funnel after it. Textual calls a timer's callback from the timer's
        own task, not through this screen's queue, so no idle followed it: the counter froze where nothing else
        made the screen idle ("19 s so far", where the warm-up's bar stops at 95 % of 20 s, for minutes). Asked
        here, the screen's queue goes idle once it has handled what waits in it, and the funnel runs."""
        self.check_idle()

    # -- events from widgets -----------------------------------------------------------------------

    @on(OptionList.OptionHighlighted, "#scenarios")
    def _scenario_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        # The list posts this for the screen's own moves too (``index`` drives its highlight), and keys can move
        # on before it arrives: one the screen set itself, or one the highlight has left since, would pull the
        # screen back to an older scenario (``n`` held: the header on one lesson, the text cycling through others).
        if event.option_index == self.index or event.option_index != event.option_list.highlighted:
            return
        self.state = self.state.select_scenario(event.option_index)

    @on(OptionList.OptionSelected, "#scenarios")
    def _scenario_selected(self, event: OptionList.OptionSelected) -> None:
        self.action_pane("lesson")

    @on(DataTable.RowSelected, "#variants-table")
    def _variant_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.variants.show_kernels_of(event.row_key.value)

    @on(DataTable.RowHighlighted)
    def _kernel_highlighted(self, event: DataTable.RowHighlighted) -> None:
        table = event.data_table
        if not isinstance(table, KernelTable) or self.shown is None:
            return
        # The row is the event's; the rows it indexes are those the table was handed last, the slice of ``shown``.
        side = self.shown.compiled if table.mode == "compiled" else self.shown.eager
        rows = table_rows(side.result, side.baseline, side.order)
        self.state = self.state.row_highlighted(table.mode, event.cursor_row, rows, focused=table.has_focus)

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        self.state = self.state.editor_focused(event.widget.id == "snippet-text")  # letters are typed there
        if isinstance(event.widget, KernelTable):
            self.state = self.state.table_focused(event.widget.mode)

    def on_descendant_blur(self, event: DescendantBlur) -> None:
        if event.widget.id == "snippet-text":
            self.state = self.state.editor_focused(False)

    # -- actions -----------------------------------------------------------------------------------

    # -- the engine's part (``EngineSide``), held, not inherited ----------------------------------------------

    @property
    def engine(self) -> EngineState:
        return self.state.engine

    @property
    def hello(self) -> Hello | None:
        """The engine's hello once it started; None while it (re)starts."""
        return self.engine.hello

    def _start_engine(self) -> None:
        self.engine_side.start()

    def on_engine_said(self, said: EngineSaid) -> None:
        self.engine_side.take(said)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.engine_side.worker_changed(event)

    def action_cancel(self) -> None:
        """Stop the engine; the app stays usable and the next run starts a fresh engine."""
        self.engine_side.cancel()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if (enabled := self.snippets.enabled(action)) is not None:
            return enabled
        if action == "cancel":
            return self.runs.active is not None
        if action == "run" and parameters == (True,) and not self.MEASURES:
            return False  # r shows the saved run, its sweep included: s would do nothing more
        if action == "kernel_order" and parameters != ("next",):
            # o's binding of the next order, shown while a kernel table has the focus (``ORDER_ACTIONS``); at 80
            # columns the footer has no room for it (``? Help`` would be cut), and o works unshown.
            on_table = self.wide and isinstance(self.focused, KernelTable)
            return on_table and parameters == (next_order(self.state.view.kernel_order),)
        if action == "pin_baseline":
            return self.baselines.can_pin(self.shown_run)
        if action == "details":
            run = self.shown_run
            return (run is not None and (run.record.report is not None or run.record.error is not None)) or (
                self.engine.error is not None
            )
        return super().check_action(action, parameters)

    def action_move(self, step: int) -> None:
        """Show the next (1) or previous (-1) scenario."""
        if not self.catalog:
            return
        # Shown by the funnel after the keys already queued: a held key moves through the list at once and
        # shows only the scenario it stops on, not every one it passed.
        self.state = self.state.select_scenario(self.catalog.index + step)

    def action_pane(self, pane: str) -> None:
        """Show a pane (a tab when the terminal is small) and focus it."""
        self.panes_layout.bring_forward(pane)
        self.call_after_refresh(self.panes_layout.focus, pane)

    def action_run(self, sweep: bool) -> None:
        """Run the scenario on screen now; a run already going (of any scenario) is cancelled first."""
        if (asked := self.why.predict_first(self.action_run, sweep)) is not None:
            self.reply([asked])
            return
        entry = self.entry
        if self.runs.active is not None:
            self.engine_side.cancel_active()
        output_from = self.link.output_mark()
        # Asked for here, on the UI thread, so that an Esc pressed at once cancels this very run; the link
        # numbers it, and the run's record starts with that number.
        variants = self.variants.request(entry.path)
        messages = self.link.run(entry.path, sweep=sweep, size=self.run_size, variants=variants)
        run_id = messages.run.run_id
        self.state = self.state.run_started(run_id, entry.path, sweep=sweep, now=self.clock(), output_from=output_from)
        self.engine_side.stream(run_id, entry.path, messages)
        if not self.wide and self.panes_layout.pane in ("scenarios", "lesson"):
            self.action_pane("kernels")

    def action_pin_baseline(self) -> None:
        """Pin the run on screen as its scenario's baseline, or unpin it if it is the pinned one."""
        run = self.shown_run
        if run is None or not self.baselines.can_pin(run):
            return
        title = self.catalog.title_of(self.baselines.scenario_of(run.record.path))
        self.state = self.state.baseline_toggled(run)
        if self.baselines.is_pinned(run):
            self.notify(f"Pinned as the baseline of {title}: later runs show what changed (B again unpins)")
        else:
            self.notify(f"Unpinned the baseline of {title}")

    def action_details(self) -> None:
        """The details behind the one-liners, for the scenario on screen."""
        from kernel_tui.ui.screens.dialogs.details import DetailsScreen  # a dialog's module loads when it first opens

        run = self.shown_run
        body = describe.details_text(
            run,
            output=self.link.output() if run is None else self.link.output(run.output_from, run.output_to),
            engine_error=self.engine.error,
            log_path=self.link.log_path,
        )
        self.app.push_screen(DetailsScreen(f"Details: {self.entry.title}", body))

    def action_code_line(self, step: int) -> None:
        """Move the lesson's line cursor to the next (1) or previous (-1) line that launched work."""
        if (shown := self.shown) is None:
            return
        entry, code = self.entry, shown.code
        try:
            walkable = shown_line_numbers(scenario_source(entry.read_source()))
        except ScenarioFileError:
            walkable = frozenset()
        line = next_code_line({*code.work, *code.changes} & walkable, code.lesson_cursor, step)
        self.state = self.state.lesson_line_moved(entry.path, line)

    def action_code(self) -> None:
        """The generated source of the highlighted compiled kernel, or of the one an eager kernel became."""
        name = self.name_shown
        self.reply([self.why.show_code(name.kernel if name is not None else None, self.state.cursors.followed)])

    def action_modules(self) -> None:
        """The latest report's table per ``nn.Module``, in a dialog that orders it."""
        from kernel_tui.ui.screens.dialogs.modules import ModulesScreen  # a dialog's module loads when it first opens

        run = self.shown_run
        self.app.push_screen(ModulesScreen(self.entry.title, run.record.report if run is not None else None))

    def action_kernel_order(self, order: str) -> None:
        """Order both kernel tables by ``order`` (``next``: the one after theirs); the cursors stay on their kernels."""
        chosen = next_order(self.state.view.kernel_order) if order == "next" else order
        self.state = self.state.kernel_order_chosen(chosen)

    def action_chart_mode(self) -> None:
        """Switch the chart to its next mode (``chart_modes``), and show it."""
        self.state = self.state.chart_mode_chosen(next_chart_mode(self.state.view.chart_mode))
        if not self.wide:
            self.action_pane("chart")

    def action_variants(self) -> None:
        """Choose which compile variants are shown, or add one for the next runs."""
        if (asked := self.variants.choose()) is not None:
            self.reply([asked])

    def action_try_experiments(self) -> None:
        """Add the variants the boundaries suggest (``VariantsPart.try_experiments``), and run with them."""
        if self.variants.try_experiments(self.notify):
            self.action_run(False)

    def action_toggle_predict(self) -> None:
        """Turn predict-then-reveal on or off for this session."""
        self.reply([self.why.toggle_predict()])

    # -- the editor's part (``SnippetActions``), held, not inherited ------------------------------------------

    @property
    def run_size(self) -> int | None:
        """The size every run asks for; None: each scenario's own SIZE. It is the header's title."""
        return self.snippet_actions.run_size

    @run_size.setter
    def run_size(self, size: int | None) -> None:
        self.snippet_actions.run_size = size

    def action_leave_editor(self) -> None:
        self.snippet_actions.leave_editor()

    def action_set_size(self) -> None:
        self.snippet_actions.set_size()

    def action_new_snippet(self) -> None:
        self.snippet_actions.new_snippet()

    def action_edit_scenario(self) -> None:
        self.snippet_actions.edit_scenario()

    def action_copy_scenario(self) -> None:
        self.snippet_actions.copy_scenario()

    def action_open_file(self) -> None:
        self.snippet_actions.open_file()

    def action_run_snippet(self, sweep: bool) -> None:
        self.snippet_actions.run_snippet(sweep)

    def action_save_snippet(self) -> None:
        self.snippet_actions.save_snippet()

    def action_save_snippet_as(self) -> None:
        self.snippet_actions.save_snippet_as()

    def action_show_editor(self) -> None:
        self.snippet_actions.show_editor()

    def action_restore_drafts(self) -> None:
        self.snippet_actions.restore_drafts()

    def on_snippet_editor_ready(self, message: SnippetEditor.Ready) -> None:
        self.snippet_actions.editor_ready()
        self._show_panes(None)  # its text area mounts late: the gutter's notes and marks are its slice

    def on_snippet_editor_edited(self, message: SnippetEditor.Edited) -> None:
        self.snippet_actions.edited(message.text, message.cursor)

    def on_snippet_editor_entered(self, message: SnippetEditor.Entered) -> None:
        self.snippet_actions.entered()

    def on_snippet_editor_left(self, message: SnippetEditor.Left) -> None:
        self.snippet_actions.left()

    def on_text_area_selection_changed(self, event: TextArea.SelectionChanged) -> None:
        # By the handler's name: TextArea is imported with the first snippet, not on the first frame.
        if event.text_area.id == "snippet-text":
            self.state = self.state.editor_line_moved(event.selection.end[0] + 1)

    # -- what the snippet workbench asks of the screen (``SnippetHost``) -----------------------------

    def editor_pane(self) -> SnippetEditor | None:
        return find(self, "#editor", SnippetEditor)

    def push_dialog(self, dialog: Screen[Any], answered: Callable[[Any], None] | None = None) -> None:
        self.app.push_screen(dialog, answered)

    def show_editor_pane(self) -> None:
        # The text area is mounted and focused a refresh or more from now: what is typed meanwhile is its.
        if (gate := held_keys(self.app)) is not None:
            gate.await_focus(self, "snippet-text")
        self.action_pane("editor")

    def keys_wait_for(self, widget_id: str) -> None:
        if (gate := held_keys(self.app)) is not None:
            gate.await_focus(None, widget_id)

    def run_scenario(self, sweep: bool) -> None:
        self.action_run(sweep)

    def session_changed(self, effects: Effects) -> None:
        document = self.session.document
        self.state = self.state.editor_opened(document.path if document is not None else None)
        self.state = self.state.runs_forgotten(effects.dropped)
        for notice in effects.notices:
            self.notify(notice.message, severity=notice.severity, timeout=notice.timeout)
