"""The explorer's "why these kernels" part: generated code, the bandwidth chart, and predict-then-reveal.

``WhyPart`` is the part of the explorer that answers *why*: ``g`` shows the generated source of the
highlighted compiled kernel (or of the one an eager kernel was fused into), ``b`` switches the chart
between runtime and achieved bandwidth against size, and on the built-in course each lesson's first run
is preceded by a guess at its kernel counts, revealed once measured, with the lesson's explanation and a
score kept across sessions (``t`` or ``--no-predict`` turns that off). The attribution and bandwidth
columns themselves live in the kernel tables.

It is a plain object the explorer screen builds with what it reads (the catalog, the runs, the prediction
book) and calls; it reaches the screen only through ``WhyHost``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

from textual.screen import Screen

from kernel_tui.ui.kernel_words import code_kernel, no_code_reason
from kernel_tui.ui.score import PredictionBook, split_lesson

if TYPE_CHECKING:
    from kernel_tui.model.report import Kernel
    from kernel_tui.ui.catalog import Catalog
    from kernel_tui.ui.run_state import RunBook, ScenarioRun
    from kernel_tui.ui.widgets.kernel_table import KernelTable
    from kernel_tui.ui.widgets.runtime_chart import RuntimeChart


class WhyHost(Protocol):
    """What the why part needs from the screen it works on."""

    def notify(self, message: str, *, severity: Any = ...) -> None: ...

    def push_dialog(self, dialog: Screen[Any], answered: Callable[[Any], None] | None = None) -> None:
        """Show a dialog over the screen; ``answered`` gets its result."""

    def show_scenario(self) -> None:
        """Show the scenario on screen again (its lesson, tables and summary)."""


class WhyPart:
    """Code, chart mode and predict-then-reveal, over the explorer's catalog and runs."""

    def __init__(self, host: WhyHost, catalog: Catalog, runs: RunBook, predictions: PredictionBook) -> None:
        self.host = host
        self.catalog = catalog
        self.runs = runs
        self.predictions = predictions

    def sub_title(self) -> str:
        """The header's subtitle: where in the list, on the course the prediction score, and the title
        (last, so a narrow terminal cuts the title rather than the score)."""
        entry = self.catalog.current
        where = f"{self.catalog.index + 1}/{len(self.catalog)}"
        if self.predictions.applies_to(entry):
            where += f" · {self.predictions.score_text()}"
        return f"{where} · {entry.title}"

    def hides_explanation(self) -> bool:
        """Whether the lesson pane holds back the explanation (it would give the guess away)."""
        return bool(self.catalog) and self.predictions.hides_explanation(self.catalog.current)

    def show(self, tables: Iterable[KernelTable], chart: RuntimeChart | None) -> None:
        """Revealed guesses beside the measured counts, and the chart with the run's ceiling and kernels."""
        if not self.catalog:
            return
        entry = self.catalog.current
        run = self.runs.get(entry.path)
        report = run.report if run is not None else None
        for table in tables:
            table.show_prediction(self.predictions.guessed(entry, table.mode))
            waiting = run is not None and run.running and report is not None and report.compiled is None
            table.set_links_pending(table.mode == "eager" and waiting)
        if chart is not None:
            chart.set_ceiling(report.bandwidth_ceiling_gbs if report is not None else None)
            chart.set_roofline(report)

    def predict_first(self, run: Callable[[bool], None], sweep: bool) -> bool:
        """Before a course lesson's first run: ask for a guess, and ``run`` once it is given, with the sweep
        if asked for or if the guess is about the sweep. True: asked."""
        if not self.catalog:
            return False
        entry = self.catalog.current
        if not self.predictions.wants_prediction(entry):
            return False
        from kernel_tui.ui.screens.predict import PredictScreen

        def predicted(guess: dict[str, float] | None) -> None:
            if guess is None or self.catalog.current.path != entry.path:
                return
            self.predictions.predict(entry, guess)
            run(sweep or self.predictions.needs_sweep(entry))

        self.host.push_dialog(PredictScreen(entry.title, self.predictions.kind(entry)), predicted)
        return True

    def reveal_if_measured(self, run: ScenarioRun) -> None:
        """Once a run with a guess waiting has both counts: score it, and show it with the explanation."""
        entry = self.catalog.find(run.path)
        if entry is None:
            return
        answer = self.predictions.reveal(entry, run.report, finished=not run.running)
        if answer is None:
            if not run.running and not run.sweep and self.predictions.waits_for_sweep(entry):
                self.host.notify("Your guess at the sweep's compiles is graded by a run with the sweep: press s.")
            return
        if self.predictions.save_error:
            self.host.notify(self.predictions.save_error, severity="warning")
        from kernel_tui.ui.screens.predict import RevealScreen

        lesson = entry.info.lesson if entry.info is not None else ""
        _, why, _ = split_lesson(lesson)
        right, asked = self.predictions.score
        score = f"Score across the course: {right} of {asked} predictions right."
        self.host.push_dialog(RevealScreen(entry.title, answer, why, score))
        self.host.show_scenario()  # the explanation, the score, the tables' "you said"

    def show_code(self, highlighted: Kernel | None, mode: str) -> None:
        """The generated source of the highlighted compiled kernel, or of the one an eager kernel became."""
        run = self.runs.get(self.catalog.current.path) if self.catalog else None
        report = run.report if run is not None else None
        highlighted = highlighted if report is not None else None
        kernel = code_kernel(highlighted, mode, report.compiled) if report is not None else None
        if kernel is None:
            self.host.notify(no_code_reason(highlighted, mode))
            return
        from kernel_tui.ui.screens.kernel_code import KernelCodeScreen

        self.host.push_dialog(KernelCodeScreen(kernel))

    def toggle_predict(self) -> None:
        """Turn predict-then-reveal on or off for this session."""
        book = self.predictions
        book.enabled = not book.enabled
        state = "on: guess what each course lesson teaches before its first run" if book.enabled else "off"
        self.host.notify(f"Predictions {state}.")
        self.host.show_scenario()
