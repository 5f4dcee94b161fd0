"""What the time means in the CUDA preview, which generates a GPU's code and runs none of it: the held-out
scenarios of ``tests/data/verdicts/`` each given the cause its counts show, and nothing a time would show.

A preview has kernels, launches and bytes, and no time. So the causes read from counts hold there as on the CPU (a
graph break, a recompile, a library call kept apart, kernels fused into fewer); overhead and the memory ceiling are
read from times, and there the verdict says they are not measured: the tiny call and the memory-bound add, whose
CPU verdicts are ``overhead`` and ``memory_bound`` (``test_verdicts``), are a fusion whose worth is untold and a
``not_measured``. Six preview runs, shared by every test here.
"""

from __future__ import annotations

import io

import pytest
from conftest import measure
from held_out import HELD_OUT, SCENARIOS
from rich.console import Console

from kernel_tui.model.meaning.verdict import CAUSES, PREVIEW_NO_VARIANT, UNTIMED
from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.text.call_split import VERDICT_MARK
from kernel_tui.text.parts.variant_text import recompile_lines
from kernel_tui.text.render import scenario_view
from kernel_tui.transport.client import EngineClient

pytestmark = pytest.mark.engine

KINDS = {name: in_preview for name, (_, in_preview) in HELD_OUT.items()}
"""Each held-out scenario and the cause its preview's counts show."""
CHANGING_SLICE = SCENARIOS.parent / "changing_slice.py"
"""A recompile on a tensor's size, whose verdict names the ``dynamic`` variant (``test_variants``)."""
TIMED_CAUSES = ("overhead", "memory_bound", "no_difference", "unexplained")
"""The causes read from times, which a preview never names."""


def _text(report: ScenarioReport) -> list[str]:
    console = Console(width=400, record=True, file=io.StringIO())
    console.print(scenario_view(report, width=400))
    return [line.rstrip() for line in console.export_text().splitlines()]


@pytest.fixture(scope="module")
def previews(preview_engine: EngineClient) -> dict[str, ScenarioReport]:
    reports = {name: measure(preview_engine, SCENARIOS / f"{name}.py") for name in KINDS}
    return reports | {"changing_slice": measure(preview_engine, CHANGING_SLICE, size=4096)}


@pytest.mark.parametrize(("name", "cause"), KINDS.items())
def test_each_kind_gets_the_cause_its_counts_show(previews: dict[str, ScenarioReport], name: str, cause: str) -> None:
    report = previews[name]
    assert report.error is None and report.is_preview, report.error
    assert report.eager is not None and report.compiled is not None and report.compiled.time_us is None
    found = report.verdict
    assert found is not None and found.cause == cause and found.cause in CAUSES, (found, report.error)
    assert found.cause not in TIMED_CAUSES and "×" not in found.line  # no speedup, no share of a ceiling
    assert report.to_dict()["verdict"] == found.to_dict()
    lines = _text(report)
    first = next(line for line in lines[2:] if not line.startswith("shapes:"))
    assert first.startswith(f"{VERDICT_MARK} {found.line}"), first


def test_the_preview_verdicts_figures_are_the_reports_own(previews: dict[str, ScenarioReport]) -> None:
    broken = previews["graph_break"]
    assert broken.compiled is not None and broken.verdict is not None
    assert broken.verdict.numbers == {"graph_breaks": broken.compiled.graph_breaks} == {"graph_breaks": 1}
    assert "graph_break.py:13" in broken.verdict.line
    matmul = previews["biased_matmul"]
    assert matmul.compiled is not None and matmul.verdict is not None
    apart = [b for b in matmul.compiled.boundaries if b.kind in ("library", "template")]
    assert apart and matmul.verdict.numbers["buffer_bytes"] == apart[0].buffer_bytes
    # The variant it names runs only where something is measured: run refuses --variant with a preview.
    assert apart[0].experiment and matmul.verdict.variant == apart[0].experiment
    assert matmul.verdict.next_step.startswith(f"in a measured run ({PREVIEW_NO_VARIANT}), try the ")
    for name, fused_into in (("fused_elementwise", (8, 1)), ("tiny_call", (3, 1))):
        report = previews[name]
        assert report.eager is not None and report.compiled is not None and report.verdict is not None
        assert (report.eager.kernel_count, report.compiled.kernel_count) == fused_into
        assert report.verdict.numbers == {
            "eager_kernels": report.eager.kernel_count,
            "compiled_kernels": report.compiled.kernel_count,
            "eager_bytes": report.eager.bytes_total,
            "compiled_bytes": report.compiled.bytes_total,
        }
        assert f"fused {fused_into[0]} kernels into {fused_into[1]}" in report.verdict.line
        # Whether it is faster, or the tiny call's guards and launches outweigh its kernels, needs a time.
        assert UNTIMED in report.verdict.line and "faster, or guards and launches" in report.verdict.line
    add = previews["memory_bound_add"]
    assert add.eager is not None and add.compiled is not None and add.verdict is not None
    assert add.compiled.bytes_total == add.eager.bytes_total and add.compiled.kernel_count == add.eager.kernel_count
    assert add.verdict.numbers["compiled_bytes"] == add.compiled.bytes_total
    assert f"overhead or memory sets the time is {UNTIMED}" in add.verdict.line


def test_a_recompile_in_the_preview_keeps_its_kernels_and_names_its_guard(previews: dict[str, ScenarioReport]) -> None:
    """The second call's failed guard recompiles before the launches are recorded, as on the CPU: recorded
    during that call, the new graph's kernels went unseen (0 compiled kernels)."""
    report = previews["recompiling_shape"]
    assert report.compiled is not None and report.verdict is not None
    assert report.verdict.numbers == {"recompiles": report.compiled.recompiles} == {"recompiles": 1}
    assert report.compiled.kernel_count >= 1 and report.compiled.kernels
    lines = recompile_lines(report)
    assert lines[0].startswith("recompiles 1: the guard that failed: ") and "shorter" in lines[0], lines
    assert lines[1] == f"  the change that stops it: {report.verdict.next_step}"


def test_a_size_guards_recompile_in_the_preview_names_the_variant_a_measured_run_tries(
    previews: dict[str, ScenarioReport],
) -> None:
    report = previews["changing_slice"]
    assert report.compiled is not None and report.verdict is not None, report.error
    assert report.verdict.cause == "recompiles" and report.verdict.variant == "dynamic"
    assert "size mismatch" in report.verdict.line
    assert report.verdict.next_step.startswith(f"in a measured run ({PREVIEW_NO_VARIANT}), run the dynamic variant")
    assert recompile_lines(report)[1] == f"  the change that stops it: {report.verdict.next_step}"
