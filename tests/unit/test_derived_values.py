"""Values derived from a report, each defined once and read the same by the CLI, the app and the lab report:
bandwidth, its wording, the attribution's wording, the one-line error, the device line, the modes, and the
claims only a sweep can check."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from kernel_tui.model.report.kernel import LOWER_BOUND, Kernel
from kernel_tui.model.report.mode_result import ModeResult
from kernel_tui.model.report.report import ExpectCheck, ScenarioError, ScenarioReport, gbs
from kernel_tui.model.report.report_keys import MODES
from kernel_tui.model.scenario.expect import NEEDS_SWEEP, check_claims
from kernel_tui.text.formatting import (
    attribution_text,
    bandwidth_text,
    ceiling_share_text,
    device_line,
    device_text,
    format_transfers,
    summary_line,
)


def kernel(**fields: Any) -> Kernel:
    return Kernel("cpp_fused_add_relu_0", "cpp_fused_add_relu_0", 1, 10.0, **fields)


def report(**fields: Any) -> ScenarioReport:
    return ScenarioReport("/course/add.py", "Add", "cpu", "EPYC", "2.14.1", 1024, **fields)


def test_bandwidth_is_bytes_over_time_in_gb_per_second() -> None:
    assert gbs(12_000, 2.0) == pytest.approx(6.0)
    assert [gbs(None, 2.0), gbs(0, 2.0), gbs(12_000, None), gbs(12_000, 0.0), gbs(12_000, -1.0)] == [None] * 5


def test_bandwidth_text_says_the_share_of_the_copy_ceiling() -> None:
    fast = kernel(gbs=7.171, ceiling_pct=62.4)
    assert bandwidth_text(fast) == "7.17 GB/s, 62% of the copy ceiling"
    assert bandwidth_text(fast, 11.553) == "7.17 GB/s, 62% of the copy ceiling (11.6 GB/s)"
    assert bandwidth_text(kernel(gbs=7.171)) == "7.17 GB/s"
    assert bandwidth_text(kernel()) == "—"
    assert (ceiling_share_text(fast), ceiling_share_text(kernel())) == ("62%", "")


def test_attribution_reads_fused_into_eager_and_replaces_compiled() -> None:
    add = Kernel("aten::add", "aten::add", 1, 10.0, fused_into=("cpp_fused_add_relu_0",))
    assert attribution_text(add, "eager") == "fused into cpp_fused_add_relu_0"
    replaced = kernel(aten_ops=("aten::add", "aten::relu"), lines=(12, 13))
    assert attribution_text(replaced, "compiled") == "replaces aten::add, aten::relu (lines 12, 13)"
    assert attribution_text(kernel(lines=(12,)), "compiled") == "replaces ? (line 12)"
    assert attribution_text(kernel(), "eager") == "" and attribution_text(kernel(), "compiled") == ""


def test_an_error_is_one_line_with_where_it_happened() -> None:
    error = ScenarioError("eager", "TypeError: bad\n  more", line=9, file="/course/broken_fn.py")
    assert error.one_line() == "/course/broken_fn.py:9: eager: TypeError: bad\n  more"
    assert error.one_line(first_line_only=True) == "/course/broken_fn.py:9: eager: TypeError: bad"
    assert error.location(file_name_only=True) == "broken_fn.py:9"
    assert error.one_line("line 9", first_line_only=True) == "line 9: eager: TypeError: bad"
    assert ScenarioError("engine", "  ").one_line(first_line_only=True) == "?: engine: (no message)"


def test_the_device_line_names_threads_only_on_a_cpu() -> None:
    assert device_text("cpu", "EPYC", 2, "2.14.1") == "cpu (EPYC, 2 threads) · torch 2.14.1"
    assert device_text("cuda", "H200", 2, "2.14.1") == "cuda (H200) · torch 2.14.1"
    assert device_line(report(threads=2)) == "cpu (EPYC, 2 threads) · torch 2.14.1 · size 1,024"


def test_a_report_reads_each_mode_by_name() -> None:
    eager = ModeResult(2, (), 20, 1.0)
    measured = report(eager=eager)
    assert MODES == ("eager", "compiled")
    assert measured.mode("eager") is eager and measured.mode("compiled") is None
    with pytest.raises(ValueError, match="no mode 'inductor'"):
        measured.mode("inductor")


def test_claims_only_a_sweep_checks_are_left_out_without_one() -> None:
    assert "sweep_compiles" in NEEDS_SWEEP
    claims: dict[str, float] = {"eager": 2, "sweep_compiles": 1}
    assert set(check_claims(claims, report(eager=ModeResult(2, (), 20, 1.0)), swept=False)) == {"eager"}
    swept = check_claims(claims, report(eager=ModeResult(2, (), 20, 1.0), sweep_compiles=1), swept=True)
    assert swept["sweep_compiles"] == ExpectCheck(claimed=1, measured=1, ok=True)


def test_a_sweep_claim_the_budget_cut_short_reads_not_measured_and_fails_nothing() -> None:
    from kernel_tui.model.report.report import SweepPoint
    from kernel_tui.text.formatting import claim_line

    ended = "sweep ended: this size would take about 103 s (the sweep's budget is 90 s)"
    points = (SweepPoint(1024, 5.0, 4.0), SweepPoint(4096, None, None, note=ended))
    cut = report(eager=ModeResult(2, (), 20, 1.0), sweep=points, sweep_compiles=1)
    checks = check_claims({"eager": 3, "sweep_compiles": 5}, cut, swept=True)
    assert checks["sweep_compiles"] == ExpectCheck(claimed=5, measured=1, ok=None, reason=ended)
    line = claim_line("sweep_compiles", checks["sweep_compiles"])
    assert line == f"? sweep_compiles: claimed 5, not measured: {ended}"
    assert replace(cut, expect={"sweep_compiles": checks["sweep_compiles"]}).ok
    assert replace(cut, expect=checks).ok is False  # the measured claim (eager: 3 against 2) still fails
    data = replace(cut, expect=checks).to_dict()["expect"]["sweep_compiles"]
    assert (data["ok"], data["reason"]) == (None, ended)
    whole = report(sweep=(SweepPoint(1024, 5.0, 4.0),), sweep_compiles=4)
    assert check_claims({"sweep_compiles": 5}, whole, swept=True)["sweep_compiles"].ok is False


def test_middle_sizes_skipped_to_reach_the_largest_are_said_as_skipped_not_as_an_end() -> None:
    """A busy box's sweep gives up middle sizes to measure the largest (issue 57): the chart's border and the notes
    say which were skipped and the budget, not that the sweep ended before the first of them."""
    from kernel_tui.model.report.report import SweepPoint
    from kernel_tui.text.formatting import sweep_end, sweep_end_short

    skipped = (
        "skipped 4,096 elements so that the larger sizes fit: this size would take about 6.2 s, 72.8 s left (the last "
        "took 16.5 s at 1,024 elements; the sweep's budget is 90 s; KERNEL_TUI_SWEEP_BUDGET_S gives it more)"
    )
    points = (
        SweepPoint(1024, 5.0, 4.0),
        SweepPoint(4096, None, None, note=skipped),
        SweepPoint(16384, None, None, note=skipped.replace("4,096", "16,384")),
        SweepPoint(65536, 9.0, 7.0),
    )
    assert sweep_end_short(points) == "2^12, 2^14 skipped: budget 90 s"
    assert sweep_end(report(sweep=points)) == skipped
    checks = check_claims({"sweep_compiles": 1}, report(sweep=points, sweep_compiles=1), swept=True)
    assert checks["sweep_compiles"] == ExpectCheck(claimed=1, measured=1, ok=None, reason=skipped)


def test_a_launch_count_a_preview_knows_only_from_below_neither_holds_nor_fails_as_many_or_more() -> None:
    fused = Kernel(
        "aten::_transformer_encoder_layer_fwd", "encoder", 1, None, kind="op", predicted=f"at least 1 {LOWER_BOUND}"
    )
    counted = report(eager=ModeResult(1, (fused,), 1024, None), compiled=ModeResult(3, (kernel(),), 1024, None))
    checks = check_claims({"eager": 1, "compiled": 3}, counted, swept=False)
    assert checks["eager"].ok is None and "at least 1 launch, one row" in (checks["eager"].reason or "")
    assert checks["compiled"].ok is True, "a count with no lower-bound row is a count"
    assert check_claims({"eager": 13}, counted, swept=False)["eager"].ok is None
    assert check_claims({"eager": 0}, counted, swept=False)["eager"].ok is False, "fewer than the least fails"
    assert summary_line(counted).startswith("launches ≥1 → 3 ·")


def test_every_claim_a_lesson_may_make_has_a_measure_and_nothing_else_does() -> None:
    # The file reader's list and the checker's table are kept apart (the reader is on the app's start path);
    # a claim with no measure would crash the check, a measure with no claim would never be reached.
    from kernel_tui.model.scenario.expect import MEASURES
    from kernel_tui.model.scenario.scenario_file import CLAIM_KEYS

    assert tuple(MEASURES) == CLAIM_KEYS


def test_transfers_keep_a_quarter_as_a_quarter() -> None:
    """Lesson 21 claims forward keeps 0.25 of an array; one decimal showed it as 0.2× beside that claim."""
    assert [format_transfers(value) for value in (0.25, 1.0, 1.5, 5.001, 2.75, 0.0)] == [
        "0.25×",
        "1.0×",
        "1.5×",
        "5.0×",
        "2.75×",
        "0.0×",
    ]
    assert format_transfers(None) == "—"
