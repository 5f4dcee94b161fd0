"""What the panes say about a scenario's run while it has no numbers to show (yet, or any more).

Plain wording from a ``ScenarioRun`` (or None: never run); nothing here touches Textual.
"""

from __future__ import annotations

from kernel_tui.ui.state.run_state import RunStatus, ScenarioRun


def waiting_notes(run: ScenarioRun | None) -> tuple[str, str]:
    """What the eager and the compiled table say while they have no kernels."""
    if run is None:
        return "not run yet", "not run yet"
    if run.status is not RunStatus.RUNNING:
        return "not measured", "not measured"
    if run.record.stage in ("", "load", "inputs", "eager"):
        return "measuring…", "waiting for eager"
    return "", "compiling…"


def placeholder(run: ScenarioRun | None, *, measures: bool = True) -> str:
    """The summary's line while there is no report; ``measures`` False: saved results (``kernel-tui view``)."""
    if run is None:
        if not measures:
            return "Saved results: r shows them (nothing is measured here)."
        return "Not measured yet: r runs the scenario, s runs it with the size sweep."
    if run.status is RunStatus.RUNNING:
        return "Measuring: the tables fill in as the engine reports (eager first, then compiled)."
    if run.status is RunStatus.CANCELLED:
        return "Cancelled before the numbers came in: r runs it again."
    return ""


def chart_hint(run: ScenarioRun | None, *, measures: bool = True) -> str:
    """The chart's text while it has no points; ``measures`` False: saved results, where nothing can run."""
    if not measures:
        if run is None:
            return "r shows the saved results, and their size sweep if they have one."
        return "These saved results have no size sweep ('kernel-tui run' saves one without --no-sweep or --no-time)."
    if run is not None and run.record.sweep and run.running:
        return "The sweep starts once the kernel tables are in; its points appear here as they are measured."
    return (
        "Not swept yet. s runs the scenario with the size sweep: the time of one call, eager and "
        "compiled, from small arrays to large ones, drawn here on log-log axes."
    )
