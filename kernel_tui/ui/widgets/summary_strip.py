"""The numbers that tell the story in one glance: launches, bytes against the ideal, speedup, claims, device;
a training step's sections and saved bytes, the side of the ridge that dominates, and the run against its
pinned baseline.

The text comes from ``kernel_tui.text.formatting``, ``kernel_tui.text.render``, ``kernel_tui.text.roofline_text`` and
``kernel_tui.text.baseline``, the same functions the ``kernel-tui run`` tables use, so the app and the command
line never disagree. The device line before any run (the engine's status) is ``engine``, which the explorer
binds to its own, so a strip composed anew after a layout switch shows it without being told.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Group
from rich.text import Text
from textual.reactive import var
from textual.widgets import Static

from kernel_tui.model.baseline_marks import ADDED, MARK_STYLES
from kernel_tui.text.formatting import device_line, format_count, report_notes, summary_line, training_line
from kernel_tui.text.roofline_text import roofline_summary

if TYPE_CHECKING:
    from kernel_tui.model.report import ScenarioError, ScenarioReport
    from kernel_tui.text.baseline import Comparison


class SummaryStrip(Static):
    """Summary line, claims (EXPECT ✓/✗), the sweep's strategy and the device the numbers came from."""

    engine: var[str] = var("", init=False)
    """Which engine the numbers will come from (or why there is none): the last line until a report says."""

    _shown: list[tuple[object, ...]] | None = None
    """The lines shown now: the explorer shows the strip again at every stage of a run, and an update that
    changes nothing would still cost a layout pass of the whole screen."""
    _content: _Content | None = None
    """What ``show`` was last given: the engine line changes on its own and the rest is shown again with it."""

    def show(
        self,
        report: ScenarioReport | None,
        claims: dict[str, float],
        error: ScenarioError | None = None,
        placeholder: str = "",
        baseline: Comparison | None = None,
        pinned: bool = False,
    ) -> None:
        """Show a report (partial or final), or, before any run, the claims the lesson makes.

        ``placeholder`` says why there are no numbers yet (not run, measuring, cancelled); ``baseline``: the
        report against its scenario's pinned run; ``pinned``: the report is that pinned run.
        """
        self._content = _Content(report, claims, error, placeholder, baseline, pinned)
        self._show_content()

    def watch_engine(self) -> None:
        if self._content is not None:  # before the first ``show`` the strip has nothing to say yet
            self._show_content()

    def _show_content(self) -> None:
        assert self._content is not None
        lines = self._content.lines(self.engine)
        # ``Text ==`` compares the characters and spans only, not the style of the whole line.
        look: list[tuple[object, ...]] = [(line.plain, str(line.style), tuple(line.spans)) for line in lines]
        if look != self._shown:
            self._shown = look
            self.update(Group(*lines))


@dataclass(frozen=True)
class _Content:
    """One ``SummaryStrip.show``'s arguments, and the lines they make."""

    report: ScenarioReport | None
    claims: dict[str, float]
    error: ScenarioError | None
    placeholder: str
    baseline: Comparison | None
    pinned: bool

    def lines(self, engine: str) -> list[Text]:
        report, claims, error, placeholder = self.report, self.claims, self.error, self.placeholder
        baseline, pinned = self.baseline, self.pinned
        lines: list[Text] = []
        if error is not None:
            # In full here (it wraps); the status line has to cut it to one line.
            lines.append(Text(f"✗ {error.short_line()} · d details", style="bold red"))
        elif (report is None or report.eager is None) and placeholder:
            lines.append(Text(placeholder, style="dim"))
        if report is not None and report.eager is not None:
            lines.append(Text(summary_line(report)))
            if report.eager.is_training:
                lines.append(Text(training_line(report)))
            if report.ceilings is not None and report.ceilings.ridge is not None:
                # Without a ridge the line would say only "?" FLOPs: which side dominates is its point.
                lines.append(Text(roofline_summary(report)))
        if pinned:
            lines.append(Text("baseline: this run is pinned · B unpins it", style="bold"))
        elif baseline is not None:
            lines.extend(baseline_lines(baseline))
        if report is not None and report.expect:
            from kernel_tui.text.render import claims_text  # with the first report (the first frame has none)

            checks = Text("EXPECT ", style="bold")
            checks.append_text(claims_text(report))
            lines.append(checks)
        elif claims:
            declared = ", ".join(f"{key} {format_count(value)}" for key, value in claims.items())
            lines.append(Text.assemble(("EXPECT ", "bold"), (f"{declared} (not checked yet)", "dim")))
        for note in report_notes(report) if report is not None else ():
            lines.append(Text(f"⚠ {note}", style="yellow"))
        if report is not None and report.machine_load is not None and report.machine_load.busy:
            lines.append(Text(RETRY_KEYS, style="bold yellow"))
        if report is not None and report.sweep_strategy:
            lines.append(Text(f"sweep: {report.sweep_strategy}", style="dim"))
        lines.append(Text(device_line(report) if report is not None else engine, style="dim"))
        return lines


RETRY_KEYS = "r measures again (s with the sweep): a quieter moment gives numbers that agree"
"""The app's offer of a retry, under the busy machine's sentence."""


def baseline_lines(comparison: Comparison) -> list[Text]:
    """Per mode, launches and bytes against the pinned run, and the time or ``no measurable difference``."""
    # With the first comparison, after the first frame.
    from kernel_tui.text.baseline import run_differences, time_text, totals_text

    besides = run_differences(comparison)
    heading = "against the run pinned with B" + (f" ({', '.join(besides)})" if besides else "")
    lines = [Text(heading, style="bold")]
    for mode in comparison.modes:
        line = Text("  ")
        line.append(totals_text(mode), style=MARK_STYLES[ADDED] if mode.launches_grew or mode.bytes_grew else "")
        if time := time_text(mode.time):
            line.append(f" · {time}")
        lines.append(line)
    lines.extend(Text(f"  {note}", style="yellow") for note in comparison.notes)
    return lines
