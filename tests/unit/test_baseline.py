"""A run against its pinned baseline: the kernel diff, the totals' deltas, the time verdict, and
``kernel-tui run --baseline`` with its exit statuses (1 when anything grew, 2 for a file it cannot use)."""

from __future__ import annotations

import io
import json
import subprocess
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from support.cli_support import kernel_tui
from support.locations import DATA

from kernel_tui.commands.cli import main
from kernel_tui.commands.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from kernel_tui.model.compare.baseline_marks import ADDED, CHANGED, REMOVED, SAME
from kernel_tui.model.names.names import short_name
from kernel_tui.model.report.kernel import Kernel
from kernel_tui.model.report.mode_result import ModeResult
from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.storage.results_file import read_results
from kernel_tui.text.baseline import (
    NO_MEASURABLE_DIFFERENCE,
    BaselineComparison,
    TimeChange,
    baseline_of,
    compare,
    kernel_cells,
    time_text,
    totals_text,
)
from kernel_tui.text.render import baseline_view

ORIGINAL = DATA / "add_relu.py"
VARIANT = DATA / "add_relu_then_scale.py"
"""add_relu.py with a multiplication after a graph break: one more kernel eager and compiled."""
MiB = 2**20
ARRAY = 4 * MiB
"""Bytes of one float32 array of add_relu's default 2**20 elements."""


