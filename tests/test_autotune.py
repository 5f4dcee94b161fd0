"""A max-autotune variant shows what Inductor tuned: each operation's candidates with their times as Inductor's
own benchmark gave them, the winner, "% of best" and what the winner gave up, in the JSON, in ``kernel-tui run``'s
text and under the explorer's variants pane. On this CPU the candidates of a float32 bmm are ATen's call and
Inductor's C++ template; one engine run serves every assertion."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import kernel_tui
from rich.console import Console

from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.text.autotune_text import CPU_AND_GPU
from kernel_tui.text.render import scenario_view
from kernel_tui.ui.widgets.variants_table import variant_notes

BMM_RELU = Path(__file__).parent / "data" / "batched_matmul_relu.py"


@pytest.fixture(scope="module")
def tuned() -> dict[str, Any]:
    result = kernel_tui("run", str(BMM_RELU), "--device", "cpu", "--no-sweep", "--json", "--size", "64")
    assert result.returncode == 0 and result.stdout.strip(), result.stderr[-2000:]
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_the_json_holds_each_tuned_operation_with_its_candidates_and_winner(tuned: dict[str, Any]) -> None:
    variant = tuned["variants"]["autotune"]
    assert variant["error"] is None
    (operation,) = variant["autotune"]
    assert operation["operation"] == "bmm" and operation["shapes"] == [[4, 64, 64], [4, 64, 64]]
    kinds = {choice["kind"] for choice in operation["choices"]}
    assert kinds == {"library", "template"}  # ATen's bmm against the C++ template
    assert "bmm" in [choice["name"] for choice in operation["choices"] if choice["kind"] == "library"]
    times = [choice["time_ms"] for choice in operation["choices"]]
    assert all(time > 0 for time in times) and times == sorted(times)  # fastest first
    first = operation["choices"][0]
    assert operation["winner"] == first["name"] and first["percent_of_best"] == pytest.approx(100.0)
    for choice in operation["choices"][1:]:
        assert choice["percent_of_best"] == pytest.approx(100.0 * first["time_ms"] / choice["time_ms"])
    if first["kind"] == "library":
        assert "no epilogue fuses into it" in operation["gave_up"]
    else:
        assert operation["gave_up"].startswith("nothing: a template can take the epilogue")
    # The default column tunes nothing and says nothing of it: only a variant that asks for tuning is watched.
    assert "autotune" not in tuned["compiled"]


def test_the_text_and_the_explorer_say_the_candidates_and_the_winner(tuned: dict[str, Any]) -> None:
    report = ScenarioReport.from_dict(tuned)
    operation = report.variants["autotune"].autotune[0]
    assert operation.winner is not None
    console = Console(file=io.StringIO(), width=400, color_system=None)
    console.print(scenario_view(report, 400))
    printed = console.file.getvalue()  # type: ignore[attr-defined]
    assert f"autotune: autotuned bmm(4×64×64, 4×64×64): 2 candidates, chose {operation.winner.name}" in printed
    assert "100.0% of best" in printed and "gave up:" in printed and CPU_AND_GPU in printed
    notes = "\n".join(line.plain for line in variant_notes(report, ["autotune"]))
    assert f"chose {operation.winner.name}" in notes and "% of best" in notes and CPU_AND_GPU in notes
