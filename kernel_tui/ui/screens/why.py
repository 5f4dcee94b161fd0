"""The explorer's "why these kernels" part: generated code, the bandwidth chart, and predict-then-reveal.

``WhyWorkbench`` is mixed into ``ExplorerScreen``, which owns the data; this is the part of it that
answers *why*: ``g`` shows the generated source of the highlighted compiled kernel (or of the one an eager
kernel was fused into), ``b`` switches the chart between runtime and achieved bandwidth against size, and
on the built-in course each lesson's first run is preceded by a guess at its kernel counts, revealed once
measured, with the lesson's explanation and a score kept across sessions (``t`` or ``--no-predict`` turns
that off). The attribution and bandwidth columns themselves live in the kernel tables.

The explorer calls these hooks: ``_why_sub_title`` (the header's subtitle), ``_hides_explanation`` (the
lesson pane), ``_show_why`` (at the end of showing results), ``_predict_first`` (at the start of a run),
and ``_reveal_if_measured`` (a report arrived).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.binding import Binding

from kernel_tui.report import ScenarioReport
from kernel_tui.ui.attribution import code_kernel, no_code_reason
from kernel_tui.ui.catalog import ScenarioEntry
from kernel_tui.ui.run_state import ScenarioRun
from kernel_tui.ui.score import PredictionBook, split_lesson
from kernel_tui.ui.widgets.kernel_table import KernelTable
from kernel_tui.ui.widgets.runtime_chart import RuntimeChart

CHART_MODES = ("time", "bandwidth", "roofline")

WHY_BINDINGS = [
    Binding("g", "code", "Code", show=False,
            tooltip="Generated code of the highlighted compiled kernel (or of the one an eager kernel became)"),
    Binding("b", "chart_mode", "Bandwidth", show=False,
            tooltip="Chart: runtime, achieved bandwidth (GB/s, with the ceiling) vs size, then the roofline"),
    Binding("t", "toggle_predict", "Predict", show=False,
            tooltip="Predictions on/off: on the course, guess a lesson's kernel counts before its first run"),
]
"""The explorer's keys for attribution, code, bandwidth and predictions."""

WHY_PALETTE_ACTIONS = (
    ("Generated code", "The source Inductor wrote for the highlighted compiled kernel", "code"),
    ("Switch chart: runtime / bandwidth / roofline",
     "Runtime or achieved GB/s against size, or the kernels against the copy and matmul ceilings", "chart_mode"),
    ("Predictions on / off", "Guess each course lesson's kernel counts before its first run", "toggle_predict"),
)
"""Command palette entries: (title, help, explorer action)."""


