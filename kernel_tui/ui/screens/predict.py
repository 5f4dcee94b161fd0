"""Predict, then reveal: the two dialogs around a course lesson's first run.

``PredictScreen`` asks, before the tables appear, the rows of questions the lesson teaches
(``kernel_tui.ui.questions``: per call, kernels and array-sized transfers, eager and compiled; a training
step, each section's kernels and the arrays forward keeps for backward; graph breaks, the sweep's compiles,
the faster side, each kernel's roofline class); it returns the answers by quantity, a word as its index (or
None: back to the explorer, nothing run). ``RevealScreen`` shows the guess beside what was measured, the
lesson's explanation and the score. The explorer decides when each one appears
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

from kernel_tui.model.report_keys import MODES
from kernel_tui.text.formatting import format_count
from kernel_tui.ui.questions import CHOICES, QUESTIONS, asked, choice_index
from kernel_tui.ui.score import ALL_QUANTITIES, WHOLE, Answer
from kernel_tui.ui.screens.dialog import Dialog

COLUMNS = {"eager": "eager PyTorch", "compiled": "torch.compile"}
LABELS = {
    "eager": "eager kernels",
    "compiled": "compiled kernels",
    "eager_transfers": "eager transfers",
    "compiled_transfers": "compiled transfers",
    "eager_forward": "eager forward kernels",
    "compiled_forward": "compiled forward kernels",
    "eager_backward": "eager backward kernels",
    "compiled_backward": "compiled backward kernels",
    "eager_saved": "eager saved arrays",
    "compiled_saved": "compiled saved arrays",
    "graph_breaks": "graph breaks",
    "boundaries": "boundaries",
    "boundaries_library": "at a library call",
    "boundaries_reduction": "after a reduction",
    "sweep_compiles": "compiles in the sweep",
    "faster": "faster side",
    "matmul_bound": "mm is …-bound",
    "elementwise_bound": "tanh is …-bound",
}
PROMPTS = {
    "forward-only": "Before the tables appear: per call of fn, how many kernels will run, and how many "
    "array-sized transfers (one full array read or written) will they cost?",
    "training": "Before the tables appear: how many kernels will each section of the training step run, and "
    "how many arrays (each the size of the largest input; fractions welcome) will forward keep for backward, "
    "the inputs left out?",
    "graph-break": "Before the tables appear: per call of fn, how many kernels will run, and how many graph "
    "breaks will torch.compile make (each break ends one compiled graph and starts another)?",
    "boundaries": "Before the tables appear: per call of fn, how many kernels will run; compiled, at how many "
    "boundaries will one kernel write a buffer that another reads back, and how many of those are at a library "
    "call, how many after a reduction?",
    "sweep": "Before the tables appear: the profile compiles fn once; how many more compiles will the size "
    "sweep cost? Enter runs the lesson with its sweep (as s does): the answer is graded when the sweep ends.",
    "tiny": "Before the tables appear: per call of fn, how many kernels will run, how many array-sized "
    "transfers will they cost, and which side will be faster at this size (eager or compiled: e or c)?",
    "roofline": "Before the tables appear: per call of fn, how many kernels will run, how many array-sized "
    "transfers will they cost, and what limits each kernel: compute, memory or the overhead of a call "
    "(c, m or o)?",
}
COUNTED = {
    "graph_breaks": "graph breaks",
    "sweep_compiles": "compiles",
    **{quantity: "boundaries" for quantity in ("boundaries", "boundaries_library", "boundaries_reduction")},
}
"""What a count box counts, where it is not kernels."""
MAX_DIGITS = 3
MAX_FRACTION_CHARS = 5
Guess = dict[str, float]
"""The learner's numbers by quantity (``eager``, ``compiled_saved``...), in the dialog's order."""


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
    """A row of numbers to guess per question; Enter moves on and then runs, Esc goes back without running.

    Only the boxes take focus, so Tab cycles through them and Enter always reaches one (the scrolling body
    took focus after the last box, where Enter did nothing); Enter with no box focused acts as in one.
    """

    BINDINGS = [Binding("escape", "back", "Back"), Binding("enter", "submit", "Run", show=False)]

    def __init__(self, title: str, kind: str = "forward-only") -> None:
        super().__init__()
        self._title = title
        self.kind = kind
        self.rows = QUESTIONS[kind]
        """Each row's label and its eager and compiled quantity (or one choice across both); Enter and Tab go
        along a row, then down."""
        self.quantities = asked(self.rows)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="predict-body", classes="dialog-body") as body:
            body.border_title = Content(f"Predict: {self._title}")
            body.border_subtitle = "enter runs · esc goes back"
            body.can_focus = False
            yield Static(Text(PROMPTS[self.kind]), id="predict-question")
            with Horizontal(classes="predict-row predict-head"):
                yield Label("", classes="predict-label")
                for mode in MODES:
                    yield Label(COLUMNS[mode], classes="predict-column")
            for row, quantities in self.rows.items():
                with Horizontal(classes="predict-row"):
                    yield Label(row, classes="predict-label")
                    for quantity in quantities:
                        if quantity is None:
                            yield Label("", classes="predict-column")  # nothing to ask of this side
                        else:
                            yield _box(quantity, row)
            yield Static(
                Text("t on the explorer turns predicting off (--no-predict at start).", style="dim"), id="predict-note"
            )

    def on_mount(self) -> None:
        self.set_focus(self.box(self.quantities[0]))

    def box(self, quantity: str) -> Input:
        return self.query_one(f"#predict-{quantity}", Input)

    def entered(self, field: Input | None) -> None:
        """Enter in a box: on to the next empty box, else run with them all (focus moves at once)."""
        boxes = [self.box(quantity) for quantity in self.quantities]
        start = boxes.index(field) + 1 if field in boxes else 0
        empty = [box for box in boxes[start:] + boxes[:start] if not box.value]
        if empty and empty[0] is not field:
            self.set_focus(empty[0])
            return
        guess: Guess = {}
        for quantity, box in zip(self.quantities, boxes, strict=True):
            if quantity in CHOICES:
                choice = choice_index(quantity, box.value)
                if choice is None:
                    self.set_focus(box)
                    self.notify(f"Type {_or(CHOICES[quantity])} (its first letter is enough).", severity="warning")
                    return
                guess[quantity] = choice
                continue
            value = _number(box.value, whole=quantity in WHOLE)
            if value is None:
                self.set_focus(box)
                what = COUNTED.get(quantity, "kernels" if quantity in WHOLE else "arrays (2, 1.5 or 0.25)")
                self.notify(f"Type a number of {what}, 0 or more, in each box.", severity="warning")
                return
            guess[quantity] = int(value) if quantity in WHOLE else value
        self.dismiss(guess)

    def action_submit(self) -> None:
        """Enter where no box has focus: as Enter in the box that has it, else from the first empty box."""
        focused = self.focused
        self.entered(focused if isinstance(focused, Input) else None)

    def action_back(self) -> None:
        self.dismiss(None)


def _box(quantity: str, row: str) -> CountInput:
    """The box for one quantity: a whole count, a number of arrays, or a word (a wide box)."""
    if quantity in CHOICES:
        box = CountInput(
            placeholder=_or(CHOICES[quantity]),
            restrict=r"[A-Za-z]*",
            max_length=max(len(word) for word in CHOICES[quantity]),
            id=f"predict-{quantity}",
            classes="predict-choice",
        )
    else:
        whole = quantity in WHOLE
        box = CountInput(
            placeholder=row.split()[-1],
            type="integer" if whole else "number",
            restrict=r"[0-9]*" if whole else r"[0-9]*\.?[0-9]*",
            max_length=MAX_DIGITS if whole else MAX_FRACTION_CHARS,
            id=f"predict-{quantity}",
        )
    box.tooltip = LABELS[quantity]
    return box


def _or(words: tuple[str, ...]) -> str:
    return ", ".join(words[:-1]) + f" or {words[-1]}"


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
        for quantity in ALL_QUANTITIES:
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
                Text(_measured_text(quantity, self.answer.predicted[quantity])),
                Text(_measured_text(quantity, measured)),
                verdict,
            )
        return table

    def on_mount(self) -> None:
        self.query_one("#reveal-body").focus()


def _measured_text(quantity: str, value: float | None) -> str:
    """Kernel counts as counted; a choice as its word; arrays to two decimals at most (``2.001`` is ``2``,
    ``0.25`` stays)."""
    if value is not None and quantity in CHOICES:
        return CHOICES[quantity][round(value)]
    if value is None or quantity in WHOLE:
        return format_count(value)
    return f"{round(value, 2):g}"