@pytest.fixture(scope="module")
def original_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``kernel-tui run add_relu.py --json``, kept as the baseline file."""
    result = kernel_tui("run", str(ORIGINAL), "--device", "cpu", "--no-sweep", "--json")
    assert result.returncode == EXIT_OK, result.stderr[-2000:]
    target = tmp_path_factory.mktemp("baseline") / "add_relu.jsonl"
    target.write_text(result.stdout)
    return target


@pytest.fixture(scope="module")
def variant_run(original_run: Path) -> subprocess.CompletedProcess[str]:
    """The variant run against the original's file: the one scenario run and the file's one report pair up."""
    return kernel_tui("run", str(VARIANT), "--device", "cpu", "--no-sweep", "--json", "--baseline", str(original_run))


@pytest.fixture(scope="module")
def original(original_run: Path) -> ScenarioReport:
    (report,) = read_results(original_run)
    return report


@pytest.fixture(scope="module")
def variant(variant_run: subprocess.CompletedProcess[str]) -> ScenarioReport:
    return ScenarioReport.from_dict(json.loads(variant_run.stdout))


def statuses(comparison: BaselineComparison, mode: str) -> dict[str, str]:
    found = comparison.mode(mode)
    assert found is not None
    return {kernel.name: kernel.status for kernel in found.kernels}


# -- real runs ------------------------------------------------------------------------------------------------


def test_an_added_op_is_an_added_kernel_in_each_mode_and_the_totals_grow(
    original: ScenarioReport, variant: ScenarioReport
) -> None:
    comparison = compare(original, variant)
    assert statuses(comparison, "eager") == {"aten::add": SAME, "aten::relu": SAME, "aten::mul": ADDED}
    # The mul's graph has another graph counter (graph_N_) than add_relu's: the names still match.
    assert statuses(comparison, "compiled") == {"cpp_fused_add_relu_0": SAME, "cpp_fused_mul_0": ADDED}
    compiled = comparison.mode("compiled")
    assert compiled is not None
    assert (compiled.old_launches, compiled.new_launches, compiled.launches_delta) == (1, 2, 1)
    assert compiled.bytes_delta == 2 * ARRAY  # the mul reads the relu's result and writes its own
    (mul,) = compiled.differences
    assert (mul.new_calls, mul.bytes_delta) == (1, 2 * ARRAY)
    assert mul.time.new_us is not None and mul.time.new_us > 0
    assert comparison.grew
    assert "compiled launches 1 → 2" in comparison.growth()
    assert "compiled bytes 12.0 MiB → 20.0 MiB" in comparison.growth()


def test_the_same_run_against_itself_is_unchanged_and_its_time_no_measurable_difference(
    original: ScenarioReport,
) -> None:
    comparison = compare(original, original)
    assert not comparison.grew
    for mode in comparison.modes:
        assert mode.differences == ()
        assert (mode.launches_delta, mode.bytes_delta) == (0, 0)
        assert mode.time.measurable is False
        assert time_text(mode.time).endswith(NO_MEASURABLE_DIFFERENCE)


def test_the_cli_exits_1_when_a_launch_count_grew_and_says_which(
    variant_run: subprocess.CompletedProcess[str], variant: ScenarioReport
) -> None:
    assert variant_run.returncode == EXIT_FAILED, variant_run.stderr[-2000:]
    assert variant.ok  # the scenario itself is fine: the exit status is the baseline's
    data = json.loads(variant_run.stdout)
    assert data["baseline"]["grew"] is True
    assert data["baseline"]["baseline_scenario"] == str(ORIGINAL.resolve())
    compiled = next(mode for mode in data["baseline"]["modes"] if mode["mode"] == "compiled")
    assert (compiled["launches_delta"], compiled["bytes_delta"]) == (1, 2 * ARRAY)
    grew = [line for line in variant_run.stderr.splitlines() if "grew against" in line]
    assert len(grew) == 1
    assert "add_relu_then_scale.py: " in grew[0] and "compiled launches 1 → 2" in grew[0]


@pytest.mark.engine
def test_the_cli_exits_0_and_prints_the_comparison_when_nothing_grew(
    variant_run: subprocess.CompletedProcess[str], tmp_path: Path
) -> None:
    # The variant's report as the baseline of the original: every difference is a kernel removed.
    baseline = tmp_path / "variant.jsonl"
    baseline.write_text(variant_run.stdout)
    result = kernel_tui("run", str(ORIGINAL), "--device", "cpu", "--no-sweep", "--baseline", str(baseline))
    assert result.returncode == EXIT_OK, result.stderr[-2000:]
    out = result.stdout
    assert out.index("launches 2 → 1") < out.index("Against the baseline: add_relu_then_scale.py in")
    assert "compiled: 2 → 1 launches (-1), 20.0 MiB → 12.0 MiB (-8.0 MiB)" in out
    assert "-  cpp_fused_mul_0" in out and "-  aten::mul" in out
    assert "no launch count, byte total or peak memory grew" in out
    assert "grew against" not in result.stderr


# -- a bad baseline file -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (None, "cannot read it"),
        ("", "holds no report"),
        ('{"scenario": "x.py"\n', "line 1 is not JSON"),
        ("[1, 2]", "not a kernel-tui report"),
        ('{"title": "no scenario"}\n', "not a kernel-tui report"),
        (
            '{"scenario": "x.py", "title": "t", "device": "cpu", "device_name": "", "torch_version": "", "size": 4,'
            ' "eager": {"kernel_count": "two", "kernels": [], "bytes_total": null, "time_us": null}}',
            "not a number",
        ),
        (b"\xff\xfe not text", "cannot read it"),
    ],
    ids=["missing", "empty", "not-json", "not-objects", "missing-fields", "wrong-type", "not-utf8"],
)
def test_a_file_that_is_no_baseline_is_one_line_naming_it_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | bytes | None, says: str
) -> None:
    path = tmp_path / "old.jsonl"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    code = main(["run", str(ORIGINAL), "--baseline", str(path)])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE
    assert err.count("\n") == 1 and str(path) in err and says in err, err
    assert "Traceback" not in err


def test_a_pretty_printed_report_and_several_lines_are_both_read(original: ScenarioReport, tmp_path: Path) -> None:
    pretty = tmp_path / "one.json"
    pretty.write_text(json.dumps(original.to_dict(), indent=2))
    assert read_results(pretty) == (original,)
    lines = tmp_path / "two.jsonl"
    lines.write_text("\n".join(json.dumps(report.to_dict()) for report in (original, original)) + "\n\n")
    assert read_results(lines) == (original, original)


# -- hand-made reports: matching -------------------------------------------------------------------------


def kernel(
    name: str, calls: float = 1, moved: int | None = ARRAY, time_us: float | None = 100.0, op: str | None = None
) -> Kernel:
    return Kernel(
        name=name,
        short_name=short_name(name),
        calls=calls,
        time_us=time_us,
        bytes_read=moved,
        bytes_written=None if moved is None else 0,
        op=op,
    )


def mode(kernels: Sequence[Kernel], time_us: float | None = 1000.0, iqr_us: float | None = 50.0) -> ModeResult:
    moved = [k.bytes_total for k in kernels]
    return ModeResult(
        kernel_count=sum(k.calls for k in kernels),
        kernels=tuple(kernels),
        bytes_total=None if None in moved else sum(m for m in moved if m is not None),
        time_us=time_us,
        time_iqr_us=iqr_us,
    )


def report(
    compiled: Sequence[Kernel], eager: Sequence[Kernel] = (), scenario: str = "/a/add.py", **options: Any
) -> ScenarioReport:
    return ScenarioReport(
        scenario=scenario,
        title="t",
        device="cpu",
        device_name="",
        torch_version="",
        size=2**20,
        eager=mode(eager or [kernel("aten::add")]),
        compiled=mode(compiled),
        **options,
    )


def compiled_statuses(old: Sequence[Kernel], new: Sequence[Kernel]) -> list[tuple[str, str]]:
    found = compare(report(old), report(new)).mode("compiled")
    assert found is not None
    return [(change.name, change.status) for change in found.kernels]


def test_inductor_renumbering_a_kernel_is_no_change() -> None:
    old = [kernel("graph_0_cpp_fused_add_relu_0")]
    new = [kernel("graph_4_cpp_fused_mul_0"), kernel("graph_4_cpp_fused_add_relu_1")]
    assert compiled_statuses(old, new) == [("cpp_fused_mul_0", ADDED), ("cpp_fused_add_relu_1", SAME)]


def test_triton_kernels_match_across_indices_but_not_across_kinds() -> None:
    old = [kernel("triton_poi_fused_add_relu_0"), kernel("triton_red_fused_sum_1")]
    new = [kernel("triton_poi_fused_add_relu_1"), kernel("triton_per_fused_sum_0")]
    assert compiled_statuses(old, new) == [
        ("triton_poi_fused_add_relu_1", SAME),
        ("triton_per_fused_sum_0", ADDED),
        ("triton_red_fused_sum_1", REMOVED),
    ]


def test_exact_names_pair_first_so_two_kernels_of_the_same_ops_keep_their_partners() -> None:
    old = [kernel("cpp_fused_add_0", moved=ARRAY), kernel("cpp_fused_add_1", moved=2 * ARRAY)]
    new = [kernel("cpp_fused_add_1", moved=2 * ARRAY), kernel("cpp_fused_add_0", moved=ARRAY)]
    assert compiled_statuses(old, new) == [("cpp_fused_add_1", SAME), ("cpp_fused_add_0", SAME)]
    # Without an exact partner, they pair in order, and the one left over was removed.
    assert compiled_statuses(old, [kernel("cpp_fused_add_2", moved=ARRAY)]) == [
        ("cpp_fused_add_2", SAME),
        ("cpp_fused_add_1", REMOVED),
    ]


def test_a_kernel_called_more_often_or_moving_more_is_changed_and_its_row_says_how() -> None:
    comparison = compare(
        report([kernel("cpp_fused_add_0")]), report([kernel("cpp_fused_add_0", calls=2, moved=2 * ARRAY)])
    )
    compiled = comparison.mode("compiled")
    assert compiled is not None
    (change,) = compiled.differences
    assert change.status == CHANGED and (change.calls_delta, change.bytes_delta) == (1, ARRAY)
    assert kernel_cells(change)[:4] == ("~", "cpp_fused_add_0", "1 → 2 calls", "+4.0 MiB")
    assert comparison.growth() == ["compiled launches 1 → 2", "compiled bytes 4.0 MiB → 8.0 MiB"]


def test_eager_operators_match_by_name_and_by_the_composite_that_launched_them() -> None:
    old = [kernel("aten::amax", op="aten::logsumexp"), kernel("aten::sub")]
    new = [kernel("aten::amax", op="aten::softmax"), kernel("aten::sub")]
    comparison = compare(report([], eager=old), report([], eager=new))
    eager = comparison.mode("eager")
    assert eager is not None
    assert [(change.name, change.status) for change in eager.kernels] == [
        ("aten::amax", ADDED),
        ("aten::sub", SAME),
        ("aten::amax", REMOVED),
    ]


def test_added_and_removed_rows_read_as_costs_and_savings() -> None:
    comparison = compare(
        report([kernel("graph_0_cpp_fused_add_0", time_us=2500.0)]),
        report([kernel("graph_1_cpp_fused_mul_1", moved=ARRAY, time_us=1200.0)]),
    )
    compiled = comparison.mode("compiled")
    assert compiled is not None
    rows = {change.status: kernel_cells(change) for change in compiled.kernels}
    assert rows[ADDED] == ("+", "cpp_fused_mul_1", "1 call", "+4.0 MiB", "+1.20 ms")
    assert rows[REMOVED] == ("-", "cpp_fused_add_0", "1 call", "-4.0 MiB", "-2.50 ms")


# -- hand-made reports: totals, time and verdict ----------------------------------------------------------


def test_the_totals_line_gives_both_sides_and_the_delta() -> None:
    old = report([kernel("cpp_fused_add_0", moved=3 * ARRAY), kernel("cpp_fused_relu_1", moved=ARRAY)])
    new = report([kernel("cpp_fused_add_relu_0", moved=2 * ARRAY)])
    compiled = compare(old, new).mode("compiled")
    assert compiled is not None
    assert totals_text(compiled) == "compiled: 2 → 1 launches (-1), 16.0 MiB → 8.0 MiB (-8.0 MiB)"
    assert totals_text(compare(old, old).modes[1]) == "compiled: 2 → 2 launches (same), 16.0 MiB → 16.0 MiB (same)"


def test_a_time_difference_counts_only_outside_the_spread() -> None:
    assert TimeChange(1000.0, 1100.0, 150.0, 150.0).measurable is False
    assert time_text(TimeChange(1000.0, 1100.0, 150.0, 150.0)) == "time 1.00 ms → 1.10 ms: no measurable difference"
    assert TimeChange(1000.0, 500.0, 100.0, 100.0).measurable is True
    assert time_text(TimeChange(1000.0, 500.0, 100.0, 100.0)) == "time 1.00 ms → 500.0 µs (2× faster)"
    assert time_text(TimeChange(1000.0, 3000.0, 100.0, 100.0)) == "time 1.00 ms → 3.00 ms (3× slower)"
    # No spread, no verdict: the ratio is shown and said to be unjudged.
    assert TimeChange(1000.0, 3000.0).measurable is None
    assert time_text(TimeChange(1000.0, 3000.0)) == "time 1.00 ms → 3.00 ms (3× slower, spread unknown)"
    assert time_text(TimeChange(None, None)) == ""  # a CUDA preview times nothing


def test_a_kernel_time_within_its_modes_spread_reads_as_about_the_same() -> None:
    old = report([kernel("cpp_fused_add_0", calls=1, time_us=100.0)])
    new = report([kernel("cpp_fused_add_0", calls=2, time_us=120.0)])
    compiled = compare(old, new).mode("compiled")
    assert compiled is not None
    (change,) = compiled.differences
    assert kernel_cells(change)[4] == "≈"
    slower = compare(old, report([kernel("cpp_fused_add_0", calls=2, time_us=400.0)])).mode("compiled")
    assert slower is not None and kernel_cells(slower.differences[0])[4] == "+300.0 µs"


def test_unknown_bytes_and_a_mode_missing_from_one_run_are_never_growth() -> None:
    unknown = compare(report([kernel("cpp_fused_add_0")]), report([kernel("cpp_fused_add_0", moved=None)]))
    assert unknown.modes[1].bytes_delta is None and not unknown.grew
    failed = replace(report([kernel("cpp_fused_add_0")]), compiled=None)
    comparison = compare(failed, report([kernel("cpp_fused_add_0"), kernel("cpp_fused_mul_1")]))
    assert [mode.mode for mode in comparison.modes] == ["eager"]
    assert comparison.notes == ("compiled: not measured in the baseline",)
    assert not comparison.grew


# -- finding the baseline of a report ---------------------------------------------------------------------


def test_a_report_finds_its_own_baseline_by_path_then_by_file_name() -> None:
    first, latest = report([], scenario="/a/add.py"), report([kernel("cpp_fused_add_0")], scenario="/a/add.py")
    other = report([], scenario="/a/mul.py")
    new = report([], scenario="/a/add.py")
    assert baseline_of(new, [first, other, latest], alone=False) is latest
    moved = report([], scenario="/ci/checkout/add.py")
    assert baseline_of(moved, [other, first], alone=False) is first
    assert baseline_of(report([], scenario="/a/variant.py"), [other, first], alone=True) is None
    # One scenario run against a file of one report: a variant in a file of its own meets its original.
    assert baseline_of(report([], scenario="/a/variant.py"), [first], alone=True) is first
    assert baseline_of(report([], scenario="/a/variant.py"), [first], alone=False) is None


# -- how it reads -------------------------------------------------------------------------------------------


def test_the_comparison_reads_at_80_columns() -> None:
    old = report([kernel("graph_0_cpp_fused_add_relu_0", moved=3 * ARRAY)])
    new = report(
        [kernel("graph_0_cpp_fused_add_relu_0", moved=3 * ARRAY), kernel("graph_1_cpp_fused_mul_0", moved=2 * ARRAY)]
    )
    console = Console(width=80, record=True, file=io.StringIO())
    console.print(baseline_view(compare(old, new), new.scenario, "old.jsonl"))
    console.print(baseline_view(None, "/a/new.py", "old.jsonl"))
    text = console.export_text()
    assert all(len(line) <= 80 for line in text.splitlines())
    lines = [line.rstrip() for line in text.splitlines()]
    assert "Against the baseline: add.py in old.jsonl" in lines
    assert "compiled: 1 → 2 launches (+1), 12.0 MiB → 20.0 MiB (+8.0 MiB)" in lines
    assert "  time 1.00 ms → 1.00 ms: no measurable difference" in lines
    assert any(line.split() == ["+", "cpp_fused_mul_0", "1", "call", "+8.0", "MiB", "+100.0", "µs"] for line in lines)
    assert any(line.strip() == "1 kernel unchanged" for line in lines)
    assert "grew: compiled launches 1 → 2, compiled bytes 12.0 MiB → 20.0 MiB" in lines
    assert "baseline: no report of new.py in old.jsonl" in lines


def test_the_json_form_is_strict_json_with_the_deltas_computed(
    original: ScenarioReport, variant: ScenarioReport
) -> None:
    data = compare(original, variant).to_dict()
    text = json.dumps(data, allow_nan=False)
    assert json.loads(text)["growth"] == compare(original, variant).growth()
    eager = next(mode for mode in data["modes"] if mode["mode"] == "eager")
    mul = next(kernel for kernel in eager["kernels"] if kernel["name"] == "aten::mul")
    assert (mul["status"], mul["calls_delta"], mul["bytes_delta"]) == (ADDED, 1, 2 * ARRAY)
