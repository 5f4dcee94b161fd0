"""What the learner chose about a scenario's compile variants this session: which are shown, which were added.

Kept per scenario path and never written anywhere: an added variant is an experiment for the next runs, not
an edit of the file (``kernel-tui run --variant`` is its headless twin, and the run request carries it the
same way). A hidden variant is still measured; hiding only keeps its row and kernels off the screen.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kernel_tui.model.report.compile_variants import DEFAULT_VARIANT

if TYPE_CHECKING:
    from kernel_tui.model.report.report import ScenarioReport


@dataclass
class VariantChoices:
    """One scenario's choices."""

    hidden: set[str] = field(default_factory=set)
    """Variants measured but not shown."""
    added: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Variants added in the explorer, by name, in the order added: ``torch.compile`` arguments for each run."""
    kernels_of: str | None = None
    """The variant whose kernels the compiled table shows instead of the compiled side's; None: its own."""

    def known(self, file_variants: dict[str, dict[str, Any]], report: ScenarioReport | None) -> dict[str, str]:
        """Every variant there is to choose from, name to where it comes from: the file's, the latest run's,
        then those added here (an added one overrides the file's of the same name)."""
        known: dict[str, str] = {name: "file" for name in file_variants if name != DEFAULT_VARIANT}
        if report is not None:
            known.update({name: "run" for name in report.variants if name not in known})
        known.update({name: "added" for name in self.added if name != DEFAULT_VARIANT})
        return known

    def shown(self, name: str) -> bool:
        return name not in self.hidden

    def show_only(self, shown: set[str], among: set[str]) -> None:
        """Show exactly ``shown`` of the variants ``among`` (what a dialog listed), leaving others as they were."""
        self.hidden = (self.hidden - among) | (among - shown)
        if self.kernels_of is not None and self.kernels_of in self.hidden:
            self.kernels_of = None

    def add(self, name: str, arguments: dict[str, Any]) -> None:
        """Add (or replace) a variant for the next runs, and show it."""
        self.added[name] = arguments
        self.hidden.discard(name)

    def request(self) -> dict[str, dict[str, Any]] | None:
        """The run request's ``variants``: the added ones, on top of the file's; None when there are none."""
        return dict(self.added) or None


class VariantBook:
    """Each scenario's ``VariantChoices``, by path, for the session."""

    def __init__(self) -> None:
        self._by_path: dict[Path, VariantChoices] = {}

    def of(self, path: Path) -> VariantChoices:
        return self._by_path.setdefault(Path(path), VariantChoices())

    def replace(self, path: Path, choices: VariantChoices) -> None:
        """``path``'s choices as a dialog handed them back."""
        self._by_path[Path(path)] = choices
