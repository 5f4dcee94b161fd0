"""The explorer's state as one value: everything its panes derive from, changed by named transitions.

``ExplorerState`` gathers the books the explorer's parts keep (the ``Catalog``, the ``RunBook``, the
``PinnedBaselines``, the ``VariantBook``, the ``PredictionBook``: each the one owner of its records, shared with
the parts that fill them) and the explorer's own frozen state: the engine's (``EngineState``), the view's choices
(``ViewState``) and the cursors (``Cursors``). The screen holds one such value; its handlers call the
transitions below, and its funnel derives what the panes show as ``shown(state, now)``. A transition of the
frozen parts returns a new value; one of a book (``select_scenario``, a run's start, message and end, a pinned
baseline) changes that book, which the value holds, and returns the value: the screen's parts change the books
they share only through these (``tests/ui/test_panes_follow_state.py`` scans for any other way).
Nothing here touches Textual (``tests/ui/test_explorer_state.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from kernel_tui.text.kernel_order import AS_LAUNCHED
from kernel_tui.ui.state.cursors import NO_CURSORS, Cursors

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from kernel_tui.model.report.report import ScenarioError
    from kernel_tui.transport.protocol import Hello, RunMessage
    from kernel_tui.ui.state.course.catalog import Catalog
    from kernel_tui.ui.state.course.score import PredictionBook
    from kernel_tui.ui.state.kernel_rows import KernelRow
    from kernel_tui.ui.state.pinned_baselines import PinnedBaselines
    from kernel_tui.ui.state.run_state import RunBook, ScenarioRun
    from kernel_tui.ui.state.variant_choices import VariantBook, VariantChoices


@dataclass(frozen=True)
class EngineState:
    """What the screen knows of the engine: its hello, why it could not start, and its first compile."""

    hello: Hello | None = None
    error: ScenarioError | None = None
    warmup_since: float | None = None
    """When the engine began its first compile of the session; None once it ended (or never began)."""

    def warming(self, now: float) -> tuple[float, float] | None:
        """(estimate, elapsed) seconds while the engine's first compile runs, else None."""
        if self.warmup_since is None or self.hello is None or self.hello.warmup is None:
            return None
        return self.hello.warmup.estimate_s, now - self.warmup_since


@dataclass(frozen=True)
class ViewState:
    """The screen's own choices that change what the panes say."""

    chart_mode: str = "time"
    kernel_order: str = AS_LAUNCHED
    """How both kernel tables order their rows (``kernel_order.KERNEL_ORDERS``): one order for the two, so that
    eager and compiled, read side by side, rank their kernels by the same figure (the eager hotspot beside the
    compiled kernel it became); kept across runs, scenarios and layouts, as the chart's mode is."""
    measures: bool = True
    """False for saved results (``kernel-tui view``): nothing is measured, the hints say so."""
    editor_focused: bool = False
    """The editor has the focus: the status line names its keys (letters are typed there)."""
    editing: Path | None = None
    """The file the snippet editor has open, if any."""
    saved_origin: str | None = None
    """Saved results (``kernel-tui view``): where the scenario's saved numbers were measured."""


