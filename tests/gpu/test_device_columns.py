"""Device columns (``kernel-tui view --text``): how reports of one scenario from several machines are aligned.

These build reports by hand to pin the alignment rules where no machine here can produce the case (a template on
one GPU and a library call on another, two torch releases); ``test_device_columns_runs.py`` checks the same
views on real preview and CPU runs.
"""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import Static

from kernel_tui.commands.arguments import command_parser
from kernel_tui.commands.exits import EXIT_USAGE
from kernel_tui.commands.view_text import print_device_columns
from kernel_tui.model.compare.device_columns import by_scenario, choice, column_letter, compare_devices, work_text
from kernel_tui.model.report.kernel import Kernel
from kernel_tui.model.report.launch import KernelLaunch
from kernel_tui.model.report.machine import MachineIdentity
from kernel_tui.model.report.mode_result import ModeResult
from kernel_tui.model.report.report import Ceilings, ScenarioReport
from kernel_tui.model.storage.results_file import read_results, saved_form
from kernel_tui.text.device_columns_text import device_columns_view


def kernel(name: str, ops: tuple[str, ...], lines: tuple[int, ...], **more: object) -> Kernel:
    values: dict[str, object] = {"bytes_read": 4096, "bytes_written": 4096, "time_us": None} | more
    return Kernel(name, name, 1, aten_ops=ops, lines=lines, **values)  # type: ignore[arg-type]


def report(device_name: str, compiled: list[Kernel], *, torch: str = "2.14.1", arch: int = 90) -> ScenarioReport:
    mode = ModeResult(sum(k.calls for k in compiled), tuple(compiled), None, None)
    return ScenarioReport(
        "/box/scenarios/14_matmul.py", "Matmul", "cuda", device_name, torch, 1024, compiled=mode, arch=arch
    )


def test_kernels_align_by_the_work_they_replaced_not_by_name() -> None:
    """Inductor's numbers differ between the two runs (``_0`` and ``_3``): the rows are the same work."""
    first = report("A100", [kernel("triton_poi_fused_add_relu_0", ("aten::add", "aten::relu"), (28,))])
    second = report("B200", [kernel("triton_poi_fused_add_relu_3", ("aten::add.Tensor", "aten::relu"), (28,))])
    (compiled,) = [mode for mode in compare_devices([first, second]).modes if mode.mode == "compiled"]
    (row,) = compiled.rows
    assert work_text(row.work) == "add, relu · L28"
    assert [cell.kernels[0].name for cell in row.cells if cell is not None] == [
        "triton_poi_fused_add_relu_0",
        "triton_poi_fused_add_relu_3",
    ]
    assert row.changes == ()


def test_a_template_that_swallowed_its_epilogue_is_one_row_marked() -> None:
    """One GPU calls cuBLAS and fuses bias and ReLU apart; the other runs a Triton template with both inside:
    one row (they share the matmul's work), another launch count and another kind of kernel."""
    library = report(
        "A100",
        [
            kernel("extern_kernels.mm", ("aten::mm",), (37,)),
            kernel("triton_poi_fused_add_relu_0", ("aten::add", "aten::relu"), (37,)),
        ],
    )
    template = report(
        "B200", [kernel("triton_tem_fused_add_mm_relu_0", ("aten::mm", "aten::add", "aten::relu"), (37,))]
    )
    compiled = compare_devices([library, template]).modes[1]
    (row,) = compiled.rows
    assert row.changes == ("launches 2 / 1", "generated + library / template")
    assert [choice(k) for k in library.compiled.kernels] == ["library", "generated"]  # type: ignore[union-attr]


def test_another_config_of_the_same_kernel_is_marked() -> None:
    def launched(block: int, warps: int) -> Kernel:
        launch = KernelLaunch(config={"XBLOCK": block}, warps=warps)
        return kernel("triton_poi_fused_add_0", ("aten::add",), (5,), launch=launch)

    same = compare_devices([report("A100", [launched(1024, 4)]), report("H100", [launched(1024, 4)])])
    other = compare_devices([report("A100", [launched(1024, 4)]), report("B200", [launched(512, 8)])])
    assert same.modes[1].rows[0].changes == ()
    assert other.modes[1].rows[0].changes == (
        "config triton_poi_fused_add: XBLOCK 1024 · 4 warps / XBLOCK 512 · 8 warps",
    )


def test_work_only_one_column_did_is_an_empty_cell_and_marked() -> None:
    first = report("A100", [kernel("triton_poi_fused_add_0", ("aten::add",), (5,))])
    second = report(
        "B200",
        [
            kernel("triton_poi_fused_add_0", ("aten::add",), (5,)),
            kernel("triton_poi_fused_mul_1", ("aten::mul",), (6,)),
        ],
    )
    rows = compare_devices([first, second]).modes[1].rows
    assert [work_text(row.work) for row in rows] == ["add · L5", "mul · L6"]
    assert rows[1].cells[0] is not None and rows[1].cells[0].kernels == ()
    assert rows[1].changes == ("launches 0 / 1", "none / generated")


