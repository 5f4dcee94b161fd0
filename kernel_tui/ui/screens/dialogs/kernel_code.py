"""The generated-code dialog: the source Inductor wrote for one compiled kernel (C++ on CPU, Triton on GPU).

Highlighted with Pygments through Rich's ``Syntax`` (Textual's ``TextArea`` highlights only with the
optional tree-sitter packages), in a scroll view; imported only when the learner first presses ``g``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from kernel_tui.text.formatting import LINK_LABELS, lines_text, short_op
from kernel_tui.ui.screens.dialogs.dialog import Dialog
from kernel_tui.ui.view.kernel_words import code_language

if TYPE_CHECKING:
    from kernel_tui.model.report.kernel import Kernel


SHOWN_LINES = 1_000
SHOWN_CHARACTERS = 100_000
"""How much of a kernel's source is highlighted and laid out: Inductor's longest kernels are a few hundred lines,
and a results file may carry a kernel of 200 MB, which highlighting whole froze the view (Esc and ctrl+q too)."""


def shown_code(code: str) -> tuple[str, str | None]:
    """The part of ``code`` the dialog shows, and what was left out (None when nothing was)."""
    head = code[:SHOWN_CHARACTERS]
    lines = head.split("\n", SHOWN_LINES)
    if len(lines) <= SHOWN_LINES and len(head) == len(code):
        return code.rstrip(), None
    shown = "\n".join(lines[:SHOWN_LINES])
    total = code.count("\n") + 1
    return shown, f"showing the first {shown.count(chr(10)) + 1:,} of {total:,} lines ({len(code):,} characters)"


class KernelCodeScreen(Dialog[None]):
    """One compiled kernel's generated source, line-numbered; Esc, q or g closes it."""

    BINDINGS = [Binding("escape,q,g", "dismiss", "Close")]

    def __init__(self, kernel: Kernel) -> None:
        super().__init__()
        self.kernel = kernel
        self.language = code_language(kernel)
        """``cpp`` or ``python`` (Triton): the lexer the source is highlighted with (tests read this)."""

    def compose(self) -> ComposeResult:
        kernel = self.kernel
        with VerticalScroll(id="code-body", classes="dialog-body") as body:
            body.border_title = Content(f"Generated code: {kernel.short_name}")
            body.border_subtitle = Content(f"{'C++' if self.language == 'cpp' else 'Triton'} · esc closes")
            code, left_out = shown_code(kernel.code or "")
            yield Static(self._heading(left_out), id="code-heading")
            yield Static(
                Syntax(
                    code,
                    self.language,
                    theme="ansi_dark",
                    line_numbers=True,
                    background_color="default",
                    word_wrap=True,
                ),
                id="code-source",
            )

    def _heading(self, left_out: str | None = None) -> Text:
        kernel = self.kernel
        text = Text(kernel.name, style="bold")
        if left_out is not None:
            text.append(f"\n{left_out}", style="yellow")
        if kernel.aten_ops:
            text.append(f"\n{LINK_LABELS['compiled']} ", style="dim")
            text.append(", ".join(short_op(op) for op in kernel.aten_ops))
            if kernel.lines:
                text.append(f" · {lines_text(kernel.lines)} of the scenario", style="dim")
        return text

    def on_mount(self) -> None:
        self.query_one("#code-body").focus()
