"""Nothing one scenario does reaches the next: each runs in an engine no earlier scenario has touched, the next
one's started while it runs (``transport.spare_engine``). After each hostile scenario, a healthy one measures in
the same ``kernel-tui run`` (and through the explorer's engine link) exactly what it measures alone.

The hostile classes are the ones the between-scenario snapshot kept missing (``tests/data/hostile``): the
engine's own message encoder replaced; ``nn.Linear.forward``, ``nn.ReLU.forward`` and ``json.dumps`` patched and
an audit hook added; global module forward and backward hooks left registered; a dispatch mode and a function mode
left entered by an ``inputs`` that then fails.
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from support.locations import REPO

from kernel_tui.transport.protocol import Done
from kernel_tui.ui.link.engine_link import client_engine_link

HOSTILE = REPO / "tests" / "data" / "hostile"
ADD_RELU = REPO / "scenarios" / "02_add_relu.py"
LINEAR_RELU = HOSTILE / "healthy_linear_relu.py"
EACH_THEN_HEALTHY = (
    (HOSTILE / "forges_the_encoder.py", ADD_RELU),
    (HOSTILE / "patches_modules_and_json.py", LINEAR_RELU),
    (HOSTILE / "global_module_hooks.py", LINEAR_RELU),
    (HOSTILE / "modes_left_entered.py", ADD_RELU),
)


def run_json(*paths: Path) -> list[dict[str, Any]]:
    result = subprocess.run(
        [sys.executable, "-m", "kernel_tui", "run", "--device", "cpu", "--no-time", "--json", *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=1800,
        cwd=REPO,
    )
    assert result.returncode in (0, 1), result.stderr[-3000:]
    return [json.loads(line) for line in result.stdout.splitlines()]


def measured(report: dict[str, Any]) -> dict[str, Any]:
    """What a run measures that does not vary from run to run: kernels, calls, bytes, claims; and what it says."""

    def kernels(mode: dict[str, Any] | None) -> list[tuple[Any, ...]]:
        rows = (mode or {}).get("kernels", [])
        return [(row["short_name"], row["calls"], row["bytes_read"], row["bytes_written"]) for row in rows]

    return {
        "title": report["title"],
        "error": report["error"],
        "eager": kernels(report["eager"]),
        "compiled": kernels(report["compiled"]),
        "claims": {name: claim["ok"] for name, claim in report["expect"].items()},
        "notes": [note for note in report["notes"] if "copy ceiling" not in note],  # a timing remark, not state
    }


@pytest.mark.engine
def test_after_each_hostile_scenario_a_healthy_one_measures_what_it_measures_alone() -> None:
    with ThreadPoolExecutor(2) as pool:
        alone = {path: pool.submit(run_json, path) for path in (ADD_RELU, LINEAR_RELU)}
        together = run_json(*(path for pair in EACH_THEN_HEALTHY for path in pair))
        expected = {path: measured(future.result()[0]) for path, future in alone.items()}
    assert expected[ADD_RELU]["eager"] and all(expected[ADD_RELU]["claims"].values())
    assert len(together) == 2 * len(EACH_THEN_HEALTHY)
    for index, (hostile, healthy) in enumerate(EACH_THEN_HEALTHY):
        assert measured(together[2 * index + 1]) == expected[healthy], f"after {hostile.name}"
    assert together[0]["title"].startswith("FORGED RESULT"), "the forger forges its own report, and only that"
    assert together[6]["error"]["stage"] == "inputs"


@pytest.mark.engine
def test_through_the_explorers_link_a_forged_encoder_reaches_no_later_report() -> None:
    link = client_engine_link("cpu")
    reports = []
    try:
        link.start()
        for path in (HOSTILE / "forges_the_encoder.py", ADD_RELU, ADD_RELU):
            messages = list(link.run(path, sweep=False))
            reports.append(next(message.report for message in messages if isinstance(message, Done)))
    finally:
        link.close()
    healthy = [measured(report.to_dict()) for report in reports[1:]]
    assert reports[0].title.startswith("FORGED RESULT")
    assert healthy[0] == healthy[1] and not healthy[0]["title"].startswith("FORGED")
    assert [row[0] for row in healthy[0]["compiled"]] == ["cpp_fused_add_relu_0"]
