"""The explorer's compile-variants part: the variants table, the compiled table's choice of kernels, and ``v``.

A report with variants gets a table of them under the kernel tables (``VariantsPane``): eager, compiled and
each shown variant in a row, a variant's note or error on a line below. Enter on a variant's row puts its
kernels in the compiled table, titled with its name, in place of the compiled side's; Enter on ``compiled``
puts those back. ``v`` opens ``VariantsScreen``. Variants added there are sent with each run of that scenario
for the rest of the session. The editor's draft of a scenario (an edit, or a copy of a course scenario) shares
that scenario's choices, so a variant added before editing goes with the editor's runs too, and one added
while the draft is on screen goes with the scenario's.

It is a plain object the explorer screen builds and calls, like ``WhyPart``; it reaches the screen only
through ``VariantsHost``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from textual.content import Content
from textual.screen import Screen

from kernel_tui.ui.variant_choices import VariantBook, VariantChoices

if TYPE_CHECKING:
    from kernel_tui.model.report import ModeResult, ScenarioReport
    from kernel_tui.ui.catalog import Catalog
    from kernel_tui.ui.pinned_baselines import ModeBaseline
    from kernel_tui.ui.run_state import RunBook
    from kernel_tui.ui.snippet_session import SnippetSession
    from kernel_tui.ui.widgets.kernel_table import KernelTable
    from kernel_tui.ui.widgets.variants_table import VariantsPane

COMPILED_TITLE = "Compiled"


class VariantsHost(Protocol):
    """What the variants part needs from the screen it works on."""

    def push_dialog(self, dialog: Screen[Any], answered: Callable[[Any], None] | None = None) -> None:
        """Show a dialog over the screen; ``answered`` gets its result."""

    def show_scenario(self) -> None:
        """Show the scenario on screen again (its lesson, tables and summary)."""


class VariantsPart:
    """Each scenario's variant choices, and what they change on screen."""

    def __init__(self, host: VariantsHost, catalog: Catalog, runs: RunBook, session: SnippetSession) -> None:
        self.host = host
        self.catalog = catalog
        self.runs = runs
        self.session = session
        self.book = VariantBook()

    def request(self, path: Path) -> dict[str, dict[str, Any]] | None:
        """The ``variants`` of a run of ``path``: those added in the explorer; None when there are none."""
        return self.book.of(self.session.scenario_of(path)).request()

    def _current(self) -> tuple[VariantChoices, ScenarioReport | None]:
        path = self.catalog.current.path
        run = self.runs.get(path)
        return self.book.of(self.session.scenario_of(path)), run.report if run is not None else None

    def show(
        self,
        pane: VariantsPane | None,
        compiled: KernelTable | None,
        waiting: str,
        baseline: ModeBaseline | None = None,
    ) -> None:
        """The variants table of the scenario on screen, and its compiled table's kernels (``waiting``: why the
        compiled side has none yet; ``baseline``: the pinned run's compiled side, marked on the compiled
        kernels, not on a variant's)."""
        if not self.catalog:
            return
        choices, report = self._current()
        kernels_of = choices.kernels_of if report is not None and choices.kernels_of in report.variants else None
        if pane is not None:
            pane.show(report, choices.hidden, kernels_of)
        if compiled is None:
            return
        result: ModeResult | None = report.compiled if report is not None else None
        if kernels_of is not None and report is not None:
            variant = report.variants[kernels_of]
            result = variant.measured
            waiting = "no numbers: see the variants table" if variant.measured is None else waiting
        compiled.show(result, waiting, baseline if kernels_of is None else None)
        compiled.border_title = Content(COMPILED_TITLE if kernels_of is None else f"{COMPILED_TITLE} · {kernels_of}")

    def show_kernels_of(self, name: str) -> None:
        """Put the kernels of the variants table's row ``name`` in the compiled table (eager's stay put)."""
        if name == "eager" or not self.catalog:
            return
        choices, _ = self._current()
        choices.kernels_of = None if name == "compiled" else name
        self.host.show_scenario()

    def choose(self) -> None:
        """Open the dialog for the scenario on screen; what it hands back replaces that scenario's choices."""
        from kernel_tui.ui.screens.variants import VariantsScreen  # a dialog's module loads when it first opens

        if not self.catalog:
            return
        entry = self.catalog.current
        choices, report = self._current()
        file_variants = entry.info.variants if entry.info is not None else {}
        scenario = self.session.scenario_of(entry.path)

        def chosen(result: VariantChoices | None) -> None:
            if result is None:
                return
            self.book.replace(scenario, result)
            self.host.show_scenario()

        self.host.push_dialog(VariantsScreen(entry.title, choices, file_variants, report), chosen)
