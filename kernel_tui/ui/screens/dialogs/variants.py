"""The ``v`` dialog: which of a scenario's compile variants are shown, and a line to add one for the next run.

It works on a copy of the scenario's ``VariantChoices`` and hands it back when closed (Esc), so what was
ticked and added counts and nothing else changes under it meanwhile. An added variant is written as
``kernel-tui run --variant`` takes it, ``NAME=KEY:VALUE,...``, and read by the same parser; an entry it
refuses stays in the input line with the reason under it, to be corrected rather than typed again.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, SelectionList, Static

from kernel_tui.model.report.compile_variants import (
    DEFAULT_VARIANT,
    VariantError,
    describe_arguments,
    parse_variant_flag,
)
from kernel_tui.ui.screens.dialogs.dialog import Dialog
from kernel_tui.ui.state.variant_choices import VariantChoices

if TYPE_CHECKING:
    from kernel_tui.model.report.report import ScenarioReport

EXAMPLE = "dyn=dynamic:True"


def flag_text(name: str, arguments: dict[str, Any]) -> str:
    """``dyn=dynamic:True``: an added variant as it would be typed again."""
    pairs = ",".join(f"{key}:{value if isinstance(value, str) else repr(value)}" for key, value in arguments.items())
    return f"{name}={pairs}"


class VariantsScreen(Dialog[VariantChoices]):
    """Tick the variants to show; type one to add. The result is the choices as they are when it closes."""

    BINDINGS = [Binding("escape", "close", "Close"), Binding("delete", "remove", "Remove added")]

    DEFAULT_CSS = """
    VariantsScreen #variants-body {
        max-width: 90;
    }

    VariantsScreen #variants-list {
        height: auto;
        max-height: 10;
        border: none;
        padding: 0;
    }

    VariantsScreen #variant-problem, VariantsScreen #variant-added {
        height: auto;
    }
    """

    def __init__(
        self,
        title: str,
        choices: VariantChoices,
        file_variants: dict[str, dict[str, Any]],
        report: ScenarioReport | None,
    ) -> None:
        super().__init__()
        self._title = title
        self.choices = copy.deepcopy(choices)
        """What the dialog changes, handed back when it closes."""
        self._file_variants = file_variants
        self._report = report

    def compose(self) -> ComposeResult:
        with Vertical(id="variants-body", classes="dialog-body") as body:
            body.border_title = Content(f"Compile variants · {self._title}")
            body.border_subtitle = "space: show/hide · del: drop added · enter: add · esc: close"
            yield Static(Text("Ticked variants are shown beside eager and compiled.", style="dim"))
            yield SelectionList[str](*self._options(), id="variants-list")
            yield Static(id="variants-none")
            yield Static(Text("Add one for the next runs (the file is not changed):", style="dim"))
            yield Input(placeholder=f"NAME=KEY:VALUE,…  e.g. {EXAMPLE}", id="variant-input")
            yield Static(id="variant-problem")
            yield Static(id="variant-added")

    def on_mount(self) -> None:
        self._show_listing()
        listing = self.query_one("#variants-list", SelectionList)
        (listing if listing.option_count else self.query_one(Input)).focus()

    def _arguments(self, name: str) -> dict[str, Any]:
        if name in self.choices.added:
            return self.choices.added[name]
        if name in self._file_variants:
            return self._file_variants[name]
        if self._report is not None and name in self._report.variants:
            return self._report.variants[name].options
        return {}

    def _options(self) -> list[tuple[Content, str, bool]]:
        known = self.choices.known(self._file_variants, self._report)
        options = []
        for name, source in known.items():
            label = f"{name}  {describe_arguments(self._arguments(name))}"
            if source == "added":
                label += "  (added)"
            options.append((Content(label), name, self.choices.shown(name)))  # a name from a file: never markup
        return options

    def _show_listing(self) -> None:
        listing = self.query_one("#variants-list", SelectionList)
        none = self.query_one("#variants-none", Static)
        listing.display = bool(listing.option_count)
        none.display = not listing.option_count
        none.update(Text("This scenario has no variants yet.", style="dim"))
        added = ", ".join(flag_text(name, arguments) for name, arguments in self.choices.added.items())
        self.query_one("#variant-added", Static).update(
            Text(f"added for the next runs: {added}" if added else "", style="green")
        )

    def on_input_changed(self, event: Input.Changed) -> None:
        self._say_problem("")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if not text:
            return
        try:
            name, arguments = parse_variant_flag(text)
        except VariantError as error:
            self._say_problem(str(error).replace("--variant ", "", 1))
            return
        self._apply_ticks()
        self.choices.add(name, arguments)
        event.input.value = ""
        self._refill()
        if name == DEFAULT_VARIANT:
            self.notify(f"The compiled side runs {describe_arguments(arguments)} from the next run")

    def action_remove(self) -> None:
        """Drop the highlighted variant if it was added here: the next runs go without it."""
        listing = self.query_one("#variants-list", SelectionList)
        if not listing.has_focus or listing.highlighted is None:
            return
        name = str(listing.get_option_at_index(listing.highlighted).value)
        if name not in self.choices.added:
            self.notify(f"{name} is the file's: edit VARIANTS to remove it (untick it to hide it)")
            return
        self._apply_ticks()
        del self.choices.added[name]
        self.choices.hidden.discard(name)
        self._refill()

    def _refill(self) -> None:
        listing = self.query_one("#variants-list", SelectionList)
        listing.clear_options()
        listing.add_options(self._options())
        self._show_listing()

    def action_close(self) -> None:
        self._apply_ticks()
        self.dismiss(self.choices)

    def _apply_ticks(self) -> None:
        listing = self.query_one("#variants-list", SelectionList)
        listed = {str(listing.get_option_at_index(index).value) for index in range(listing.option_count)}
        self.choices.show_only({str(value) for value in listing.selected}, listed)

    def _say_problem(self, text: str) -> None:
        self.query_one("#variant-problem", Static).update(Text(text, style="bold red"))
