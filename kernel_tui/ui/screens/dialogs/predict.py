"""Predict, then reveal: the two dialogs around a course lesson's first run.

``PredictScreen`` asks, before the tables appear, the lesson's own claims on this device
(``kernel_tui.ui.state.course.questions``), one box each as its claim kind says
(``kernel_tui.ui.state.course.claim_kinds``: a count, an amount of arrays, or a word), in rows of an eager and a
compiled column; it returns the answers by claim, a word as its index (or None: back to the explorer, nothing
run). ``RevealScreen`` shows the guess beside what was measured on the device it was for, the lesson's
explanation and the score. The explorer decides when each one appears
(``kernel_tui.ui.state.course.score.PredictionBook``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import Input, Label, Static

from kernel_tui.model.report.report_keys import MODES
from kernel_tui.text.formatting import format_count
from kernel_tui.ui.screens.dialogs.dialog import Dialog
from kernel_tui.ui.state.course.claim_kinds import Amount, Choice, choice_index, kind_of

if TYPE_CHECKING:
    from kernel_tui.ui.state.course.answers import Answer
    from kernel_tui.ui.state.course.questions import LessonQuestions, Question

COLUMNS = {"eager": "eager PyTorch", "compiled": "torch.compile"}
MAX_FRACTION_CHARS = 5
Guess = dict[str, float]
"""The learner's numbers by claim key (``eager``, ``eager_line_40``...), in the dialog's order."""


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

    def __init__(self, title: str, questions: LessonQuestions, device: str | None = None) -> None:
        super().__init__()
        self._title = title
        self.device = device or questions.device
        """The kind of device the answers are for (``cuda-preview sm_90`` where the questions need the arch)."""
        self.questions = questions
        """The lesson's claims on this device, each asked as its kind says."""
        self.rows = questions.rows
        """Each row's label and its eager and compiled question (or one across both); Enter and Tab go along a
        row, then down."""
        self.quantities = questions.keys

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="predict-body", classes="dialog-body") as body:
            body.border_title = Content(f"Predict: {self._title} · {self.device}")
            body.border_subtitle = "enter runs · esc goes back"
            body.can_focus = False
            yield Static(Text(self.questions.prompt), id="predict-question")
            with Horizontal(classes="predict-row predict-head"):
                yield Label("", classes="predict-label")
                for mode in MODES:
                    yield Label(COLUMNS[mode], classes="predict-column")
            for row, questions in self.rows.items():
                with Horizontal(classes="predict-row"):
                    yield Label(row, classes="predict-label")
                    for question in questions:
                        if question is None:
                            yield Label("", classes="predict-column")  # nothing to ask of this side
                        else:
                            yield _box(question, spans=len(questions) == 1)
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
        for question, box in zip(self.questions.in_order, boxes, strict=True):
            entry = question.entry
            if isinstance(entry, Choice):
                choice = choice_index(entry.words, box.value)
                if choice is None:
                    self.set_focus(box)
                    self.notify(f"Type {_or(entry.words)} (its first letter is enough).", severity="warning")
                    return
                guess[question.key] = choice
                continue
            whole = not isinstance(entry, Amount)
            value = _number(box.value, whole=whole)
            if value is None:
                self.set_focus(box)
                what = "arrays (2, 1.5 or 0.25)" if isinstance(entry, Amount) else entry.counted
                self.notify(f"Type a number of {what}, 0 or more, in each box.", severity="warning")
                return
            guess[question.key] = int(value) if whole else value
        self.dismiss(guess)

    def action_submit(self) -> None:
        """Enter where no box has focus: as Enter in the box that has it, else from the first empty box."""
        focused = self.focused
        self.entered(focused if isinstance(focused, Input) else None)

    def action_back(self) -> None:
        self.dismiss(None)


def _box(question: Question, *, spans: bool) -> CountInput:
    """The box for one claim: a whole count, a number of arrays, or a word (a wide box)."""
    entry = question.entry
    if isinstance(entry, Choice):
        box = CountInput(
            placeholder=question.kind.placeholder(question.key),
            restrict=r"[A-Za-z]*",
            max_length=max(len(word) for word in entry.words),
            id=f"predict-{question.key}",
            classes="predict-choice" if spans else "",
            compact=True,
        )
    elif isinstance(entry, Amount):
        box = CountInput(
            placeholder=question.kind.placeholder(question.key),
            type="number",
            restrict=r"[0-9]*\.?[0-9]*",
            max_length=MAX_FRACTION_CHARS,
            id=f"predict-{question.key}",
            compact=True,
        )
    else:
        box = CountInput(
            placeholder=question.kind.placeholder(question.key),
            type="integer",
            restrict=r"[0-9]*",
            max_length=entry.digits,
            id=f"predict-{question.key}",
            compact=True,
        )
    box.tooltip = question.label
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

    def __init__(self, title: str, answer: Answer, why: str, score: str, device: str = "cpu") -> None:
        super().__init__()
        self._title = title
        self.device = device
        """The kind of device the answer was for, and was graded on."""
        self.answer = answer
        self.why = why
        """The lesson's explanation (Markdown), shown under the counts (tests read this)."""
        self._score = score

    def compose(self) -> ComposeResult:
        from textual.widgets import Markdown

        with VerticalScroll(id="reveal-body", classes="dialog-body") as body:
            body.border_title = Content(f"Reveal: {self._title} · {self.device}")
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
        for quantity in self.answer.predicted:
            measured = self.answer.measured.get(quantity)
            if measured is None:
                verdict = Text(self.answer.unsettled.get(quantity, "not measured"), style="dim")
            elif self.answer.right(quantity):
                verdict = Text("✓ right", style="green")
            else:
                verdict = Text("✗ not this time", style="bold red")
            table.add_row(
                Text(_label(quantity), style="bold"),
                Text(_measured_text(quantity, self.answer.predicted[quantity])),
                Text(_measured_text(quantity, measured)),
                verdict,
            )
        return table

    def on_mount(self) -> None:
        self.query_one("#reveal-body").focus()


def _label(key: str) -> str:
    kind = kind_of(key)
    return kind.label(key) if kind is not None else key


def _measured_text(key: str, value: float | None) -> str:
    """Counts as counted; a choice as its word; arrays to two decimals at most (``2.001`` is ``2``, ``0.25``
    stays)."""
    kind = kind_of(key)
    entry = kind.entry if kind is not None else None
    if value is not None and isinstance(entry, Choice):
        return entry.words[round(value)] if 0 <= round(value) < len(entry.words) else format_count(value)
    if value is None or not isinstance(entry, Amount):
        return format_count(value)
    return f"{round(value, 2):g}"
