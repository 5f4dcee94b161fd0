"""Each line's kernels, eager and compiled: ``kernel-tui run --by-line``, the lab report's section, the gutter's
text; and a training step's backward kernels placed on the forward lines they differentiate."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import WriteScenario, measure
from support.locations import DATA

from kernel_tui.engine.counting.source_lines import DEFAULT_LOSS
from kernel_tui.model.report.kernel import Kernel
from kernel_tui.model.report.mode_result import ModeResult
from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.scenario.expect import line_measure
from kernel_tui.model.scenario.scenario_file import ScenarioFileError, read_scenario
from kernel_tui.text.by_line import annotated_lines, gutter_text, line_work, short_gutter_text
from kernel_tui.transport.client import EngineClient


def row(name: str, lines: tuple[int, ...], calls: int = 1, **fields: Any) -> Kernel:
    return Kernel(name, name, calls, 1.0, 8, 8, lines=lines, **fields)


def mode(*kernels: Kernel) -> ModeResult:
    return ModeResult(kernel_count=len(kernels), kernels=kernels, bytes_total=0, time_us=1.0)


def test_a_row_on_two_lines_counts_on_each_only_the_launches_from_it() -> None:
    eager = mode(row("aten::mul", (6, 8), calls=3, line_calls=((6, 1), (8, 2))), row("aten::add", (7,)))
    work = line_work(eager, mode(row("cpp_fused_add_mul_0", (6, 7, 8))))
    assert [part.eager_launches for line in (6, 7, 8) for part in work[line]] == [1, 1, 2]


def test_the_gutter_names_the_kernel_where_it_fits_and_counts_where_it_does_not() -> None:
    eager = mode(row("aten::add", (6,)), row("aten::relu", (6,)), row("aten::mul", (9,)))
    compiled = mode(row("cpp_fused_add_relu_0", (6, 7), aten_ops=("aten::add", "aten::relu")))
    work = line_work(eager, compiled)
    assert gutter_text(work[6], 30) == "2 ⇒ cpp_fused_add_relu_0"
    assert gutter_text(work[6], 12) == "2 ⇒ 1 fused"
    assert gutter_text(work[9], 30) == "1 ⇒ 0", "line 9's work vanished compiled"
    assert work[9][0].vanished and not work[6][0].vanished
    assert gutter_text(work.get(8, []), 30) == "", "a quiet line is blank"


def test_the_gutter_says_fused_only_where_several_operators_became_one_kernel() -> None:
    """One GELU in one kernel fused nothing, though the kernel is on two lines (a helper's and its caller's); a
    Linear stays a library call; three operators in one kernel are fused."""
    eager = mode(
        row("aten::gelu", (12, 19)),
        row("aten::linear", (13, 8)),
        row("aten::add", (14,)),
        row("aten::relu", (14,)),
        row("aten::mul", (14,)),
    )
    compiled = mode(
        row("cpp_fused_gelu_0", (12, 19), aten_ops=("aten::gelu",)),
        row("aten::addmm", (13, 8), aten_ops=("aten::addmm", "aten::t")),
        row("cpp_fused_add_mul_relu_1", (14,), aten_ops=("aten::add", "aten::relu", "aten::mul")),
    )
    work = line_work(eager, compiled)
    assert [short_gutter_text(work[line]) for line in (12, 13, 14)] == [
        "1 ⇒ 1 kernel",
        "1 ⇒ library call",
        "3 ⇒ 1 fused",
    ]
    both = line_work(
        mode(row("aten::addmm", (6,)), row("aten::relu", (6,))),
        mode(
            row("aten::addmm", (6,), aten_ops=("aten::addmm",)), row("cpp_fused_relu_0", (6,), aten_ops=("aten::relu",))
        ),
    )
    assert short_gutter_text(both[6]) == "2 ⇒ 1 kernel + library call"


def test_a_training_steps_sections_each_have_their_part() -> None:
    eager = mode(row("aten::relu", (7,), section="forward"), row("aten::threshold_backward", (7,), section="backward"))
    compiled = mode(row("cpp_fused_relu_0", (7,), section="forward"), row("cpp_fused_tb_0", (7,), section="backward"))
    (line,) = line_work(eager, compiled).values()
    assert [(part.section, part.compiled[0].name) for part in line] == [
        ("forward", "cpp_fused_relu_0"),
        ("backward", "cpp_fused_tb_0"),
    ]
    assert gutter_text(line, 50) == "f 1 ⇒ cpp_fused_relu_0 · b 1 ⇒ cpp_fused_tb_0"


def _annotation(lines: list[str], number: int) -> str:
    """The annotation printed under line ``number`` of the code."""
    at = next(i for i, line in enumerate(lines) if re.match(rf"\s*{number} │", line))
    return lines[at + 1]


@pytest.mark.engine
def test_run_by_line_puts_each_operator_on_its_line_and_the_fused_kernel_on_all_three(tmp_path: Path) -> None:
    """The issue's example: lines 6, 7, 8 are ``s = a + b``, ``r = s.relu()``, ``return r * 2``."""
    export = tmp_path / "report.md"
    result = subprocess.run(
        [sys.executable, "-m", "kernel_tui", "run", str(DATA / "which_line.py"), "--device", "cpu"]
        + ["--no-sweep", "--by-line", "--export", str(export)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    printed = result.stdout.split("By line", 1)[1].splitlines()
    for number, code, eager in (
        (6, "s = a + b", "aten::add"),
        (7, "r = s.relu()", "aten::relu"),
        (8, "return r * 2", "aten::mul"),
    ):
        assert any(re.match(rf"\s*{number} │\s+{re.escape(code)}$", line) for line in printed)
        said = _annotation(printed, number)
        assert f"eager {eager} ×1 ⇒ compiled cpp_fused_add_mul_relu_0" in said, said
    assert "Not on any line" not in result.stdout, "every kernel of a forward-only fn has its line"
    markdown = export.read_text().splitlines()
    section = markdown[markdown.index("#### By line") :]
    assert "eager aten::relu ×1 ⇒ compiled cpp_fused_add_mul_relu_0 (with L6,8)" in _annotation(section, 7)


def test_a_training_steps_backward_kernels_carry_the_lines_they_differentiate(engine: EngineClient) -> None:
    report = measure(engine, DATA / "which_line_training.py", size=2**12)
    assert report.eager is not None and report.compiled is not None, report.error
    backward = {kernel.name: kernel.lines for kernel in report.eager.section("backward")}
    assert backward == {"aten::mul": (8,), "aten::threshold_backward": (7,), "aten::copy_": (6,)}
    (total,) = [kernel for kernel in report.eager.section("forward") if kernel.name == "aten::sum"]
    assert total.lines == () and total.unplaced == DEFAULT_LOSS
    compiled_backward = report.compiled.section("backward")
    assert compiled_backward and all(kernel.lines for kernel in compiled_backward), compiled_backward
    fused = [kernel for kernel in compiled_backward if "threshold_backward" in kernel.name]
    assert fused and set(fused[0].lines) >= {7, 8}, "ReLU's and the mul's gradients, fused into one kernel"
    (forward,) = report.compiled.section("forward")
    assert forward.lines == (6, 7, 8)
    text = "\n".join(annotated_lines((DATA / "which_line_training.py").read_text(), report))
    assert "backward: eager aten::threshold_backward ×1" in text and DEFAULT_LOSS in text


def test_claims_about_lines_are_read_and_measured(write_scenario: WriteScenario) -> None:
    claims = {"eager_line_6": 2, "compiled_line_7": 1, "fused_lines_6_7": 1}
    head = "import torch\ndef fn(a):\n    return a\ndef inputs(size, device):\n    return (torch.ones(size),)\n"
    assert read_scenario(write_scenario(head + f"EXPECT = {claims!r}\n")).expect == claims
    with pytest.raises(ScenarioFileError, match="unknown claim 'eager_line_x'"):
        read_scenario(write_scenario(head + "EXPECT = {'eager_line_x': 1}\n"))
    report = ScenarioReport(
        "s.py",
        "t",
        "cpu",
        "",
        "",
        1,
        eager=mode(row("aten::add", (6,)), row("aten::mul", (6, 8), calls=2, line_calls=((6, 1), (8, 1)))),
        compiled=mode(row("cpp_fused_add_mul_0", (6, 8)), row("cpp_fused_relu_1", (7,))),
    )
    measured = {key: line_measure(key)(report) for key in claims}
    assert measured == {"eager_line_6": 2, "compiled_line_7": 1, "fused_lines_6_7": 0}
    assert line_measure("fused_lines_6_8")(report) == 1


def test_on_a_real_report_a_gelu_is_one_kernel_and_a_linear_in_a_helper_a_library_call() -> None:
    """``gelu_linear.py`` measured on CPU (``kernel-tui run --json``): the Linear's ``aten::mm`` is on the helper's
    line and its caller's, which the old rule took for a fusion."""
    import json

    from kernel_tui.model.report.report import ScenarioReport

    report = ScenarioReport.from_dict(json.loads((DATA / "gelu_linear_report.json").read_text()))
    work = line_work(report.eager, report.compiled)
    assert short_gutter_text(work[12]) == "1 ⇒ 1 kernel", "y = F.gelu(x)"
    assert short_gutter_text(work[13]) == "1 ⇒ library call", "return project(y, w)"
    assert all("fused" not in short_gutter_text(parts) for parts in work.values())
