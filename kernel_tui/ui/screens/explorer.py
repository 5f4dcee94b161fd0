"""The explorer: the scenario list, the lesson and its code, the kernel tables, the summary and the chart.

This screen composes its parts, each the one owner of its state: the ``Catalog`` (which scenarios are
listed, which one is shown), the ``RunBook`` (each scenario's latest run, the one the engine works on),
the ``SnippetSession`` with its ``SnippetWorkbench`` (the editor), the ``WhyPart`` (code, chart mode,
predictions) and the ``PinnedBaselines`` (each scenario's run pinned with B); it sets what they hold on its
widgets. Runs go through the engine link it is given, in one thread worker (``kernel_tui.ui.engine_worker``);
the worker posts typed messages back (``kernel_tui.ui.messages``), and messages of a run that was cancelled
or replaced are dropped. What the panes show besides the scenario (which one is on screen, the engine's status,
the chart's mode) are reactives of this screen, bound to the panes' own as they are composed
(``ScreenValues``); the run size is the screen's title, which the header follows by itself.
The ``VariantsPart`` keeps which compile variants are shown and added, per scenario.

Two layouts (``explorer_layout``): side by side when the terminal is large, tabs when it is small
(80x24). Switching recomposes the screen: the bound values reach the new panes by themselves, and what is
shown again by hand is only the content of the list and of the scenario on screen (its lesson, tables,
summary, chart points), which the parts own, not the screen. On a small terminal the tabs that start hidden
are mounted just after the first frame (``Deferred``), so every method here that fills a pane does so only if
the pane is there yet.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from textual import on
from textual.app import ComposeResult
from textual.content import Content
from textual.events import DescendantFocus, Resize
from textual.reactive import Reactive, var
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import DataTable, OptionList, Static, TabbedContent
from textual.worker import Worker, WorkerState

from kernel_tui.ui import describe
from kernel_tui.ui.actions import (
    EXPLORER_ACTIONS,
    QUIT_ACTIONS,
    SNIPPET_ACTIONS,
    VARIANT_ACTIONS,
    WHY_ACTIONS,
    bindings,
)
from kernel_tui.ui.catalog import Catalog, ScenarioEntry
from kernel_tui.ui.code_links import CodeLinks
from kernel_tui.ui.key_queue import KEY_WAIT_S, keys_waiting
from kernel_tui.ui.pinned_baselines import PinnedBaselines
from kernel_tui.ui.run_notes import chart_hint, placeholder, waiting_notes
from kernel_tui.ui.run_state import RunBook, ScenarioRun
from kernel_tui.ui.screens.explorer_layout import (
    SCREEN_CHROME_ROWS,
    SIDE_BY_SIDE_TABLES_MIN_WIDTH,
    TOP_MIN_HEIGHT,
    ScreenValues,
    compose_explorer,
    find,
    fits_wide,
    focus_pane,
    focused_pane,
)
from kernel_tui.ui.screens.snippets import SnippetWorkbench
from kernel_tui.ui.screens.variants_part import VariantsPart
from kernel_tui.ui.screens.why import WhyPart
from kernel_tui.ui.snippet_session import Effects, Shown, SnippetSession
from kernel_tui.ui.widgets.kernel_name import KernelNameLine
from kernel_tui.ui.widgets.kernel_table import KernelTable
from kernel_tui.ui.widgets.lesson_view import LessonView
from kernel_tui.ui.widgets.run_status import RunStatusBar
from kernel_tui.ui.widgets.runtime_chart import RuntimeChart, next_chart_mode
from kernel_tui.ui.widgets.scenario_list import ScenarioList
from kernel_tui.ui.widgets.snippet_editor import SnippetEditor
from kernel_tui.ui.widgets.summary_strip import SummaryStrip
from kernel_tui.ui.widgets.variants_table import VariantsPane

if TYPE_CHECKING:
    # Only in annotations: the protocol's dataclasses stay off the first frame (bench/startup.py).
    from textual.widgets import TextArea

    from kernel_tui.model.report import ScenarioError
    from kernel_tui.transport.protocol import Hello, RunMessage
    from kernel_tui.ui.engine_link import EngineLink
    from kernel_tui.ui.messages import (
        EngineStarted,
        EngineStartFailed,
        ReportUpdated,
        RunFailed,
        RunFinished,
        StageStarted,
        SweepPointMeasured,
    )
    from kernel_tui.ui.score import PredictionBook
    from kernel_tui.ui.widgets.deferred import Deferred

W = TypeVar("W", bound=Widget)


class ExplorerScreen(Screen[None]):
    """The one main screen of the app."""

    AUTO_FOCUS = "#scenarios"
    MEASURES = True
    """False where nothing can be measured (``kernel-tui view``): no drafts offered back, no sweep to run."""

    # Textual's own repaints the whole screen on every focus move, though only the two panes whose
    # ``:focus`` style changes need it (restyling them repaints them): a Tab press cost a full frame.
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)

    ACTIONS = (EXPLORER_ACTIONS, SNIPPET_ACTIONS, WHY_ACTIONS, VARIANT_ACTIONS, QUIT_ACTIONS)
    """The action tables this screen answers to: its keys, and what help and the palette list for it."""
    BINDINGS = bindings(*ACTIONS)

    # What the panes show besides the scenario: bound to the panes (``ScreenValues``), or shown by a watcher.
    index: var[int] = var(0, init=False)
    """Which scenario is on screen: ``Catalog.index``, mirrored here so that the list can be bound to it."""
    hello: var[Hello | None] = var(None, init=False)
    """The engine's hello once it started; None while it (re)starts."""
    engine_error: var[ScenarioError | None] = var(None, init=False)
    """Why the engine could not start, if it could not."""
    engine_text: var[str] = var("")
    """The engine's status in words, from ``hello`` and ``engine_error``."""
    chart_mode: var[str] = var("time", init=False)
    """What the chart draws against size: ``time`` or ``bandwidth``; kept across scenarios and layouts."""
    run_size: var[int | None] = var(None, init=False)
    """The size every run asks for; None: each scenario's own SIZE."""

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
        self._move_pending = False
        """A move through the list waits to be shown (``action_move``)."""
        self.runs = RunBook()
        self.session = SnippetSession(self.catalog)
        self.snippets = SnippetWorkbench(self, self.session, self.runs, clock)
        self.why = WhyPart(self, self.catalog, self.runs, predictions)
        self.baselines = PinnedBaselines(self.session.scenario_of)
        self.variants = VariantsPart(self, self.catalog, self.runs, self.session)
        self.code_links = CodeLinks()
        self.wide = fits_wide(self.app.size)
        self._name_mode = "eager"
        """Which table's highlighted kernel the full-name line shows: the one last focused."""
        self._status_for_editor = False
        """Whether the status line names the editor's keys (ctrl+r, ctrl+t, F1): the editor has the focus."""
        self._warmup_since: float | None = None
        """When the engine began its first compile of the session; None once it ended (or never began)."""

    # -- layout ------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        self.set_class(self.wide, "-wide")
        self.set_class(not self.wide, "-narrow")
        values = ScreenValues(
            chart_mode=ExplorerScreen.chart_mode, engine_text=ExplorerScreen.engine_text, index=ExplorerScreen.index
        )
        yield from compose_explorer(self.wide, values)

    def on_mount(self) -> None:
        self._fit_tables()
        self.show_everything()
        self.set_interval(1.0, self._tick)
        # After the first frame: starting a process (which then imports torch) must not delay the paint.
        self.call_after_refresh(self._start_engine)
        self.snippets.start(offer_drafts=self.MEASURES)

    def on_unmount(self) -> None:
        # Quitting: the draft is written, and drafts that hold nothing unsaved go. (The widgets are going.)
        self.snippets.close()

    async def on_resize(self, event: Resize) -> None:
        wide = fits_wide(self.app.size)
        if wide == self.wide:
            self._fit_tables()
            return
        focused = focused_pane(self)
        self.wide = wide
        await self.recompose()
        self._fit_tables()
        self.show_everything()
        self.action_pane(focused)

    def _fit_tables(self) -> None:
        if self.wide:
            stacked = self.app.size.width < SIDE_BY_SIDE_TABLES_MIN_WIDTH
            self.query_one("#tables").set_class(stacked, "-stacked")
            # What the lesson and the chart leave: past it the results scroll rather than run off the screen.
            room = self.app.size.height - SCREEN_CHROME_ROWS - TOP_MIN_HEIGHT
            self.query_one("#results").styles.max_height = max(room, 6)

    def on_deferred_mounted(self, message: Deferred.Mounted) -> None:
        self.show_scenario()

    def _find(self, selector: str, expect: type[W]) -> W | None:
        return find(self, selector, expect)

    def _kernel_tables(self) -> list[KernelTable]:
        # Looked up through ``find``'s cache: this runs on every report and every cursor move in a table.
        return [table for mode in ("#eager", "#compiled") if (table := self._find(mode, KernelTable))]

    # -- showing data ------------------------------------------------------------------------------

    @property
    def entry(self) -> ScenarioEntry:
        return self.catalog.current

    @property
    def shown_run(self) -> ScenarioRun | None:
        return self.runs.get(self.entry.path) if self.catalog else None

    def show_everything(self) -> None:
        if not self.catalog:
            return
        self._show_marks()
        self.show_scenario()

    def show_scenario(self) -> None:
        self.index = self.catalog.index
        self.sub_title = self.why.sub_title()
        if lesson := self._find("#lesson", LessonView):
            lesson.show(self.entry, hide_explanation=self.why.hides_explanation())
        run = self.shown_run
        self._show_points(run)
        self._show_results()
        self._show_editing()

    def _show_editing(self) -> None:
        """Large terminals: the editor takes the lesson's place while its document is the scenario shown."""
        document = self.session.document
        self.set_class(document is not None and self.catalog.current_path == document.path, "-editing")

    def _show_points(self, run: ScenarioRun | None) -> None:
        if chart := self._find("#chart", RuntimeChart):
            chart.set_points(run.points if run else [], chart_hint(run, measures=self.MEASURES))

    def _show_results(self) -> None:
        run = self.shown_run
        report = run.report if run is not None else None
        eager_wait, compiled_wait = waiting_notes(run)
        comparison = self.baselines.comparison(run)
        if eager := self._find("#eager", KernelTable):
            eager.show(
                report.eager if report else None, eager_wait, self.baselines.mode_baseline(run, "eager", comparison)
            )
        self.variants.show(
            self._find("#variants", VariantsPane),
            self._find("#compiled", KernelTable),
            compiled_wait,
            self.baselines.mode_baseline(run, "compiled", comparison),
        )
        if signature := self._find("#signature", Static):
            shown = report.signature if report is not None else None
            signature.update(Content(f"shapes: {shown}" if shown else ""))
            signature.display = bool(shown)
        self._show_kernel_name()
        device = self.hello.device if self.hello else "cpu"
        if summary := self._find("#summary", SummaryStrip):
            summary.show(
                report,
                {} if self.why.hides_explanation() else self.entry.claims_for(device),  # no spoilers
                error=run.error if run is not None else None,
                placeholder=placeholder(run, measures=self.MEASURES),
                baseline=comparison,
                pinned=self.baselines.is_pinned(run),
            )
        self.why.show(self._kernel_tables(), self._find("#chart", RuntimeChart))
        self._show_status()
        self.refresh_bindings()

    def _show_kernel_name(self) -> None:
        table = self._find(f"#{self._name_mode}", KernelTable)
        line = self._find("#kernel-name", KernelNameLine)
        if table is None or line is None:
            return
        kernel = table.highlighted_kernel()
        any_kernels = any(t.kernels for t in self._kernel_tables())
        run, document = self.shown_run, self.session.document
        editing = document is not None and self.catalog.current_path == document.path
        self.code_links.show(self._find, run.report if run else None, kernel, editing, self.baselines.compared(run))
        if (story := self.code_links.story()) is not None:
            line.say(story)  # the editor's cursor line, until a table's cursor moves
        else:
            compiled = run.report.compiled if run is not None and run.report is not None else None
            line.show(table.mode if kernel else None, kernel, hint=any_kernels, compiled=compiled)
        if chart := self._find("#chart", RuntimeChart):
            chart.set_highlight(table.mode if kernel else None, kernel)  # the roofline marks it

    def _show_status(self) -> None:
        now = self.clock()
        run = self.shown_run
        background = None
        active = self.runs.active
        if active is not None and active.path != self.entry.path:
            background = (self.catalog.title_of(active.path), active)
        # The progress bar follows the engine's run, whichever scenario is on screen.
        warming = self._warming(now)
        progress = active.progress() if active is not None else None
        if progress is None and run is None and warming is not None:
            progress = describe.warming_progress(*warming)
        self._status_for_editor = getattr(self.focused, "id", None) == "snippet-text"  # letters are typed there
        if status := self._find("#status", RunStatusBar):
            status.show(
                describe.status_text(
                    run,
                    now=now,
                    background=background,
                    engine_error=self.engine_error,
                    warming=warming,
                    editing=self._status_for_editor,
                ),
                progress,
            )

    def _warming(self, now: float) -> tuple[float, float] | None:
        """(estimate, elapsed) seconds while the engine's first compile of the session runs, else None."""
        if self._warmup_since is None or self.hello is None or self.hello.warmup is None:
            return None
        if self.link.warmup_result() is not None:
            self._warmup_since = None
            return None
        return self.hello.warmup.estimate_s, now - self._warmup_since

    def _show_marks(self) -> None:
        # The catalog may have changed its current entry with its list (a snippet added or dropped).
        self.index = self.catalog.index
        if scenarios := self._find("#scenarios", ScenarioList):
            scenarios.show(self.catalog.entries, self._marks())

    def _marks(self) -> list[str | None]:
        return [self.runs.mark(entry.path, describe.failed_claims) for entry in self.catalog.entries]

    def _tick(self) -> None:
        if self.runs.active is not None or self._warmup_since is not None:
            self._show_status()

    # -- events from widgets -----------------------------------------------------------------------

    @on(OptionList.OptionHighlighted, "#scenarios")
    def _scenario_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        # The list posts this for the screen's own moves too (``index`` drives its highlight), and keys can move
        # on before it arrives: one the screen set itself, or one the highlight has left since, would pull the
        # screen back to an older scenario (``n`` held: the header on one lesson, the text cycling through others).
        if event.option_index == self.index or event.option_index != event.option_list.highlighted:
            return
        if self.catalog.select(event.option_index):
            self.show_scenario()

    @on(OptionList.OptionSelected, "#scenarios")
    def _scenario_selected(self, event: OptionList.OptionSelected) -> None:
        self.action_pane("lesson")

    @on(DataTable.RowSelected, "#variants-table")
    def _variant_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.variants.show_kernels_of(event.row_key.value)

    @on(DataTable.RowHighlighted)
    def _kernel_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if isinstance(event.data_table, KernelTable) and event.data_table.has_focus:
            self._name_mode = event.data_table.mode
            self.code_links.speaking = False
        self._show_kernel_name()

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        if isinstance(event.widget, KernelTable):
            self._name_mode = event.widget.mode
            self._show_kernel_name()
        if (event.widget.id == "snippet-text") != self._status_for_editor:
            self._show_status()  # its key hints change: letters are typed in the editor

    # -- actions -----------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if (enabled := self.snippets.enabled(action)) is not None:
            return enabled
        if action == "cancel":
            return self.runs.active is not None
        if action == "run" and parameters == (True,) and not self.MEASURES:
            return False  # r shows the saved run, its sweep included: s would do nothing more
        if action == "pin_baseline":
            return self.baselines.can_pin(self.shown_run)
        if action == "details":
            run = self.shown_run
            return (run is not None and (run.report is not None or run.error is not None)) or (
                self.engine_error is not None
            )
        return super().check_action(action, parameters)

    def action_move(self, step: int) -> None:
        """Show the next (1) or previous (-1) scenario."""
        if not self.catalog:
            return
        if self.catalog.select(self.catalog.index + step) and not self._move_pending:
            # Shown after the keys already queued: a held key moves through the list at once and shows
            # only the scenario it stops on, not every one it passed.
            self._move_pending = True
            self.call_later(self._show_moved)

    def _show_moved(self) -> None:
        if keys_waiting(self.app):
            # More keys are queued (a held key on a busy machine): showing this scenario would cost a full
            # repaint that the next key throws away; shown after them instead.
            self.set_timer(KEY_WAIT_S, self._show_moved)
            return
        self._move_pending = False
        self.show_scenario()

    def action_pane(self, pane: str) -> None:
        """Show a pane (a tab when the terminal is small) and focus it."""
        if not self.wide:
            self.query_one(TabbedContent).active = f"tab-{pane}"
        self.call_after_refresh(focus_pane, self, pane, tabs=not self.wide)

    def action_run(self, sweep: bool) -> None:
        """Run the scenario on screen now; a run already going (of any scenario) is cancelled first."""
        if self.why.predict_first(self.action_run, sweep):
            return
        entry = self.entry
        if self.runs.active is not None:
            self._cancel_active()
        run = self.runs.start(entry.path, sweep=sweep, now=self.clock())
        run.output_from = self.link.output_mark()
        # Asked for here, on the UI thread, so that an Esc pressed at once cancels this very run.
        variants = self.variants.request(entry.path)
        messages = self.link.run(entry.path, sweep=sweep, size=self.run_size, variants=variants)
        self._run_engine(run.run_id, entry.path, messages)
        self._show_marks()
        self._show_points(run)
        self._show_results()
        if not self.wide and self.query_one(TabbedContent).active in ("tab-scenarios", "tab-lesson"):
            self.action_pane("kernels")

    def action_cancel(self) -> None:
        """Stop the engine; the app stays usable and the next run starts a fresh engine."""
        cancelled = self._cancel_active()
        if cancelled is None:
            return
        # Cancel ended the engine: start the next one now, as after a crash, so "engine ready" stays true.
        self.hello = None
        self._start_engine()
        self._show_marks()
        self._show_results()
        self.snippets.run_ended(cancelled)

    def _cancel_active(self) -> ScenarioRun | None:
        cancelled = self.runs.cancel(self.clock())
        if cancelled is not None:
            cancelled.output_to = self.link.output_mark()
            self.workers.cancel_group(self, "engine")
            self.link.cancel()
        return cancelled

    def action_pin_baseline(self) -> None:
        """Pin the run on screen as its scenario's baseline, or unpin it if it is the pinned one."""
        run = self.shown_run
        if run is None or not self.baselines.can_pin(run):
            return
        title = self.catalog.title_of(self.baselines.scenario_of(run.path))
        if self.baselines.toggle(run):
            self.notify(f"Pinned as the baseline of {title}: later runs show what changed (B again unpins)")
        else:
            self.notify(f"Unpinned the baseline of {title}")
        self._show_results()

    def action_details(self) -> None:
        """The details behind the one-liners, for the scenario on screen."""
        from kernel_tui.ui.screens.details import DetailsScreen  # a dialog's module loads when it first opens

        run = self.shown_run
        body = describe.details_text(
            run,
            output=self.link.output() if run is None else self.link.output(run.output_from, run.output_to),
            engine_error=self.engine_error,
            log_path=getattr(self.link, "log_path", None),
        )
        self.app.push_screen(DetailsScreen(f"Details: {self.entry.title}", body))

    # -- the editor's and the why part's actions ---------------------------------------------------

    def action_new_snippet(self) -> None:
        """A new snippet from the template, the cursor on its expression."""
        self.snippets.new_snippet()

    def action_edit_scenario(self) -> None:
        """Edit the scenario on screen (a course scenario: a copy of it)."""
        self.snippets.edit_scenario()

    def action_copy_scenario(self) -> None:
        """The scenario's code in a new snippet that edits no file yet."""
        self.snippets.copy_scenario()

    def action_open_file(self) -> None:
        """Ask for a scenario file's path, then edit it."""
        self.snippets.open_file()

    def action_run_snippet(self, sweep: bool) -> None:
        """Run the editor's snippet, as r (or s) runs any scenario."""
        self.snippets.run_snippet(sweep)

    def action_save_snippet(self) -> None:
        """Save to the file the editor edits; the first time, ask where."""
        self.snippets.save_snippet()

    def action_save_snippet_as(self) -> None:
        """Ask for a path and save there."""
        self.snippets.save_snippet_as()

    def action_set_size(self) -> None:
        """Ask for the size every run uses (empty: each scenario's own SIZE)."""
        self.snippets.ask_size(self._set_run_size)

    def _set_run_size(self, size: int | None) -> None:
        self.run_size = size
        self.notify("Runs use each scenario's own SIZE" if size is None else f"Runs use size {size:,}")

    def watch_run_size(self, size: int | None) -> None:
        self.title = None if size is None else f"{self.app_title} · size {size:,}"
        self.snippets.show_titles()

    def action_show_editor(self) -> None:
        """Show the editor and focus it; with nothing open, a new snippet."""
        self.snippets.show_editor()

    def action_restore_drafts(self) -> None:
        """Offer the unsaved drafts from before."""
        self.snippets.restore_drafts()

    def action_code_line(self, step: int) -> None:
        """Move the lesson's line cursor to the next (1) or previous (-1) line that launched work."""
        self.code_links.lesson_line_moved(self._find, step)

    def action_code(self) -> None:
        """The generated source of the highlighted compiled kernel, or of the one an eager kernel became."""
        table = self._find(f"#{self._name_mode}", KernelTable)
        self.why.show_code(table.highlighted_kernel() if table is not None else None, self._name_mode)

    def action_chart_mode(self) -> None:
        """Switch the chart between runtime and achieved bandwidth against size (and show it)."""
        self.chart_mode = next_chart_mode(self.chart_mode)
        if not self.wide:
            self.action_pane("chart")

    def action_variants(self) -> None:
        """Choose which compile variants are shown, or add one for the next runs."""
        self.variants.choose()

    def action_toggle_predict(self) -> None:
        """Turn predict-then-reveal on or off for this session."""
        self.why.toggle_predict()

    # -- what the parts ask of the screen (``SnippetHost``, ``WhyHost``) ----------------------------

    def push_dialog(self, dialog: Screen[Any], answered: Callable[[Any], None] | None = None) -> None:
        self.app.push_screen(dialog, answered)

    def editor_pane(self) -> SnippetEditor | None:
        return self._find("#editor", SnippetEditor)

    def show_editor_pane(self) -> None:
        self._show_editing()
        self.action_pane("editor")

    def run_scenario(self, sweep: bool) -> None:
        self.action_run(sweep)

    def session_changed(self, effects: Effects) -> None:
        for path in effects.dropped:
            self.runs.forget(path)
        if effects.shown is Shown.EVERYTHING:
            self.show_everything()
        elif effects.shown is Shown.SCENARIO:
            self._show_marks()
            self.show_scenario()
        elif effects.shown is Shown.MARKS:
            self._show_marks()
        for notice in effects.notices:
            self.notify(notice.message, severity=notice.severity, timeout=notice.timeout)

    def on_snippet_editor_ready(self, message: SnippetEditor.Ready) -> None:
        self.snippets.fill_editor()

    def on_snippet_editor_edited(self, message: SnippetEditor.Edited) -> None:
        self.snippets.edited(message.text, message.cursor)

    def on_text_area_selection_changed(self, event: TextArea.SelectionChanged) -> None:
        # By the handler's name: TextArea is imported with the first snippet, not on the first frame.
        if event.text_area.id == "snippet-text" and (line := self._find("#kernel-name", KernelNameLine)):
            line.say(self.code_links.code_line_moved(self._find, event.selection.end[0] + 1))

    def on_snippet_editor_entered(self, message: SnippetEditor.Entered) -> None:
        self.snippets.entered()

    def on_snippet_editor_left(self, message: SnippetEditor.Left) -> None:
        self.snippets.left()

    # -- the engine --------------------------------------------------------------------------------

    # The worker's module and the messages it posts are imported with the first run, after the first frame.
    def _start_engine(self) -> None:
        from kernel_tui.ui.engine_worker import start_engine

        self.run_worker(
            partial(start_engine, self.link, self.post_message),
            thread=True,
            exclusive=True,
            exit_on_error=False,
            group="engine-start",
        )

    def _run_engine(self, run_id: int, path: Path, messages: Iterator[RunMessage]) -> None:
        from kernel_tui.ui.engine_worker import stream_run

        self.run_worker(
            partial(stream_run, run_id, path, messages, self.post_message),
            thread=True,
            exclusive=True,
            exit_on_error=False,
            group="engine",
        )

    def on_engine_started(self, message: EngineStarted) -> None:
        self._warmup_since = self.clock() if message.hello.warmup is not None else None
        self.engine_error = None
        self.hello = message.hello

    def on_engine_start_failed(self, message: EngineStartFailed) -> None:
        self.engine_error = message.error

    def compute_engine_text(self) -> str:
        return describe.engine_line(self.hello, self.engine_error)

    # The engine line reaches the summary by its binding; these show what else depends on the engine: the
    # claims for its device, the status line, and whether ``d`` has details to show.
    def watch_hello(self) -> None:
        self._show_results()

    def watch_engine_error(self) -> None:
        self._show_results()

    def on_stage_started(self, message: StageStarted) -> None:
        run = self.runs.live(message.run_id)
        if run is None:
            return
        run.stage_started(message.stage, message.detail, message.total)
        if run.path == self.entry.path:
            self._show_results()
        else:
            self._show_status()

    def on_report_updated(self, message: ReportUpdated) -> None:
        run = self.runs.live(message.run_id)
        if run is None:
            return
        run.report = message.report
        if run.path == self.entry.path:
            self._show_results()
        self.why.reveal_if_measured(run)

    def on_sweep_point_measured(self, message: SweepPointMeasured) -> None:
        run = self.runs.live(message.run_id)
        if run is None:
            return
        run.point_measured(message.point)
        if run.path == self.entry.path and (chart := self._find("#chart", RuntimeChart)):
            chart.add_point(message.point)
        self._show_status()

    def on_run_finished(self, message: RunFinished) -> None:
        run = self.runs.live(message.run_id)
        if run is None:
            return
        run.finished(message.report, self.clock())
        run.output_to = self.link.output_mark()
        self.runs.ended(run)
        self._show_marks()
        if run.path == self.entry.path:
            self._show_points(run)
        self._show_results()
        self.snippets.run_ended(run)
        self.why.reveal_if_measured(run)

    def on_run_failed(self, message: RunFailed) -> None:
        run = self.runs.live(message.run_id)
        if run is None:
            return
        run.failed(message.error, self.clock(), cancelled=message.cancelled)
        run.output_to = self.link.output_mark()
        self.runs.ended(run)
        if message.error.stage == "engine":
            # The engine is gone (crash, hang, cancel): start the next one now, while the learner reads
            # what happened, so the next run does not wait for torch to import.
            self.hello = None
            self._start_engine()
        self._show_marks()
        self._show_results()
        self.snippets.run_ended(run)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A worker that raised (a bug, not an engine death) ends its run with the traceback as details."""
        worker = event.worker
        if event.state is not WorkerState.ERROR or worker.group not in ("engine", "engine-start"):
            return
        from kernel_tui.ui.engine_worker import worker_failure
        from kernel_tui.ui.messages import EngineStartFailed, RunFailed

        failure = worker_failure(worker)
        if worker.group == "engine-start":
            self.on_engine_start_failed(EngineStartFailed(failure))
        elif self.runs.active is not None:
            self.on_run_failed(RunFailed(self.runs.active.run_id, self.runs.active.path, failure))
