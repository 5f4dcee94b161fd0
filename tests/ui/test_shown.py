"""What the explorer shows, without an app: ``shown()`` over the screen's plain state, pane by pane.

The runs are driven by the protocol messages of a real recording (``tests/data``), folded into each run's
record as the explorer's handler folds them; the assertions are on each pane's slice of ``Shown`` and, for
the summary, on its lines.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from support.replay import Recording
from support.ui_support import ADD_RELU, BROKEN, DATA, RECORDINGS

from kernel_tui.model.report.report import ScenarioError, VariantResult
from kernel_tui.transport.protocol import Done, Partial, StageStartedMessage, SweepPointMessage
from kernel_tui.ui.state.course.catalog import Catalog, load_catalog
from kernel_tui.ui.state.course.score import PredictionBook
from kernel_tui.ui.state.cursors import NO_CURSORS, Cursors
from kernel_tui.ui.state.explorer_state import EngineState, ExplorerState, ViewState
from kernel_tui.ui.state.pinned_baselines import PinnedBaselines
from kernel_tui.ui.state.run_state import RunBook, ScenarioRun
from kernel_tui.ui.state.variant_choices import VariantBook
from kernel_tui.ui.view.shown import Shown, shown
from kernel_tui.ui.view.summary_lines import summary_lines

NOW = 1000.0
RECORDING = Recording.load(RECORDINGS[0])


@dataclass
class State:
    """The explorer's plain state, as the screen holds it."""

    catalog: Catalog
    runs: RunBook = field(default_factory=RunBook)
    baselines: PinnedBaselines = field(default_factory=PinnedBaselines)
    variants: VariantBook = field(default_factory=VariantBook)
    predictions: PredictionBook = field(default_factory=lambda: PredictionBook(enabled=False))
    engine: EngineState = field(default_factory=lambda: EngineState(hello=RECORDING.hello))
    view: ViewState = field(default_factory=ViewState)
    cursors: Cursors = NO_CURSORS
    run_ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    """The engine link's numbers for the runs."""

    def shown(self, now: float = NOW) -> Shown:
        books = (self.catalog, self.runs, self.baselines, self.variants, self.predictions)
        return shown(ExplorerState(*books, self.engine, self.view, self.cursors), now)

    def run(self, path: Path = ADD_RELU, *, sweep: bool = True, until: type | None = None) -> ScenarioRun:
        """Start a run of ``path`` at NOW and take in the recording's messages (up to the first ``until``)."""
        run = self.runs.start(next(self.run_ids), path, sweep=sweep, now=NOW)
        for message in RECORDING.messages:
            if until is not None and isinstance(message, until):
                return run
            run.take(replace(message, run_id=run.record.run_id), NOW + 5)
            if isinstance(message, Done):
                self.runs.ended(run)
        return run


def state(course: Path | None = None) -> State:
    return State(Catalog(load_catalog([ADD_RELU, BROKEN], course)))


def lines(value: Shown) -> list[str]:
    return [line.plain for line in summary_lines(value.summary)]


def test_nothing_run_yet_every_pane_says_how_to_start() -> None:
    value = state().shown()
    assert value.sub_title == "1/2 · Add, then ReLU"
    assert value.scenarios.index == 0 and value.scenarios.marks == (None, None)
    assert [entry.path for entry in value.scenarios.entries] == [ADD_RELU, BROKEN]
    assert value.lesson.entry.path == ADD_RELU and not value.lesson.hide_explanation
    assert (value.eager.result, value.eager.waiting, value.eager.title) == (None, "not run yet", "Eager")
    assert (value.compiled.result, value.compiled.waiting, value.compiled.title) == (None, "not run yet", "Compiled")
    assert value.signature == "" and value.variants.report is None
    assert value.summary.placeholder.startswith("Not measured yet: r runs the scenario")
    assert dict(value.summary.claims) == {"eager": 2, "compiled": 1, "eager_transfers": 5, "compiled_transfers": 3}
    assert lines(value)[0].startswith("Not measured yet") and lines(value)[-1].startswith("engine ready: ")
    assert (value.chart.mode, value.chart.points, value.chart.report) == ("time", (), None)
    assert value.chart.hint.startswith("Not swept yet")
    assert value.status.progress is None and value.status.text.plain.startswith("r runs this scenario")


