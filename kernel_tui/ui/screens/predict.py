"""Predict, then reveal: the two dialogs around a course lesson's first run.

``PredictScreen`` asks how many kernels eager and compiled will run, and how many array-sized transfers
each side will cost, before the tables appear; it returns the four numbers (or None: back to the explorer,
nothing run). ``RevealScreen`` shows the guess beside what was measured, the lesson's explanation and the
score. The explorer decides when each one appears
(``kernel_tui.ui.score.PredictionBook``).
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import Input, Label, Static

from kernel_tui.formatting import format_count
from kernel_tui.ui.score import MODES, QUANTITIES, TRANSFERS, Answer
from kernel_tui.ui.screens.dialog import Dialog

QUESTIONS = {"eager": "eager PyTorch", "compiled": "torch.compile"}
ROWS = {"kernels": MODES, "transfers": TRANSFERS}
"""The dialog's rows, each with an eager and a compiled box; Enter and Tab go along a row, then down."""
LABELS = {
    "eager": "eager kernels",
    "compiled": "compiled kernels",
    "eager_transfers": "eager transfers",
    "compiled_transfers": "compiled transfers",
}
MAX_DIGITS = 3
MAX_TRANSFER_CHARS = 5
Guess = tuple[int, int, float, float]
"""Kernels eager, kernels compiled, transfers eager, transfers compiled."""


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


class PredictScreen(Dialog[Guess | None]):
    """Four numbers to guess; Enter moves on and then runs, Esc goes back without running.

    Only the boxes take focus, so Tab cycles through them and Enter always reaches one (the scrolling body
    took focus after the last box, where Enter did nothing); Enter with no box focused acts as in one.
    """

    BINDINGS = [Binding("escape", "back", "Back"), Binding("enter", "submit", "Run", show=False)]

    def __init__(self, title: str) -> None:
        super().__init__()
        self._title = title

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="predict-body", classes="dialog-body") as body:
            body.border_title = Content(f"Predict: {self._title}")
            body.border_subtitle = "enter runs · esc goes back"
            body.can_focus = False
            yield Static(
                Text(
                    "Before the tables appear: per call of fn, how many kernels will run, and how many "
                    "array-sized transfers (one full array read or written) will they cost?"
                ),
                id="predict-question",
            )
            with Horizontal(classes="predict-row predict-head"):
                yield Label("", classes="predict-label")
                for mode in MODES:
                    yield Label(QUESTIONS[mode], classes="predict-column")
            for row, quantities in ROWS.items():
                with Horizontal(classes="predict-row"):
                    yield Label(row, classes="predict-label")
                    for quantity in quantities:
                        box = CountInput(
                            placeholder=row,
                            type="integer" if row == "kernels" else "number",
                            restrict=r"[0-9]*" if row == "kernels" else r"[0-9]*\.?[0-9]*",
                            max_length=MAX_DIGITS if row == "kernels" else MAX_TRANSFER_CHARS,
                            id=f"predict-{quantity}",
                        )
                        box.tooltip = LABELS[quantity]
                        yield box
            yield Static(
                Text("t on the explorer turns predicting off (--no-predict at start).", style="dim"), id="predict-note"
            )

    def on_mount(self) -> None:
        self.set_focus(self.box("eager"))

    def box(self, quantity: str) -> Input:
        return self.query_one(f"#predict-{quantity}", Input)

    def entered(self, field: Input | None) -> None:
        """Enter in a box: on to the next empty box, else run with all four (focus moves at once)."""
        boxes = [self.box(quantity) for quantity in QUANTITIES]
        start = boxes.index(field) + 1 if field in boxes else 0
        empty = [box for box in boxes[start:] + boxes[:start] if not box.value]
        if empty and empty[0] is not field:
            self.set_focus(empty[0])
            return
        values: list[float] = []
        for quantity, box in zip(QUANTITIES, boxes, strict=True):
            value = _number(box.value, whole=quantity in MODES)
            if value is None:
                self.set_focus(box)
                what = "kernels" if quantity in MODES else "array-sized transfers (2 or 1.5)"
                self.notify(f"Type a number of {what}, 0 or more, in each box.", severity="warning")
                return
            values.append(value)
        eager, compiled, eager_transfers, compiled_transfers = values
        self.dismiss((int(eager), int(compiled), eager_transfers, compiled_transfers))

    def action_submit(self) -> None:
        """Enter where no box has focus: as Enter in the box that has it, else from the first empty box."""
        focused = self.focused
        self.entered(focused if isinstance(focused, Input) else None)

    def action_back(self) -> None:
        self.dismiss(None)


def _number(text: str, *, whole: bool) -> float | None:
    """A box's value: a whole number of kernels, or transfers that may have a fraction; None if neither."""
    if whole:
        return int(text) if text.isdigit() else None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value >= 0 else None


class RevealScreen(Dialog[None]):
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

        with VerticalScroll(id="reveal-body", classes="dialog-body") as body:
            body.border_title = Content(f"Reveal: {self._title}")
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
        for quantity in QUANTITIES:
            if quantity not in self.answer.predicted:
                continue  # an answer from before the dialog asked for transfers
            measured = self.answer.measured.get(quantity)
            if measured is None:
                verdict = Text("not measured", style="dim")
            elif self.answer.right(quantity):
                verdict = Text("✓ right", style="green")
            else:
                verdict = Text("✗ not this time", style="bold red")
            table.add_row(
                Text(LABELS[quantity], style="bold"),
                Text(format_count(self.answer.predicted[quantity])),
                Text(_measured_text(quantity, measured)),
                verdict,
            )
        return table

    def on_mount(self) -> None:
        self.query_one("#reveal-body").focus()


def _measured_text(quantity: str, value: float | None) -> str:
    """Kernel counts as counted; transfers to two decimals at most (``2.001`` is ``2``, ``1.5`` stays)."""
    if value is None or quantity in MODES:
        return format_count(value)
    return f"{round(value, 2):g}"
