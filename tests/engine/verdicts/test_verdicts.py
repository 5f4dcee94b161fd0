"""What the time means: each verdict of ``model/meaning/verdict.CAUSES`` on a held-out scenario of its kind, measured
by the real engine on the CPU (``tests/data/verdicts/``), with its figures the report's own; the verdict first in
``kernel-tui run``'s text, in the explorer's summary and in the JSON; and the figures that cannot both be true.

Six engine runs in all, shared by every test here (one module fixture). The causes are chosen so that a busy
machine does not move them: a structure (a break, a recompile, a library call kept apart, bytes eager and compiled
both move) or a share that holds by orders of magnitude (a sub-microsecond kernel in tens of microseconds of
wrapper, eight kernels fused into one at 2^22 elements).
"""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from conftest import measure
from held_out import HELD_OUT, SCENARIOS
from rich.console import Console

from kernel_tui.model.meaning.verdict import CAUSES
from kernel_tui.model.report.boundary import experiment_flag
from kernel_tui.model.report.mode_result import ModeResult
from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.text.call_split import CONTRADICTION_MARK, VERDICT_MARK
from kernel_tui.text.render import scenario_view
from kernel_tui.transport.client import EngineClient
from kernel_tui.ui.view.shown import SummaryShown
from kernel_tui.ui.view.summary_lines import summary_lines

pytestmark = pytest.mark.engine

KINDS = {name: on_cpu for name, (on_cpu, _) in HELD_OUT.items()}
"""Each held-out scenario and the cause it must be given."""


@pytest.fixture(scope="module")
def reports(engine: EngineClient) -> dict[str, ScenarioReport]:
    # Timed: the speedup and its interval are what the fused verdict quotes.
    return {name: measure(engine, SCENARIOS / f"{name}.py", timed=True) for name in KINDS}


def _compiled(report: ScenarioReport) -> ModeResult:
    assert report.compiled is not None, report.error
    return report.compiled


@pytest.mark.parametrize(("name", "cause"), KINDS.items())
def test_each_kind_of_scenario_gets_its_verdict(reports: dict[str, ScenarioReport], name: str, cause: str) -> None:
    report = reports[name]
    found = report.verdict
    assert found is not None and found.cause == cause, (found, report.error)
    assert found.cause in CAUSES and found.line and found.next_step
    data = report.to_dict()["verdict"]
    assert data == {
        "cause": cause,
        "line": found.line,
        "numbers": found.numbers,
        "next_step": found.next_step,
        "variant": found.variant,
    }


def test_the_verdicts_figures_are_the_reports_own(reports: dict[str, ScenarioReport]) -> None:
    split = _compiled(reports["tiny_call"]).call_breakdown
    assert split is not None
    tiny = reports["tiny_call"].verdict
    assert tiny is not None
    assert tiny.numbers == {"overhead_us": split.overhead_us, "kernels_us": split.kernels_us, "call_us": split.call_us}
    assert split.overhead_us > 10 * split.kernels_us
    breaks = reports["graph_break"].verdict
    assert breaks is not None and breaks.numbers == {"graph_breaks": _compiled(reports["graph_break"]).graph_breaks}
    assert breaks.numbers["graph_breaks"] >= 1 and "graph_break.py:13" in breaks.line
    again = reports["recompiling_shape"].verdict
    assert again is not None and again.numbers == {"recompiles": _compiled(reports["recompiling_shape"]).recompiles}
    assert again.numbers["recompiles"] >= 1
    # Its guard is on a Python flag, not a size: no variant is suggested, since dynamic=True would not spare it.
    assert again.variant is None and "--variant" not in again.next_step
    matmul = reports["biased_matmul"]
    apart = [b for b in _compiled(matmul).boundaries if b.kind in ("library", "template")]
    library = matmul.verdict
    assert library is not None and apart and library.numbers["buffer_bytes"] == apart[0].buffer_bytes
    assert f"{apart[0].producer} → {apart[0].consumer}" in library.line
    if apart[0].experiment:  # the flag it quotes is one kernel-tui run accepts (it once quoted a bare name)
        assert library.variant == apart[0].experiment
        assert f"--variant {experiment_flag(apart[0].experiment)}" in library.next_step
    add = reports["memory_bound_add"]
    assert add.compiled is not None and add.eager is not None
    main = max(add.compiled.kernels, key=lambda kernel: kernel.time_us or 0.0)
    bound = add.verdict
    assert bound is not None and bound.numbers == {"ceiling_pct": main.ceiling_pct, "bytes": add.compiled.bytes_total}
    assert f"{main.ceiling_pct:.0f}% of the copy ceiling" in bound.line
    chain = reports["fused_elementwise"]
    assert chain.speedup_range is not None and chain.eager is not None and chain.compiled is not None
    fused = chain.verdict
    assert fused is not None
    assert fused.numbers == {
        "speedup": chain.speedup,
        "speedup_low": chain.speedup_range[0],
        "speedup_high": chain.speedup_range[1],
        "eager_kernels": chain.eager.kernel_count,
        "compiled_kernels": chain.compiled.kernel_count,
    }
    assert chain.speedup_range[0] > 1 and "fused 8 kernels into 1" in fused.line


