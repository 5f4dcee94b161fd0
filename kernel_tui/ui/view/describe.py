"""What the explorer says in words: the status line, one-line errors, the details text, the engine line.

Plain functions of the run state returning Rich ``Text`` (never markup: tracebacks and kernel names
contain brackets), so they can be tested without an app.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text

from kernel_tui.text.call_split import compile_lines
from kernel_tui.text.formatting import claim_line, device_text
from kernel_tui.text.parts.boundary_text import boundary_line
from kernel_tui.ui.state.run_state import RunStatus, ScenarioRun

if TYPE_CHECKING:
    from kernel_tui.model.report.report import ScenarioError, ScenarioReport
    from kernel_tui.transport.protocol import Hello


SAVED_ENGINE_LINE = "no engine: saved results, nothing is measured here"
"""``kernel-tui view``'s engine line: its link answers as an engine would, but none starts."""


def engine_line(hello: Hello | None, failed: ScenarioError | None, *, measures: bool = True) -> str:
    """Which engine the numbers will come from, before any run reports it; none where nothing ``measures``."""
    if not measures:
        return SAVED_ENGINE_LINE
    if failed is not None:
        return f"engine: could not start ({failed.message})"
    if hello is None:
        return "engine: starting…"
    where = device_text(hello.device, hello.device_name, hello.threads, hello.torch_version)
    return f"engine ready: {where}"


def failed_claims_text(failed: int) -> str:
    return f"✗ {failed} claim{'s' if failed > 1 else ''} did not hold"


def failed_claims(report: ScenarioReport | None) -> int:
    if report is None:
        return 0
    return sum(1 for check in report.expect.values() if check.failed)


def warming_text(estimate_s: float, elapsed_s: float) -> str:
    """What the engine is doing before the first run: compiling once, so that the first run need not."""
    return f"first compile of the session: about {estimate_s:.0f} s · {elapsed_s:.0f} s so far"


def warming_progress(estimate_s: float, elapsed_s: float) -> tuple[float, int]:
    """The status bar's (done, total) for the warm-up: short of full until the engine says it is done. It moves in
    the whole seconds the text counts: a bar moved at every look repaints, and its repaint asked for another look,
    about ninety a second."""
    return min(95.0, 100.0 * round(elapsed_s) / max(estimate_s, 1.0)), 100


def status_text(
    run: ScenarioRun | None,
    *,
    now: float,
    background: tuple[str, ScenarioRun] | None = None,
    engine_error: ScenarioError | None = None,
    warming: tuple[float, float] | None = None,
    editing: bool = False,
) -> Text:
    """The status line for the scenario on screen (``run``: its latest run, if any).

    ``editing``: the snippet editor has the focus, where letters are typed: the keys named are its own
    (``ctrl+r``, ``ctrl+t``, ``F1``), not ``r``, ``s``, ``d`` and ``?``.

    ``background`` is (title, run) of a run going on for another scenario, so it is never forgotten.
    ``warming`` is (estimate, elapsed) seconds of the engine's first compile, while it runs.
    """
    run_key, details, help_key = ("ctrl+r", "ctrl+t", "F1") if editing else ("r", "d", "?")
    text = Text()
    if background is not None:
        title, other = background
        text.append("● ", style="bold cyan")
        text.append(f"running {title}: {other.record.stage or 'starting'} · {other.elapsed(now):.0f} s · esc cancels")
        return text
    if run is None:
        if engine_error is not None:
            text.append(f"✗ {engine_error.short_line()} · {details} details", style="bold red")
            return text
        if warming is not None:
            text.append("◌ ", style="bold cyan")
            text.append(warming_text(*warming))
            text.append(f" · {run_key} runs this scenario", style="dim")
            return text
        sweep = "" if editing else " · s runs it with the size sweep"
        text.append(f"{run_key} runs this scenario{sweep} · {help_key} lists every key", style="dim")
        return text
    if run.status is RunStatus.RUNNING:
        text.append("● ", style="bold cyan")
        text.append(run.record.stage or "starting", style="bold")
        if run.record.detail:
            text.append(f" · {run.record.detail}")
        text.append(f" · {run.elapsed(now):.0f} s · esc cancels", style="dim")
    elif run.status is RunStatus.CANCELLED:
        text.append(f"○ cancelled: the engine was stopped · {run_key} runs it again", style="dim")
    elif run.record.error is not None:
        text.append(f"✗ {run.record.error.short_line()}", style="bold red")
        text.append(f" · {details} details", style="dim")
    else:
        failed = failed_claims(run.record.report)
        if failed:
            text.append(failed_claims_text(failed), style="bold red")
        else:
            text.append("✓ done", style="green")
        text.append(f" in {run.elapsed(now):.1f} s", style="dim")
        if not run.record.sweep and not editing:
            text.append(" · s adds the size sweep", style="dim")
        text.append(f" · {details} details", style="dim")
    return text


