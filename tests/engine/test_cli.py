"""``kernel-tui run`` and ``kernel-tui list`` as a script would use them: JSON contract and exit statuses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from support.cli_support import kernel_tui
from support.locations import DATA

from kernel_tui.commands.cli import main
from kernel_tui.model.settings import SECONDS

if TYPE_CHECKING:
    from conftest import WriteScenario

KERNEL_FIELDS = {"name", "short_name", "calls", "time_us", "bytes_read", "bytes_written"}


@pytest.mark.engine
def test_json_contract_and_nothing_but_json_on_stdout() -> None:
    result = kernel_tui(
        "run", str(DATA / "add_relu.py"), str(DATA / "chatty.py"), "--device", "cpu", "--no-sweep", "--json"
    )
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.splitlines()
    assert len(lines) == 2
    first, chatty = (json.loads(line) for line in lines)
    for key in (
        "scenario",
        "title",
        "device",
        "device_name",
        "torch_version",
        "size",
        "eager",
        "compiled",
        "ideal_bytes",
        "sweep",
        "expect",
        "error",
    ):
        assert key in first
    assert first["scenario"] == str((DATA / "add_relu.py").resolve())
    assert first["title"] == "Add, then ReLU" and first["device"] == "cpu" and first["size"] == 2**20
    for mode in ("eager", "compiled"):
        assert {"kernel_count", "kernels", "bytes_total", "time_us"} <= set(first[mode])
        assert all(KERNEL_FIELDS <= set(kernel) for kernel in first[mode]["kernels"])
    assert {"compile_s", "graph_breaks", "recompiles"} <= set(first["compiled"])
    for mode in ("eager", "compiled"):
        assert {"flops", "intensity"} <= set(first[mode])
        assert all({"flops", "intensity", "gflops", "bound"} <= set(kernel) for kernel in first[mode]["kernels"])
        assert first[mode]["flops"] == 2 * 2**20  # an add and a ReLU: one operation per element each
    assert {"bandwidth_gbs", "matmul_gflops"} <= set(first["ceilings"]) and first["ceilings"]["matmul_gflops"] > 0
    assert first["sweep"] == [] and first["error"] is None
    # The hotspot of a scenario with no nn.Module: kernels only, each a share of its mode's kernel time.
    eager_hot, compiled_hot = first["hotspots"]
    assert (eager_hot["mode"], eager_hot["measure"], eager_hot["modules"]) == ("eager", "time", [])
    assert {kernel["name"] for kernel in eager_hot["kernels"]} == {"aten::add", "aten::relu"}
    assert sum(kernel["share"] for kernel in eager_hot["kernels"]) == pytest.approx(1)
    assert [(kernel["name"], kernel["share"]) for kernel in compiled_hot["kernels"]] == [("cpp_fused_add_relu_0", 1)]
    assert first["expect"]["eager"] == {"claimed": 2, "measured": 2, "ok": True, "reason": None}
    assert {"load_avg", "cores", "steal_pct", "disagreement"} <= set(first["machine_load"])
    low, high = first["speedup_range"]
    assert low <= first["speedup"] <= high and isinstance(first["speedup_too_noisy"], bool)
    # What the scenario printed went to stderr, and its fake protocol line did not fool anyone.
    assert chatty["error"] is None and chatty["eager"]["kernel_count"] == 2
    assert "inside fn {not json" in result.stderr and "loading chatty" in result.stderr
    # The scenario's text travels in its report (``source``, for ``kernel-tui view``); what it printed does not.
    assert first["source"] == (DATA / "add_relu.py").read_text()
    printed_elsewhere = result.stdout
    for report in (first, chatty):
        printed_elsewhere = printed_elsewhere.replace(json.dumps(report["source"]), "")
    assert "inside fn" not in printed_elsewhere


@pytest.mark.engine
def test_tables_by_default() -> None:
    result = kernel_tui("run", str(DATA / "add_relu.py"), "--device", "cpu", "--no-sweep")
    assert result.returncode == 0, result.stderr[-2000:]
    for text in (
        "Eager",
        "Compiled",
        "aten::add",
        "cpp_fused_add_relu_0",
        "launches 2 → 1",
        "(5.0×)",
        "(3.0×)",
        "FLOP/B",
        "memory-bound",
        "ridge",
    ):
        assert text in result.stdout
    assert "hotspot" not in result.stdout  # two kernels: the tables show them whole at a glance


@pytest.mark.engine
def test_exit_status_is_1_when_a_claim_fails_or_a_scenario_errors(tmp_path: Path) -> None:
    # Untimed (--no-time), as a CI check of counts would run: the claims are checked all the same.
    wrong = kernel_tui("run", str(DATA / "add_relu_wrong_claim.py"), "--device", "cpu", "--no-time", "--json")
    assert wrong.returncode == 1
    untimed = json.loads(wrong.stdout)
    assert untimed["expect"]["compiled"]["ok"] is False and untimed["expect"]["eager"]["ok"] is True
    assert untimed["compiled"]["time_us"] is None and untimed["speedup"] is None and untimed["sweep"] == []
    assert untimed["compiled"]["kernels"][0]["time_us"] > 0 and any("--no-time" in n for n in untimed["notes"])
    broken = tmp_path / "broken.py"
    broken.write_text("def fn(:\n")
    failed = kernel_tui("run", str(broken), "--device", "cpu", "--json")
    assert failed.returncode == 1
    assert json.loads(failed.stdout)["error"]["stage"] == "load"


@pytest.mark.engine
def test_sort_orders_the_tables_by_bytes(write_scenario: WriteScenario) -> None:
    """Eager runs sum, add, relu; by bytes add (reads a, the sum, writes the result) and relu come before the sum,
    which writes one number. Untimed: bytes do not swing from run to run."""
    path = write_scenario(
        "import torch\n\n\ndef fn(a, b):\n    return (b + a.sum()).relu()\n\n\n"
        "def inputs(size, device):\n    return torch.randn(size, device=device), torch.randn(size, device=device)\n"
    )
    result = kernel_tui("run", str(path), "--device", "cpu", "--no-sweep", "--no-time", "--sort", "bytes")
    assert result.returncode == 0, result.stderr[-2000:]
    eager = result.stdout.split("Eager", 1)[1]
    assert "bytes ▼" in eager
    rows = [name for name in ("aten::add", "aten::relu", "aten::sum") if name in eager]
    assert sorted(rows, key=eager.index) == ["aten::add", "aten::relu", "aten::sum"]


def test_sorts_are_the_figures_the_tables_sort_by() -> None:
    from kernel_tui.commands.arguments import SORTS
    from kernel_tui.text.kernel_order import FIGURES

    assert SORTS == tuple(FIGURES)


def test_exit_status_is_2_for_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    for args in (
        ["run"],
        ["run", str(DATA / "add_relu.py"), "--sort", "size"],
        ["run", "no/such/file.py"],
        ["run", str(DATA / "add_relu.py"), "--sizes", "x"],
        ["run", str(DATA / "add_relu.py"), "--device", "tpu"],
        ["run", str(DATA / "add_relu.py"), "--no-time", "--sizes", "1024,4096"],
    ):
        code: int | str | None
        try:
            code = main(args)
        except SystemExit as exit_:
            code = exit_.code
        assert code == 2, args
    assert "--sizes are the sweep's sizes, and --no-time runs no sweep" in capsys.readouterr().err


def test_list_reads_titles_and_claims_without_running_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # a title folded over two lines of a narrow table would not be found
    marker = tmp_path / "ran"
    scenario = tmp_path / "side_effect.py"
    scenario.write_text(
        f'"""Touches a file if executed\n\nIt must not be."""\nopen({str(marker)!r}, "w").close()\n'
        'EXPECT = {"eager": 3}\n'
        "def fn(a):\n    return a\n"
        "def inputs(size, device):\n    return ()\n"
    )
    assert main(["list", str(tmp_path), str(DATA / "add_relu.py")]) == 0
    out = capsys.readouterr().out
    assert "Touches a file if executed" in out and "eager 3" in out and "Add, then ReLU" in out
    assert not marker.exists()


@pytest.mark.engine
def test_a_sweep_says_its_recompiles_in_the_report_not_in_torch_logs_on_stderr() -> None:
    result = kernel_tui("run", str(DATA / "add_relu.py"), "--device", "cpu", "--size", "4096", "--sizes", "1024,4096")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "1 recompile(s)" in result.stdout, "the sweep's recompile is counted from dynamo's log"
    assert "__recompiles" not in result.stderr and "Recompiling function" not in result.stderr


# Settings read from the environment: a value a setting cannot take is one line naming the variable, said by the
# command at its start; an engine that meets one anyway keeps the default rather than exiting at its import.


@pytest.mark.engine
@pytest.mark.parametrize("name", sorted(SECONDS))
@pytest.mark.parametrize("value", ["abc", "-1", "nan", "inf"])
def test_a_setting_that_is_no_number_of_seconds_is_one_line_naming_it(
    name: str, value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(name, value)
    result = kernel_tui("list", "scenarios/", timeout=120)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and name in result.stderr and "Traceback" not in result.stderr
    assert result.stdout == ""


@pytest.mark.engine
def test_engines_run_with_openmp_threads_that_sleep_while_they_wait(
    write_scenario: WriteScenario, tmp_path: Path, own_fork_servers: None
) -> None:
    """On a busy machine a spinning OpenMP thread holds the core its partner waits for (CPU times 45x off): every
    engine's torch loads with ``OMP_WAIT_POLICY=PASSIVE`` unless the user set it, and a user's setting wins."""
    seen = tmp_path / "policy.txt"
    path = write_scenario(
        "import os\nimport torch\nCOMPILE = {'backend': 'eager'}\ndef fn(a):\n    return a + 1\n"
        f"def inputs(size, device):\n    open({str(seen)!r}, 'w').write(os.environ.get('OMP_WAIT_POLICY', 'unset'))\n"
        "    return (torch.ones(size),)\n"
    )
    unset = {name: value for name, value in os.environ.items() if name != "OMP_WAIT_POLICY"}
    for env, policy in ((unset, "PASSIVE"), ({**unset, "OMP_WAIT_POLICY": "ACTIVE"}, "ACTIVE")):
        command = [sys.executable, "-m", "kernel_tui", "run", "--device", "cpu", "--no-sweep", "--no-time", str(path)]
        result = subprocess.run(
            command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600, check=False
        )
        assert result.returncode == 0, result.stderr[-2000:]
        assert seen.read_text() == policy


@pytest.mark.engine
def test_an_engine_that_meets_a_bad_sweep_budget_keeps_the_default() -> None:
    """``KERNEL_TUI_SWEEP_BUDGET_S=abc`` made every engine exit 1 as it imported the sweep."""
    env = {**os.environ, "KERNEL_TUI_SWEEP_BUDGET_S": "abc"}
    probe = "from kernel_tui.engine.stages import sweep; print(sweep.sweep_budget_s())"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    assert float(result.stdout) == SECONDS["KERNEL_TUI_SWEEP_BUDGET_S"]


@pytest.mark.engine
@pytest.mark.parametrize("columns", ["0", "5", "abc"])
def test_a_columns_that_is_no_width_still_prints_the_table(columns: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``COLUMNS=0 kernel-tui list`` printed nothing and exited 0."""
    monkeypatch.setenv("COLUMNS", columns)
    result = kernel_tui("list", "scenarios/", timeout=120)
    assert result.returncode == 0, result.stderr
    assert "title" in result.stdout and "01_" in result.stdout.replace("\n", "")


@pytest.mark.engine
@pytest.mark.parametrize("command", [(), ("run",)], ids=["explorer", "run"])
def test_saved_results_named_as_a_scenario_point_to_view(command: tuple[str, ...], tmp_path: Path) -> None:
    """``kernel-tui results.jsonl`` ran the results file as Python: "inputs() must return a tuple of tensors"."""
    saved = tmp_path / "results.jsonl"
    saved.write_text("{}\n")
    result = kernel_tui(*command, str(saved), timeout=120)
    assert result.returncode == 2
    assert f"kernel-tui view {saved}" in result.stderr and "Traceback" not in result.stderr