def test_before_the_engine_starts_and_when_it_cannot() -> None:
    starting = replace(state(), engine=EngineState())
    assert starting.shown().summary.engine == "engine: starting…"
    failed = replace(starting, engine=EngineState(error=ScenarioError("engine", "no torch")))
    value = failed.shown()
    assert lines(value)[-1] == "engine: could not start (no torch)"
    assert value.status.text.plain.startswith("✗ ") and "no torch" in value.status.text.plain


def test_while_compiling_the_eager_side_is_in_and_the_compiled_side_waits() -> None:
    now = state()
    run = now.run(until=SweepPointMessage)
    assert run.record.report is not None and run.record.report.compiled is not None, "both partial reports are in"
    now.runs.active = run
    # Back to the moment the first partial report (eager only) arrived.
    first = next(m for m in RECORDING.messages if isinstance(m, Partial))
    assert first.report.compiled is None
    run.record = replace(run.record, report=first.report)
    run.take(StageStartedMessage(run.record.run_id, "compile", ""), NOW)
    value = now.shown(now=NOW + 3)
    assert value.eager.result is not None
    assert [kernel.name for kernel in value.eager.result.kernels] == ["aten::add", "aten::relu"]
    assert value.eager.links_pending, "the eager rows wait for the kernel they became"
    assert (value.compiled.result, value.compiled.waiting) == (None, "compiling…")
    assert value.scenarios.marks == ("running", None)
    assert value.status.text.plain.startswith("● compile") and "3 s" in value.status.text.plain
    assert value.status.progress == run.progress() and value.status.progress is not None


def test_a_sweep_streams_its_points_into_the_chart() -> None:
    now = state()
    run = now.run(until=Done)
    now.runs.active = run
    value = now.shown()
    assert len(value.chart.points) == 6 and value.chart.points == tuple(run.record.points)
    assert value.chart.hint.startswith("The sweep starts once the kernel tables are in")
    assert value.status.progress is not None


def test_a_finished_run_fills_the_tables_summary_chart_and_mark() -> None:
    now = state()
    now.run()
    value = now.shown()
    assert value.eager.result is not None and value.compiled.result is not None
    assert [kernel.name for kernel in value.eager.result.kernels] == ["aten::add", "aten::relu"]
    assert [kernel.name for kernel in value.compiled.result.kernels] == ["graph_0_cpp_fused_add_relu_0"]
    assert not value.eager.links_pending and value.compiled.waiting == "not measured"
    assert value.scenarios.marks == ("done", None)
    assert value.signature == "", "the recording's report names no shapes"
    # What the time means first (the verdict, the figures that cannot both be true), then the summary line.
    said = lines(value)
    first = next(index for index, line in enumerate(said) if not line.startswith(("▶", "⚠ cannot both be true")))
    assert said[first].startswith("launches 2 → 1")
    assert first >= 1, "the recording's kernels add up to more than its timed call: marked above the summary"
    assert any(line.startswith("EXPECT ") and "✓" in line for line in lines(value))
    assert value.chart.report is not None
    assert (
        value.chart.report is now.runs[ADD_RELU].record.report
        and value.chart.ceiling_gbs == value.chart.report.bandwidth_ceiling_gbs
    )
    assert len(value.chart.points) == 6 and value.chart.hint.startswith("Not swept yet")
    assert value.status.text.plain.startswith("✓ done in 5.0 s") and value.status.progress is None


def test_the_shapes_line_names_the_report_s_signature() -> None:
    now = state()
    run = now.run()
    assert run.record.report is not None
    run.record = replace(run.record, report=replace(run.record.report, signature="f32[1024], f32[1024]"))
    assert now.shown().signature == "shapes: f32[1024], f32[1024]"


def test_a_failed_run_says_why_in_the_summary_and_the_status_line() -> None:
    now = state()
    run = now.runs.start(1, BROKEN, sweep=False, now=NOW)
    error = ScenarioError("eager", "name 'oops' is not defined", file=str(BROKEN), line=9)
    run.ended_without_report(error, NOW + 1)
    now.runs.ended(run)
    now.catalog.select(1)
    value = now.shown()
    assert value.scenarios.index == 1 and value.scenarios.marks == (None, "failed")
    assert value.summary.error is error and lines(value)[0].startswith("✗ ") and "d details" in lines(value)[0]
    assert value.eager.waiting == value.compiled.waiting == "not measured"
    assert value.status.text.plain.startswith("✗ ")