def test_bandwidth_is_a_share_of_each_columns_own_ceiling() -> None:
    """The same bytes in the same time are 50% of a 16 GB/s ceiling and 25% of a 32 GB/s one."""
    timed = [kernel("cpp_fused_add_0", ("aten::add",), (5,), bytes_read=4000, bytes_written=4000, time_us=1.0)]
    slow, fast = report("one", timed), report("two", timed)
    slow = replace(slow, ceilings=Ceilings(16.0, None))
    fast = replace(fast, bandwidth_ceiling_gbs=32.0)
    cells = compare_devices([slow, fast]).modes[1].rows[0].cells
    assert [cell.ceiling_pct for cell in cells if cell is not None] == [50.0, 25.0]


def test_columns_of_two_torch_releases_say_so() -> None:
    work = [kernel("triton_poi_fused_add_0", ("aten::add",), (5,))]
    notes = compare_devices([report("H100", work, torch="2.13.0"), report("H100", work, torch="2.14.1")]).notes
    assert notes[0].startswith("the columns differ in torch release (A: 2.13.0, B: 2.14.1)")
    same = compare_devices([report("H100", work), report("A100", work)]).notes
    assert same == ()


def test_reports_group_by_scenario_file_name_and_a_rerun_replaces_its_column() -> None:
    """Two checkouts give one lesson two paths; the same machine saved twice is one column, the later run."""
    work = [kernel("triton_poi_fused_add_0", ("aten::add",), (5,))]
    a100, h100 = report("A100", work, arch=80), report("H100", work)
    moved = replace(h100, scenario="/elsewhere/14_matmul.py")
    rerun = replace(a100, size=2048)
    other = replace(a100, scenario="/box/scenarios/02_add.py")
    groups = by_scenario([a100, moved, other, rerun])
    assert [[r.size for r in group] for group in groups] == [[2048, 1024], [1024]]
    assert [group[0].scenario for group in groups] == [a100.scenario, other.scenario]


def test_the_machine_identity_survives_a_results_file(tmp_path: Path) -> None:
    identity = MachineIdentity("sm_90", "3.8.0", "13.0", "580.65", "gpu-box")
    saved = replace(
        report("H100", []), machine=identity, ceilings=Ceilings(3000.0, None, measured_at="2026-12-01T15:40:00Z")
    )
    path = tmp_path / "results.jsonl"
    path.write_text(json.dumps(saved_form(saved)) + "\n")
    (read,) = read_results(path)
    assert read.machine == identity
    assert read.ceilings is not None and read.ceilings.measured_at == "2026-12-01T15:40:00Z"
    text = io.StringIO()
    Console(file=text, width=200).print(device_columns_view(compare_devices([read])))
    assert "Triton 3.8.0 · CUDA 13.0 · driver 580.65 · host gpu-box" in text.getvalue()
    assert "copy ceiling 3000.0 GB/s measured 2026-12-01T15:40:00Z" in text.getvalue()


def test_a_file_that_is_not_results_is_one_line_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"format_version": 1, "title": 3}\n')
    assert print_device_columns([str(broken)], Console(file=io.StringIO())) == EXIT_USAGE
    error = capsys.readouterr().err
    assert error.startswith(f"kernel-tui view: {broken}: line 1: not a kernel-tui report")
    assert error.count("\n") == 1


@pytest.mark.parametrize(("given", "parsed"), [("80,90,100", [80, 90, 100]), ("100", [100]), ("90,90,80", [90, 80])])
def test_arch_takes_several_architectures(given: str, parsed: list[int]) -> None:
    options = command_parser().parse_args(["run", "--device", "cuda-preview", "--arch", given, "x.py"])
    assert options.arch == parsed


