"""The explorer's compile-variants part: which variants are shown, whose kernels the compiled table shows, ``v``.

A report with variants gets a table of them under the kernel tables (``VariantsPane``): eager, compiled and
each shown variant in a row, a variant's note or error on a line below. Enter on a variant's row puts its
kernels in the compiled table, titled with its name, in place of the compiled side's; Enter on ``compiled``
puts those back. ``v`` opens ``VariantsScreen``. Variants added there are sent with each run of that scenario
for the rest of the session. The editor's draft of a scenario (an edit, or a copy of a course scenario) shares
that scenario's choices, so a variant added before editing goes with the editor's runs too, and one added
while the draft is on screen goes with the scenario's.

It is a plain object the explorer screen builds and calls, like ``WhyPart``: it changes the choices through the
explorer's ``ExplorerState`` (``variants_added``, ``variants_chosen``, ``variant_kernels_shown``; the book is the
state's) and returns the dialog to show (``Asked``); what the panes show of the choices is
``kernel_tui.ui.view.shown``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kernel_tui.ui.screens.asked import Asked
from kernel_tui.ui.state.variant_choices import VariantBook, VariantChoices

if TYPE_CHECKING:
    from kernel_tui.ui.screens.explorer_engine import HoldsState
    from kernel_tui.ui.state.course.catalog import Catalog
    from kernel_tui.ui.state.run_state import RunBook
    from kernel_tui.ui.state.snippets.snippet_session import SnippetSession


class VariantsPart:
    """Each scenario's variant choices."""

    def __init__(self, catalog: Catalog, runs: RunBook, session: SnippetSession, holder: HoldsState) -> None:
        self.catalog = catalog
        self.runs = runs
        self.session = session
        self.book = VariantBook()
        """The choices, read here; changed through the holder's state, which holds this book."""
        self._holder = holder

    def request(self, path: Path) -> dict[str, dict[str, Any]] | None:
        """The ``variants`` of a run of ``path``: those added in the explorer; None when there are none."""
        return self.book.of(self.session.scenario_of(path)).request()

    def show_kernels_of(self, name: str) -> None:
        """Put the kernels of the variants table's row ``name`` in the compiled table (eager's stay put)."""
        if name == "eager" or not self.catalog:
            return
        scenario = self.session.scenario_of(self.catalog.current.path)
        holder = self._holder
        holder.state = holder.state.variant_kernels_shown(scenario, None if name == "compiled" else name)

    def try_experiments(self, tell: Callable[[str], object]) -> bool:
        """``x``: add the variants the latest run suggests (its boundaries' experiments, its verdict's variant) to
        the scenario on screen, for its next runs, telling the learner which; whether any was added."""
        said, added = self._experiments()
        tell(said)
        return added

    def _experiments(self) -> tuple[str, bool]:
        from kernel_tui.model.report.boundary import EXPERIMENTS

        if not self.catalog:
            return "No scenario to experiment on.", False
        entry = self.catalog.current
        run = self.runs.get(entry.path)
        report = run.record.report if run is not None else None
        compiled = report.compiled if report is not None else None
        apart = [b.experiment for b in (compiled.boundaries if compiled else ()) if b.experiment]
        found = report.verdict if report is not None else None
        suggested = [found.variant] if found is not None and found.variant else []
        names = list(dict.fromkeys([*apart, *suggested]))
        if not names:
            return "Neither the latest run's boundaries nor its verdict suggests a variant (r runs it first).", False
        holder = self._holder
        added = {name: EXPERIMENTS[name] for name in names}
        holder.state = holder.state.variants_added(self.session.scenario_of(entry.path), added)
        why = (
            "whether the kernels that stayed apart fuse"
            if apart
            else f"whether it does what the verdict says ({found.cause if found else ''})"
        )
        return f"Added the variant {', '.join(names)}: this run shows {why}", True

    def choose(self) -> Asked | None:
        """The dialog for the scenario on screen; what it hands back replaces that scenario's choices."""
        from kernel_tui.ui.screens.dialogs.variants import VariantsScreen  # a dialog's module loads when it first opens

        if not self.catalog:
            return None
        entry = self.catalog.current
        scenario = self.session.scenario_of(entry.path)
        run = self.runs.get(entry.path)
        file_variants = entry.info.variants if entry.info is not None else {}

        def chosen(result: VariantChoices | None) -> None:
            if result is not None:
                holder = self._holder
                holder.state = holder.state.variants_chosen(scenario, result)

        report = run.record.report if run is not None else None
        return Asked(VariantsScreen(entry.title, self.book.of(scenario), file_variants, report), chosen)
