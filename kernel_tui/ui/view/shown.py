"""What the explorer shows, as one value: ``shown(state, now)`` turns the screen's ``ExplorerState`` into ``Shown``.

Each pane gets its own frozen slice (``ScenariosShown``, ``TableShown``, ``SummaryShown``, ...), holding what
it displays and nothing more. The explorer computes ``Shown`` once per change of its state, holds it as one
reactive, and its watcher sets each pane's own reactive to its slice (``explorer_panes.Panes.hand``), which
draws again only when its slice changed: no part fills a widget itself. A slice is compared field by field, the
same objects at once, so each must be a frozen value with a cheap, correct ``==``. Nothing here touches
Textual, so every pane's content is tested without an app (``tests/ui/test_shown.py``).

The cursors are state too (``Cursors``): each table keeps its own cursor, and the explorer copies its moves
from the table's events; from them come the line under the tables (``NameShown``), the code's links to the
kernel under the cursor and the code cursor's line (``code_links``), and the chart's mark of that kernel.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text

from kernel_tui.text.kernel_order import AS_LAUNCHED
from kernel_tui.ui.state.cursors import table_rows, under_cursor
from kernel_tui.ui.view import describe
from kernel_tui.ui.view.code_links import CodeLinks, code_links
from kernel_tui.ui.view.run_notes import chart_hint, placeholder, waiting_notes

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.mode_result import ModeResult
    from kernel_tui.model.report.report import ScenarioError, ScenarioReport, SweepPoint
    from kernel_tui.text.baseline import BaselineComparison
    from kernel_tui.ui.state.course.catalog import Catalog, ScenarioEntry
    from kernel_tui.ui.state.course.score import PredictionBook
    from kernel_tui.ui.state.explorer_state import EngineState, ExplorerState, ViewState
    from kernel_tui.ui.state.pinned_baselines import ModeBaseline
    from kernel_tui.ui.state.run_state import RunBook, ScenarioRun

COMPILED_TITLE = "Compiled"


@dataclass(frozen=True)
class ScenariosShown:
    """The scenario list: every entry, how its latest run went, and the one on screen."""

    entries: tuple[ScenarioEntry, ...]
    marks: tuple[str | None, ...]
    index: int


@dataclass(frozen=True)
class LessonShown:
    entry: ScenarioEntry
    hide_explanation: bool
    """Hold back the lesson's answer until the learner's prediction is revealed."""


@dataclass(frozen=True)
class TableShown:
    """One kernel table: a mode's kernels (or why there are none yet), marked against the pinned run."""

    result: ModeResult | None
    waiting: str
    baseline: ModeBaseline | None
    predicted: int | None
    """The learner's revealed guess at the kernel count."""
    links_pending: bool
    """Say "…" rather than "—" in the attribution column until the other side is measured."""
    title: str
    order: str = AS_LAUNCHED
    """How the rows are ordered (``kernel_order.KERNEL_ORDERS``), the same for both tables."""


@dataclass(frozen=True)
class VariantsShown:
    report: ScenarioReport | None
    hidden: frozenset[str]
    kernels_of: str | None
    """The variant whose kernels the compiled table shows; None: the compiled side's own."""


@dataclass(frozen=True)
class SummaryShown:
    """The summary strip's inputs; ``kernel_tui.ui.view.summary_lines`` turns them into its lines."""

    report: ScenarioReport | None
    claims: Mapping[str, float]
    """The lesson's claims for the engine's device, before a report checks them (empty: no spoilers)."""
    error: ScenarioError | None
    placeholder: str
    baseline: BaselineComparison | None
    pinned: bool
    engine: str
    """The engine's status: the last line until a report says which device measured it."""


@dataclass(frozen=True)
class ChartShown:
    mode: str
    points: tuple[SweepPoint, ...]
    hint: str
    ceiling_gbs: float | None
    report: ScenarioReport | None
    """The scenario whose kernels the roofline places."""
    highlight: tuple[str | None, Kernel | None] = (None, None)
    """The table (``eager`` or ``compiled``) and kernel under its cursor, marked on the roofline and timeline."""


@dataclass(frozen=True)
class NameShown:
    """The line under the tables: the full name and story of the kernel under the followed table's cursor, or
    what the code cursor's line launched (``story``)."""

    mode: str | None
    kernel: Kernel | None
    hint: bool
    """Without a kernel, say how to get one's name (there are kernels to highlight)."""
    compiled: ModeResult | None
    """The run's compiled side, where ``g`` finds the code an eager kernel became."""
    story: Text | None


@dataclass(frozen=True)
class StatusShown:
    text: Text
    progress: tuple[float, int] | None
    """(done, total) while the engine works; None hides the bar."""


@dataclass(frozen=True)
class Shown:
    """Everything the explorer shows of its state, one slice per pane."""

    sub_title: str
    editing: bool
    """The editor takes the lesson's place (large terminals): its document is the scenario shown."""
    scenarios: ScenariosShown
    lesson: LessonShown
    signature: str
    eager: TableShown
    compiled: TableShown
    variants: VariantsShown
    summary: SummaryShown
    chart: ChartShown
    status: StatusShown
    name: NameShown
    code: CodeLinks