class WhyWorkbench:
    """Code, chart mode and prediction actions for ``ExplorerScreen`` (a mixin: the data is ``self``'s)."""

    # Provided by ExplorerScreen.
    entries: list[ScenarioEntry]
    runs: dict[Path, ScenarioRun]
    wide: bool

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.chart_mode = "time"
        """What the chart draws: ``time``, ``bandwidth`` or ``roofline``; kept across scenarios and layouts."""

    @property
    def predictions(self) -> PredictionBook:
        return self.app.predictions  # type: ignore[attr-defined]

    # -- hooks the explorer calls ------------------------------------------------------------------

    def _why_sub_title(self) -> str:
        """The header's subtitle: where in the list, on the course the prediction score, and the title
        (last, so a narrow terminal cuts the title rather than the score)."""
        entry: ScenarioEntry = self.entry  # type: ignore[attr-defined]
        where = f"{self.index + 1}/{len(self.entries)}"  # type: ignore[attr-defined]
        if self.predictions.applies_to(entry):
            where += f" · {self.predictions.score_text()}"
        return f"{where} · {entry.title}"

    def _hides_explanation(self) -> bool:
        """Whether the lesson pane holds back the explanation (it would give the guess away)."""
        return bool(self.entries) and self.predictions.hides_explanation(self.entry)  # type: ignore[attr-defined]

    def _show_why(self) -> None:
        """Revealed guesses beside the measured counts, and the chart in its mode with the run's ceiling."""
        if not self.entries:
            return
        entry: ScenarioEntry = self.entry  # type: ignore[attr-defined]
        run: ScenarioRun | None = self.shown_run  # type: ignore[attr-defined]
        report = run.report if run is not None else None
        for table in self.query(KernelTable):  # type: ignore[attr-defined]
            table.show_prediction(self.predictions.guessed(entry, table.mode))
            waiting = run is not None and run.running and report is not None and report.compiled is None
            table.set_links_pending(table.mode == "eager" and waiting)
        if chart := self._find("#chart", RuntimeChart):  # type: ignore[attr-defined]
            chart.set_mode(self.chart_mode, report.bandwidth_ceiling_gbs if report is not None else None)
            chart.set_roofline(report)

    def _predict_first(self, sweep: bool) -> bool:
        """Before a course lesson's first run: ask for a guess, and run once it is given. True: asked."""
        if not self.entries:
            return False
        entry: ScenarioEntry = self.entry  # type: ignore[attr-defined]
        if not self.predictions.wants_prediction(entry):
            return False
        from kernel_tui.ui.screens.predict import PredictScreen

        def predicted(guess: tuple[int, int, float, float] | None) -> None:
            if guess is None or self.entry.path != entry.path:  # type: ignore[attr-defined]
                return
            self.predictions.predict(entry, *guess)
            self.action_run(sweep)  # type: ignore[attr-defined]

        self.app.push_screen(PredictScreen(entry.title), predicted)  # type: ignore[attr-defined]
        return True

    def _reveal_if_measured(self, run: ScenarioRun) -> None:
        """Once a run with a guess waiting has both counts: score it, and show it with the explanation."""
        entry = next((entry for entry in self.entries if entry.path == run.path), None)
        if entry is None:
            return
        answer = self.predictions.reveal(entry, run.report)
        if answer is None:
            return
        if self.predictions.save_error:
            self.notify(self.predictions.save_error, severity="warning")  # type: ignore[attr-defined]
        from kernel_tui.ui.screens.predict import RevealScreen

        lesson = entry.info.lesson if entry.info is not None else ""
        _, why, _ = split_lesson(lesson)
        right, asked = self.predictions.score
        score = f"Score across the course: {right} of {asked} predictions right."
        self.app.push_screen(RevealScreen(entry.title, answer, why, score))  # type: ignore[attr-defined]
        self._show_scenario()  # type: ignore[attr-defined]  # the explanation, the score, the tables' "you said"

    # -- actions -----------------------------------------------------------------------------------

    def action_code(self) -> None:
        """The generated source of the highlighted compiled kernel, or of the one an eager kernel became."""
        kernel = self._code_kernel()
        if kernel is None:
            self.notify(no_code_reason(self._highlighted_kernel(), self._name_mode))  # type: ignore[attr-defined]
            return
        from kernel_tui.ui.screens.kernel_code import KernelCodeScreen

        self.app.push_screen(KernelCodeScreen(kernel))  # type: ignore[attr-defined]

    def action_chart_mode(self) -> None:
        """Cycle the chart: runtime, achieved bandwidth against size, the roofline (and show it)."""
        self.chart_mode = CHART_MODES[(CHART_MODES.index(self.chart_mode) + 1) % len(CHART_MODES)]
        self._show_why()
        if not self.wide:
            self.action_pane("chart")  # type: ignore[attr-defined]

    def action_toggle_predict(self) -> None:
        """Turn predict-then-reveal on or off for this session."""
        book = self.predictions
        book.enabled = not book.enabled
        state = "on: guess each course lesson's kernel counts before its first run" if book.enabled else "off"
        self.notify(f"Predictions {state}.")  # type: ignore[attr-defined]
        self._show_scenario()  # type: ignore[attr-defined]

    def _report(self) -> ScenarioReport | None:
        run: ScenarioRun | None = self.shown_run  # type: ignore[attr-defined]
        return run.report if run is not None else None

    def _highlighted_kernel(self):  # noqa: ANN202 - a Kernel or None
        if self._report() is None:
            return None
        table = self._find(f"#{self._name_mode}", KernelTable)  # type: ignore[attr-defined]
        return table.highlighted_kernel() if table is not None else None

    def _code_kernel(self):  # noqa: ANN202 - a Kernel or None
        report = self._report()
        if report is None:
            return None
        return code_kernel(self._highlighted_kernel(), self._name_mode, report.compiled)  # type: ignore[attr-defined]