def test_a_speedup_is_said_only_when_its_interval_excludes_one(reports: dict[str, ScenarioReport]) -> None:
    """The fused chain's own measurement, its interval moved to hold 1: no difference within the noise, and no
    speedup stated."""
    chain = reports["fused_elementwise"]
    within = replace(chain, speedup_range=(0.9, 1.3), speedup_median=1.1)
    found = within.verdict
    assert found is not None and found.cause == "no_difference"
    assert found.numbers == {"speedup_low": 0.9, "speedup_high": 1.3}
    assert "faster" not in found.line and "no difference within the noise" in found.line


def _text(report: ScenarioReport) -> list[str]:
    console = Console(width=400, record=True, file=io.StringIO())
    console.print(scenario_view(report, width=400))
    return [line.rstrip() for line in console.export_text().splitlines()]


def test_the_verdict_is_the_first_line_of_the_text_and_the_explorers_summary(
    reports: dict[str, ScenarioReport],
) -> None:
    for name, report in reports.items():
        found = report.verdict
        assert found is not None
        lines = _text(report)
        title, _where, *rest = lines
        first = next(line for line in rest if not line.startswith("shapes:"))
        assert title == report.title and first.startswith(f"{VERDICT_MARK} {found.line}"), (name, first)
        shown = SummaryShown(report, {}, None, "", None, False, "engine")
        assert summary_lines(shown)[0].plain.startswith(f"{VERDICT_MARK} {found.line}"), name


def test_figures_that_cannot_both_be_true_are_marked(reports: dict[str, ScenarioReport]) -> None:
    """The tiny call's compiled side, its timed call set to 10× its profiled one, and its kernels to more than
    the timed call: both marked, in the JSON and in the text."""
    report = reports["tiny_call"]
    assert report.compiled is not None and report.compiled.call_breakdown is not None
    profiled_us = report.compiled.call_breakdown.call_us
    slow = replace(report, compiled=replace(report.compiled, time_us=10 * profiled_us))
    marked = slow.to_dict()["contradictions"]
    assert any("compiled: the timed call took" in text and "10×" in text for text in marked), marked
    kernel = report.compiled.kernels[0]
    heavy = replace(kernel, time_us=(report.compiled.time_us or 0) * 3 + 1)
    summed = replace(report, compiled=replace(report.compiled, kernels=(heavy, *report.compiled.kernels[1:])))
    marked = summed.to_dict()["contradictions"]
    assert any(text.startswith("compiled: its kernels add up to") for text in marked), marked
    # Said once in the text: by the engine's own "noisy" note where it wrote one, else under the verdict.
    said = [line for line in _text(summed) if "compiled: its kernels add up to" in line or "compiled: noisy:" in line]
    assert len(said) == 1, said
    assert any(line.startswith(f"{CONTRADICTION_MARK} compiled: the timed call") for line in _text(slow))
    quiet = [text for text in report.contradictions if text.startswith("compiled: the timed call")]
    assert not quiet, "the measured report itself has no such pair"