@dataclass(frozen=True)
class ExplorerState:
    """What every pane of the explorer derives from."""

    catalog: Catalog
    runs: RunBook
    baselines: PinnedBaselines
    variants: VariantBook
    predictions: PredictionBook
    engine: EngineState = EngineState()
    view: ViewState = ViewState()
    cursors: Cursors = NO_CURSORS

    # -- the scenario and the view -------------------------------------------------------------------------

    def select_scenario(self, index: int) -> ExplorerState:
        """Show the scenario at ``index`` of the list (clamped to it)."""
        self.catalog.select(index)
        return self

    def chart_mode_chosen(self, mode: str) -> ExplorerState:
        """The chart draws ``mode`` (``b`` asks the chart's registry, ``chart_modes``, for the next), kept across
        scenarios and layouts."""
        return self._view(replace(self.view, chart_mode=mode))

    def kernel_order_chosen(self, order: str) -> ExplorerState:
        """Both kernel tables are ordered by ``order`` (``o`` asks ``kernel_order.next_order`` for the next)."""
        return self._view(replace(self.view, kernel_order=order))

    def editor_focused(self, focused: bool) -> ExplorerState:
        """The editor has the focus (or lost it): the status line names its keys, letters being typed there."""
        return self._view(replace(self.view, editor_focused=focused))

    def editor_opened(self, path: Path | None) -> ExplorerState:
        """The editor holds the file at ``path`` (None: nothing open)."""
        return self._view(replace(self.view, editing=path))

    def saved_origin_known(self, origin: str | None) -> ExplorerState:
        """Where the saved numbers of the scenario shown were measured (``kernel-tui view``; None: measured here)."""
        return self._view(replace(self.view, saved_origin=origin))

    def engine_changed(self, engine: EngineState) -> ExplorerState:
        """The engine said hello, failed to start, began or ended its first compile."""
        return replace(self, engine=engine)

    def engine_said_hello(self, hello: Hello, now: float) -> ExplorerState:
        """A new engine is up: its hello, its first compile begun ``now`` (if it warms up), and its device the one
        lessons ask their claims of."""
        self.predictions.use_device(hello.device, self.predictions.arch)
        return self.engine_changed(EngineState(hello, None, now if hello.warmup is not None else None))

    # -- the books: runs and pinned baselines ------------------------------------------------------------------

    def run_started(self, run_id: int, path: Path, *, sweep: bool, now: float, output_from: int) -> ExplorerState:
        """A run of ``path`` began, numbered ``run_id`` by the engine link, its output read from ``output_from`` on:
        the active run (one still active must have been cancelled, ``run_cancelled``)."""
        self.runs.start(run_id, path, sweep=sweep, now=now).output_from = output_from
        return self

    def run_said(self, run: ScenarioRun, message: RunMessage, now: float, *, output_to: int | None) -> ExplorerState:
        """The engine said ``message`` of the active ``run``: folded into its record. ``output_to`` (the final
        report's, ``Done``): the run finished there and the engine is free."""
        run.take(message, now)
        if output_to is not None:
            run.output_to = output_to
            self.runs.ended(run)
        return self

    def run_ended_early(
        self, run: ScenarioRun, error: ScenarioError, now: float, *, cancelled: bool, output_to: int
    ) -> ExplorerState:
        """``run`` ended before its final report (the engine died, overran, or was cancelled): the engine is free."""
        run.ended_without_report(error, now, cancelled=cancelled)
        run.output_to = output_to
        self.runs.ended(run)
        return self

    def run_cancelled(self, now: float, *, output_to: int) -> ExplorerState:
        """Esc (or a new run): the active run, if any, is cancelled and let go of."""
        if (cancelled := self.runs.cancel(now)) is not None:
            cancelled.output_to = output_to
        return self

    def runs_forgotten(self, paths: Iterable[Path]) -> ExplorerState:
        """The runs of ``paths`` go (drafts dropped from the list)."""
        for path in paths:
            self.runs.forget(path)
        return self

    def baseline_toggled(self, run: ScenarioRun) -> ExplorerState:
        """``run`` pinned as its scenario's baseline, or unpinned if it was (B)."""
        self.baselines.toggle(run)
        return self

    # -- the books: each scenario's compile variants ------------------------------------------------------------

    def variant_kernels_shown(self, scenario: Path, name: str | None) -> ExplorerState:
        """The compiled table shows the kernels of ``scenario``'s variant ``name`` (None: the compiled side's own)."""
        self.variants.of(scenario).kernels_of = name
        return self

    def variants_added(self, scenario: Path, added: Mapping[str, Mapping[str, object]]) -> ExplorerState:
        """Variants (name to ``torch.compile`` arguments) sent with ``scenario``'s next runs (``x``)."""
        choices = self.variants.of(scenario)
        for name, arguments in added.items():
            choices.add(name, dict(arguments))
        return self

    def variants_chosen(self, scenario: Path, choices: VariantChoices) -> ExplorerState:
        """``scenario``'s variant choices as the ``v`` dialog handed them back."""
        self.variants.replace(scenario, choices)
        return self

    def _view(self, view: ViewState) -> ExplorerState:
        return self if view == self.view else replace(self, view=view)

    # -- the cursors (``Cursors``) -----------------------------------------------------------------------------

    def row_highlighted(self, mode: str, row: int, rows: tuple[KernelRow, ...], *, focused: bool) -> ExplorerState:
        return self._cursors(self.cursors.row_highlighted(mode, row, rows, focused=focused))

    def table_focused(self, mode: str) -> ExplorerState:
        return self._cursors(self.cursors.table_focused(mode))

    def lesson_line_moved(self, path: Path, line: int | None) -> ExplorerState:
        return self._cursors(self.cursors.lesson_line_moved(path, line))

    def editor_line_moved(self, line: int) -> ExplorerState:
        return self._cursors(self.cursors.editor_line_moved(line))

    def _cursors(self, cursors: Cursors) -> ExplorerState:
        return self if cursors == self.cursors else replace(self, cursors=cursors)
