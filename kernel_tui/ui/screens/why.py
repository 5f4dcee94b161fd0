"""The explorer's "why these kernels" part: generated code, and predict-then-reveal.

``WhyPart`` is the part of the explorer that answers *why*: ``g`` shows the generated source of the
highlighted compiled kernel (or of the one an eager kernel was fused into), and on the built-in course each
lesson's first run is preceded by a guess at its kernel counts, revealed once measured, with the lesson's
explanation and a score kept across sessions (``t`` or ``--no-predict`` turns that off). The attribution and
bandwidth columns themselves live in the kernel tables; what the panes show of the guesses (the tables'
"you said", the hidden explanation, the score in the subtitle) is computed with the rest (``kernel_tui.ui.view.shown``).

It is a plain object the explorer screen builds with what it reads (the catalog, the runs, the prediction
book); its methods change that state and return what to show the learner (``Asked``, ``Notice``), which the
screen shows before showing its state again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from kernel_tui.ui.screens.asked import Asked, Reply
from kernel_tui.ui.state.course.score import PredictionBook, split_lesson
from kernel_tui.ui.state.snippets.session_effects import Notice
from kernel_tui.ui.view.kernel_words import code_kernel, no_code_reason

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.ui.state.course.catalog import Catalog
    from kernel_tui.ui.state.run_state import RunBook, ScenarioRun


class WhyPart:
    """Code and predict-then-reveal, over the explorer's catalog and runs."""

    def __init__(self, catalog: Catalog, runs: RunBook, predictions: PredictionBook) -> None:
        self.catalog = catalog
        self.runs = runs
        self.predictions = predictions

    def hides_explanation(self) -> bool:
        """Whether the lesson pane holds back the explanation (it would give the guess away)."""
        return bool(self.catalog) and self.predictions.hides_explanation(self.catalog.current)

    def predict_first(self, run: Callable[[bool], None], sweep: bool) -> Asked | None:
        """Before a course lesson's first run: the dialog asking for a guess, which calls ``run`` once it is
        given, with the sweep if asked for or if the guess is about the sweep. None: no guess to ask for."""
        if not self.catalog:
            return None
        entry = self.catalog.current
        if not self.predictions.wants_prediction(entry):
            return None
        from kernel_tui.ui.screens.dialogs.predict import PredictScreen

        def predicted(guess: dict[str, float] | None) -> None:
            if guess is None or self.catalog.current.path != entry.path:
                return
            self.predictions.predict(entry, guess)
            run(sweep or self.predictions.needs_sweep(entry))

        book = self.predictions
        return Asked(PredictScreen(entry.title, book.questions(entry), book.device_kind(entry)), predicted)

    def reveal_if_measured(self, run: ScenarioRun) -> list[Reply]:
        """Once a run with a guess waiting has both counts: score it, and reveal it with the explanation."""
        entry = self.catalog.find(run.record.path)
        if entry is None:
            return []
        device = self.predictions.guess_device(entry)
        off_device = self.predictions.off_device(entry, run.record.report)
        if off_device is not None:
            return [Notice(off_device, severity="warning")]
        answer = self.predictions.reveal(entry, run.record.report, finished=not run.running)
        if answer is None:
            if not run.running and not run.record.sweep and self.predictions.waits_for_sweep(entry):
                return [Notice("Your guess at the sweep's compiles is graded by a run with the sweep: press s.")]
            return []
        replies: list[Reply] = []
        if self.predictions.save_error:
            replies.append(Notice(self.predictions.save_error, severity="warning"))
        from kernel_tui.ui.screens.dialogs.predict import RevealScreen

        lesson = entry.info.lesson if entry.info is not None else ""
        _, why, _ = split_lesson(lesson)
        replies.append(Asked(RevealScreen(entry.title, answer, why, self.predictions.score_line(), device)))
        return replies

    def show_code(self, highlighted: Kernel | None, mode: str) -> Reply:
        """The generated source of the highlighted compiled kernel, or of the one an eager kernel became."""
        run = self.runs.get(self.catalog.current.path) if self.catalog else None
        report = run.record.report if run is not None else None
        highlighted = highlighted if report is not None else None
        kernel = code_kernel(highlighted, mode, report.compiled) if report is not None else None
        if kernel is None:
            return Notice(no_code_reason(highlighted, mode))
        from kernel_tui.ui.screens.dialogs.kernel_code import KernelCodeScreen

        return Asked(KernelCodeScreen(kernel))

    def toggle_predict(self) -> Notice:
        """Turn predict-then-reveal on or off for this session."""
        book = self.predictions
        book.enabled = not book.enabled
        state = "on: guess what each course lesson teaches before its first run" if book.enabled else "off"
        return Notice(f"Predictions {state}.")