def test_a_run_in_the_background_is_named_on_the_status_line() -> None:
    now = state()
    run = now.runs.start(1, ADD_RELU, sweep=False, now=NOW)
    run.take(StageStartedMessage(run.record.run_id, "eager", ""), NOW)
    now.catalog.select(1)
    value = now.shown(now=NOW + 2)
    assert value.status.text.plain.startswith("● running Add, then ReLU: eager · 2 s")
    assert value.eager.waiting == "not run yet", "the scenario on screen has not run"


def test_a_pinned_baseline_marks_the_next_run() -> None:
    now = state()
    first = now.run()
    assert now.baselines.toggle(first)
    pinned = now.shown()
    assert pinned.summary.pinned and "baseline: this run is pinned · B unpins it" in lines(pinned)
    assert pinned.eager.baseline is None, "a run is not marked against itself"
    now.run()
    value = now.shown()
    assert not value.summary.pinned and value.summary.baseline is not None
    assert any(line.startswith("against the run pinned with B") for line in lines(value))
    assert value.eager.baseline is not None and value.compiled.baseline is not None
    assert now.shown() == value, "the same state shows the same (the comparison is not made anew)"


def test_a_chosen_variant_puts_its_kernels_in_the_compiled_table() -> None:
    now = state()
    run = now.run()
    assert run.record.report is not None and not run.record.report.variants, "the recording has no variants"
    name, variant = "max-autotune", run.record.report.compiled
    variants = {name: VariantResult({"mode": name}, measured=variant)}
    run.record = replace(run.record, report=replace(run.record.report, variants=variants))
    now.variants.of(ADD_RELU).kernels_of = name
    value = now.shown()
    assert value.compiled.title == "Compiled · max-autotune" and value.compiled.result is variant
    assert value.compiled.baseline is None and value.variants.kernels_of == name
    now.variants.of(ADD_RELU).hidden.add(name)
    assert now.shown().variants.hidden == frozenset({name})
    now.variants.of(ADD_RELU).kernels_of = "gone"
    assert now.shown().compiled.title == "Compiled", "a variant the report lacks leaves the compiled side"


def test_predictions_hide_the_explanation_then_show_the_guess_beside_the_count(tmp_path: Path) -> None:
    now = replace(state(course=DATA), predictions=PredictionBook(tmp_path / "score.json"))
    entry = now.catalog.current
    before = now.shown()
    assert before.lesson.hide_explanation and dict(before.summary.claims) == {}, "no spoilers"
    assert "·" in before.sub_title and before.sub_title.endswith("Add, then ReLU")
    now.predictions.predict(entry, {"eager": 2, "compiled": 3})
    run = now.run()
    assert now.predictions.reveal(entry, run.record.report) is not None
    value = now.shown()
    assert not value.lesson.hide_explanation and dict(value.summary.claims)
    assert (value.eager.predicted, value.compiled.predicted) == (2, 3)


def test_the_view_state_reaches_the_chart_the_status_and_the_editing_class() -> None:
    now = replace(state(), view=ViewState(chart_mode="roofline", editor_focused=True, editing=ADD_RELU))
    value = now.shown()
    assert value.chart.mode == "roofline" and value.editing
    assert value.status.text.plain.startswith("ctrl+r runs this scenario")
    saved = replace(now, view=ViewState(measures=False, saved_origin="saved on a test box"))
    value = saved.shown()
    assert value.status.text.plain.startswith("◆ saved on a test box · r shows them")
    assert value.summary.placeholder.startswith("Saved results") and not value.editing


def test_an_unchanged_state_shows_an_equal_value_and_a_tick_changes_only_the_status() -> None:
    now = state()
    run = now.runs.start(1, ADD_RELU, sweep=False, now=NOW)
    run.take(StageStartedMessage(run.record.run_id, "eager", ""), NOW)
    first, second, later = now.shown(), now.shown(), now.shown(now=NOW + 1)
    assert first == second
    assert replace(later, status=first.status) == first and later.status != first.status