def shown(state: ExplorerState, now: float) -> Shown:
    """What every pane of the explorer shows for this state (its catalog must not be empty)."""
    catalog, runs, baselines, predictions = state.catalog, state.runs, state.baselines, state.predictions
    variants, engine, view, cursors = state.variants, state.engine, state.view, state.cursors
    entry = catalog.current
    run = runs.get(entry.path)
    report = run.record.report if run is not None else None
    eager_wait, compiled_wait = waiting_notes(run)
    comparison = baselines.comparison(run)
    hide = predictions.hides_explanation(entry)
    links_pending = run is not None and run.running and report is not None and report.compiled is None
    choices = variants.of(baselines.scenario_of(entry.path))
    kernels_of = choices.kernels_of if report is not None and choices.kernels_of in report.variants else None
    compiled, compiled_baseline = (
        (report.compiled if report else None),
        baselines.mode_baseline(run, "compiled", comparison),
    )
    if kernels_of is not None and report is not None:
        variant = report.variants[kernels_of]
        compiled, compiled_baseline = variant.measured, None  # the pinned run is marked on the compiled side only
        compiled_wait = "no numbers: see the variants table" if variant.measured is None else compiled_wait
    device = engine.hello.device if engine.hello else "cpu"
    signature = report.signature if report is not None else None
    eager = TableShown(
        report.eager if report else None,
        eager_wait,
        baselines.mode_baseline(run, "eager", comparison),
        predictions.guessed(entry, "eager"),
        links_pending,
        "Eager",
        view.kernel_order,
    )
    compiled_table = TableShown(
        compiled,
        compiled_wait,
        compiled_baseline,
        predictions.guessed(entry, "compiled"),
        False,
        COMPILED_TITLE if kernels_of is None else f"{COMPILED_TITLE} · {kernels_of}",
        view.kernel_order,
    )
    followed = compiled_table if cursors.followed == "compiled" else eager
    kernel = under_cursor(
        cursors.table(cursors.followed), table_rows(followed.result, followed.baseline, followed.order)
    )
    editing = view.editing is not None and view.editing == entry.path
    code = code_links(report, compiled, baselines.compared(run), kernel, cursors, entry.path, editing=editing)
    mode = cursors.followed if kernel is not None else None
    any_kernels = any(side.result is not None and side.result.kernels for side in (eager, compiled_table))
    return Shown(
        sub_title=_sub_title(catalog, predictions),
        editing=editing,
        scenarios=ScenariosShown(
            tuple(catalog.entries),
            tuple(runs.mark(each.path, describe.failed_claims) for each in catalog.entries),
            catalog.index,
        ),
        lesson=LessonShown(entry, hide),
        signature=f"shapes: {signature}" if signature else "",
        eager=eager,
        compiled=compiled_table,
        variants=VariantsShown(report, frozenset(choices.hidden), kernels_of),
        summary=SummaryShown(
            report,
            {} if hide else entry.claims_for(device),  # no spoilers
            run.record.error if run is not None else None,
            placeholder(run, measures=view.measures),
            comparison,
            baselines.is_pinned(run),
            describe.engine_line(engine.hello, engine.error, measures=view.measures),
        ),
        chart=ChartShown(
            view.chart_mode,
            run.record.points if run is not None else (),  # the run record's own tuple, not a copy
            chart_hint(run, measures=view.measures),
            report.bandwidth_ceiling_gbs if report is not None else None,
            report,
            (mode, kernel),
        ),
        status=_status(catalog, runs, run, engine, view, now),
        name=NameShown(mode, kernel, any_kernels, report.compiled if report else None, code.story),
        code=code,
    )


def _sub_title(catalog: Catalog, predictions: PredictionBook) -> str:
    """Where in the list, on the course the prediction score, and the title (last, so a narrow terminal cuts
    the title rather than the score)."""
    entry = catalog.current
    where = f"{catalog.index + 1}/{len(catalog)}"
    if predictions.applies_to(entry):
        where += f" · {predictions.score_text()}"
    return f"{where} · {entry.title}"


def _status(
    catalog: Catalog, runs: RunBook, run: ScenarioRun | None, engine: EngineState, view: ViewState, now: float
) -> StatusShown:
    if view.saved_origin is not None and not (run is not None and (run.running or run.record.error is not None)):
        # A refused run says why, as any failed run does.
        return StatusShown(describe.saved_status_text(view.saved_origin, run), None)
    active = runs.active
    background = None
    if active is not None and active.record.path != catalog.current.path:
        background = (catalog.title_of(active.record.path), active)
    # The progress bar follows the engine's run, whichever scenario is on screen.
    warming = engine.warming(now)
    progress = active.progress() if active is not None else None
    if progress is None and run is None and warming is not None:
        progress = describe.warming_progress(*warming)
    text = describe.status_text(
        run,
        now=now,
        background=background,
        engine_error=engine.error,
        warming=warming,
        editing=view.editor_focused,
    )
    return StatusShown(text, progress)