@pytest.mark.parametrize("given", ["70", "80,abc", ","])
def test_an_unknown_arch_is_a_usage_error(given: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        command_parser().parse_args(["run", "--device", "cuda-preview", "--arch", given, "x.py"])
    assert stopped.value.code == 2
    assert "--arch takes 80, 90, 100" in capsys.readouterr().err


def test_column_letters_go_past_z() -> None:
    assert [column_letter(index) for index in (0, 25, 26, 27)] == ["A", "Z", "AA", "AB"]


def test_the_same_work_split_otherwise_between_kernels_is_marked() -> None:
    """The CPU's ``addmm`` takes the bias and fuses the ReLU alone; a GPU calls ``mm`` and fuses bias and ReLU."""
    cpu = report(
        "EPYC",
        [kernel("aten::addmm", ("aten::mm", "aten::add"), (37,)), kernel("cpp_fused_relu_0", ("aten::relu",), (37,))],
    )
    gpu = report(
        "H100",
        [
            kernel("extern_kernels.mm", ("aten::mm",), (37,)),
            kernel("triton_poi_fused_add_relu_0", ("aten::add", "aten::relu"), (37,)),
        ],
    )
    (row,) = compare_devices([cpu, gpu]).modes[1].rows
    assert row.changes == ("split add+mm | relu / add+relu | mm",)


async def test_m_in_view_shows_the_scenarios_reports_side_by_side(tmp_path: Path) -> None:
    """Two machines' results of one scenario: the explorer shows the later, ``m`` both, as columns."""
    from support.ui_support import shown_text, status, wait_for

    from kernel_tui.ui.app.view_app import build_view_app
    from kernel_tui.ui.link.view_link import saved_reports
    from kernel_tui.ui.screens.dialogs.device_columns import DeviceColumnsScreen

    work = [kernel("triton_poi_fused_add_0", ("aten::add",), (5,))]
    files = []
    for name, arch in (("A100", 80), ("B200", 100)):
        path = tmp_path / f"{name}.jsonl"
        path.write_text(json.dumps(saved_form(report(name, work, arch=arch))) + "\n")
        files.append(path)
    app = build_view_app([entry for path in files for entry in saved_reports(read_results(path), path)])
    async with app.run_test(size=(160, 48)) as pilot:
        assert "m: 2 machines side by side" in status(app)
        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(app.screen, DeviceColumnsScreen), what="the device columns")
        shown = shown_text(app.screen.query_one(Static))
        assert "  A  cuda · A100 · torch 2.14.1" in shown
        assert "  B  cuda · B200 · torch 2.14.1" in shown
        assert "triton_poi_fused_add_0 ×1" in shown
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, DeviceColumnsScreen), what="the dialog to close")


def test_a_name_from_a_strangers_file_is_shown_as_written_never_as_markup() -> None:
    hostile = report("[bold]H100[/bold]", [kernel("[red]triton_poi_fused_add_0[/red]", ("aten::add",), (5,))])
    shown = io.StringIO()
    Console(file=shown, width=200, markup=True).print(device_columns_view(compare_devices([hostile])))
    assert "[red]triton_poi_fused_add_0[/red] ×1" in shown.getvalue()
    assert "[bold]H100[/bold]" in shown.getvalue()


def test_a_kernel_without_lines_aligns_with_the_same_operators_on_their_lines() -> None:
    """A report saved before kernels carried lines still lines up with a newer one."""
    old = report("A100", [kernel("triton_poi_fused_add_relu_0", ("aten::add", "aten::relu"), ())])
    new = report("A100", [kernel("triton_poi_fused_add_relu_0", ("aten::add", "aten::relu"), (28,))], torch="2.15.0")
    (row,) = compare_devices([old, new]).modes[1].rows
    assert all(cell is not None and len(cell.kernels) == 1 for cell in row.cells)
    assert work_text(row.work).startswith("add, relu")


def test_a_baseline_of_several_architectures_compares_each_with_its_own() -> None:
    """``run --arch 90 --baseline`` against a file of the preview's three architectures: one against one."""
    from kernel_tui.text.baseline import baseline_of

    work = [kernel("triton_poi_fused_add_0", ("aten::add",), (5,))]
    saved = [replace(report(f"sm_{arch}", work, arch=arch), device="cuda-preview") for arch in (80, 90, 100)]
    for arch, old in zip((80, 90, 100), saved):
        new = replace(report(f"sm_{arch}", work, arch=arch), device="cuda-preview")
        assert baseline_of(new, saved, alone=True) is old


def test_view_text_prints_the_columns_and_exits_1_when_a_report_holds_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from kernel_tui.commands.cli import main
    from kernel_tui.model.report.report import ScenarioError

    work = [kernel("triton_poi_fused_add_0", ("aten::add",), (5,))]
    good, other = report("A100", work, arch=80), report("B200", work, arch=100)
    (tmp_path / "good.jsonl").write_text("".join(json.dumps(saved_form(r)) + "\n" for r in (good, other)))
    assert main(["view", "--text", str(tmp_path / "good.jsonl")]) == 0
    printed = capsys.readouterr().out
    assert "  A  cuda · A100 · torch 2.14.1" in printed and "  B  cuda · B200 · torch 2.14.1" in printed
    failed = replace(other, error=ScenarioError("compile", "out of registers", 9, other.scenario))
    (tmp_path / "failed.jsonl").write_text(json.dumps(saved_form(failed)) + "\n")
    assert main(["view", "--text", str(tmp_path / "good.jsonl"), str(tmp_path / "failed.jsonl")]) == 1
    assert "14_matmul.py:9: compile: out of registers" in capsys.readouterr().out