def saved_status_text(origin: str, run: ScenarioRun | None) -> Text:
    """``kernel-tui view``'s status line: the machine the saved numbers come from, and that r shows them."""
    text = Text()
    text.append("◆ ", style="bold cyan")
    text.append(origin, style="bold")
    failed = failed_claims(run.record.report if run is not None else None)
    if failed:
        text.append(f" · {failed_claims_text(failed)}", style="bold red")
    if run is None:
        text.append(" · r shows them · nothing is measured here", style="dim")
    else:
        text.append(" · r shows them again, nothing is measured · d details", style="dim")
    return text


def details_text(
    run: ScenarioRun | None,
    *,
    output: str = "",
    engine_error: ScenarioError | None = None,
    log_path: Path | None = None,
) -> Text:
    """Everything behind the one-liners: the error and its traceback, graph breaks, recompiles, full
    kernel names, the sweep's strategy and what the scenario printed."""
    text = Text()

    def section(title: str) -> None:
        if text:
            text.append("\n\n")
        text.append(title, style="bold underline")
        text.append("\n")

    error = run.record.error if run is not None else engine_error
    if error is not None:
        section("Error")
        text.append(error.short_line(), style="bold red")
        if error.details.strip():
            text.append("\n\n")
            text.append(error.details.rstrip())
    report = run.record.report if run is not None else None
    if report is not None and report.expect:
        # The status line says how many failed; which ones, and what was measured, were nowhere (lesson 28 at
        # another size: "✗ 2 claims did not hold … d details", and d listed no claim).
        section("Claims")
        text.append("\n".join(claim_line(key, check) for key, check in report.expect.items()))
    if report is not None and report.notes:
        section("Notes")
        text.append("\n".join(report.notes))
    if report is not None:
        compiled = report.compiled
        if compiled is not None and compiled.graph_break_reasons:
            section(f"Graph breaks ({compiled.graph_breaks})")
            text.append("\n".join(compiled.graph_break_reasons))
        if compiled is not None and compiled.boundaries:
            section(f"Why kernels stayed apart ({len(compiled.boundaries)})")
            text.append("\n".join(boundary_line(boundary, inductor=True) for boundary in compiled.boundaries))
        if compiled is not None and compiled.recompile_reasons:
            section(f"Recompiles ({compiled.recompiles})")
            text.append("\n".join(compiled.recompile_reasons))
        if split := compile_lines(report):
            section("Compile time by stage")
            text.append("\n".join(split))
        if report.sweep_strategy:
            section("Sweep")
            text.append(report.sweep_strategy)
        for label, mode in (("Eager kernels", report.eager), ("Compiled kernels", report.compiled)):
            if mode is not None and mode.kernels:
                section(label)
                text.append("\n".join(_kernel_line(kernel) for kernel in mode.kernels))
    if output.strip():
        section("Engine stderr: what scenarios printed, latest lines")
        if log_path is not None:
            text.append(f"(all of it: {log_path})\n", style="dim")
        text.append(collapse_repeats(output.rstrip()))
    if not text:
        text.append("Nothing to show yet: run the scenario first (r).", style="dim")
    return text


def collapse_repeats(output: str) -> str:
    """Runs of the same line as one line with a count: a print in ``fn`` repeats on every call."""
    lines: list[str] = []
    previous, count = None, 0
    for line in [*output.splitlines(), None]:
        if line == previous:
            count += 1
            continue
        if previous is not None:
            lines.append(previous if count == 1 else f"{previous}  (×{count})")
        previous, count = line, 1
    return "\n".join(lines)


def _kernel_line(kernel: Any) -> str:
    launched = f" ← {kernel.op}" if kernel.op else ""
    return f"{kernel.name}  [{kernel.kind}{launched}]"
