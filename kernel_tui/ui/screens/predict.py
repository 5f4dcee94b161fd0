"""Predict, then reveal: the two dialogs around a course lesson's first run.

``PredictScreen`` asks how many kernels eager and compiled will run, before the tables appear; it returns
the two counts (or None: back to the explorer, nothing run). ``RevealScreen`` shows the guess beside what
was measured, the lesson's explanation and the score. The explorer decides when each one appears
(``kernel_tui.ui.score.PredictionBook``).
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from kernel_tui.formatting import format_count
from kernel_tui.ui.score import MODES, Answer

QUESTIONS = {"eager": "eager PyTorch", "compiled": "torch.compile"}
MAX_DIGITS = 3


class CountInput(Input):
    """A count box that keeps up with a fast typist: ``2⏎1⏎`` typed in one burst fills both boxes.

    Keys reach a box through its own queue, so keys typed right after an Enter that moves focus on are
    already queued here: they are passed to the box that has focus now. Enter itself acts at once (not
    through a binding, which would only run once the key has bubbled up to the app).
    """

    async def _on_key(self, event: events.Key) -> None:
        screen = self.screen
        if not isinstance(screen, PredictScreen):
            await super()._on_key(event)
            return
        focused = screen.focused
        if focused is not self and isinstance(focused, CountInput):
            event.stop()
            event.prevent_default()
            focused.post_message(events.Key(event.key, event.character))
            return
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            screen.entered(self)
            return
        await super()._on_key(event)


class PredictScreen(ModalScreen[tuple[int, int] | None]):
    """Two counts to guess; Enter moves on and then runs, Esc goes back without running."""

    BINDINGS = [Binding("escape", "back", "Back")]

    def __init__(self, title: str) -> None:
        super().__init__()
        self._title = title

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="predict-body") as body:
            body.border_title = f"Predict: {self._title}"
            body.border_subtitle = "enter runs · esc goes back"
            yield Static(
                Text("Before the tables appear: how many kernels will run per call of fn?"),
                id="predict-question",
            )
            for mode in MODES:
                with Horizontal(classes="predict-row"):
                    yield Label(QUESTIONS[mode], classes="predict-label")
                    yield CountInput(
                        placeholder="kernels",
                        type="integer",
                        restrict=r"[0-9]*",
                        max_length=MAX_DIGITS,
                        id=f"predict-{mode}",
                    )
            yield Static(Text("t on the explorer turns predicting off (--no-predict at start).", style="dim"),
                         id="predict-note")

    def on_mount(self) -> None:
        self.set_focus(self.query_one("#predict-eager", Input))

    def entered(self, field: Input) -> None:
        """Enter in a box: on to the next empty box, else run with both counts (focus moves at once)."""
        eager, compiled = (self.query_one(f"#predict-{mode}", Input) for mode in MODES)
        if field is eager and not compiled.value:
            self.set_focus(compiled)
            return
        for box in (eager, compiled):
            if not box.value.isdigit():
                self.set_focus(box)
                self.notify("Type a number of kernels (0 or more) in each box.", severity="warning")
                return
        self.dismiss((int(eager.value), int(compiled.value)))

    def action_back(self) -> None:
        self.dismiss(None)


class RevealScreen(ModalScreen[None]):
    """The guess beside the measurement, the lesson's explanation and the score; Esc, Enter or q closes."""

    BINDINGS = [Binding("escape,enter,q", "dismiss", "Close")]

    def __init__(self, title: str, answer: Answer, why: str, score: str) -> None:
        super().__init__()
        self._title = title
        self.answer = answer
        self.why = why
        """The lesson's explanation (Markdown), shown under the counts (tests read this)."""
        self._score = score

    def compose(self) -> ComposeResult:
        from textual.widgets import Markdown

        with VerticalScroll(id="reveal-body") as body:
            body.border_title = f"Reveal: {self._title}"
            body.border_subtitle = "esc closes"
            yield Static(self._counts(), id="reveal-counts")
            if self.why:
                yield Markdown(f"**Why.** {self.why}", id="reveal-why")
            yield Static(Text(self._score, style="bold"), id="reveal-score")

    def _counts(self) -> Table:
        table = Table.grid(padding=(0, 2))
        table.add_column()
        table.add_column(justify="right")
        table.add_column(justify="right")
        table.add_column()
        table.add_row(Text(""), Text("you said", style="dim"), Text("measured", style="dim"), Text(""))
        for mode in MODES:
            right = self.answer.right(mode)
            table.add_row(
                Text(QUESTIONS[mode], style="bold"),
                Text(str(self.answer.predicted[mode])),
                Text(format_count(self.answer.measured[mode])),
                Text("✓ right" if right else "✗ not this time", style="green" if right else "bold red"),
            )
        return table

    def on_mount(self) -> None:
        self.query_one("#reveal-body").focus()

    def action_dismiss(self) -> None:
        self.dismiss(None)
