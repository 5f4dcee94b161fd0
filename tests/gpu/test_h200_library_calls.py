"""The recorded H200 run (``tests/data/gpu_check/``: torch 2.11.0+cu130, 4 December) replayed: lessons 26 and 27
hold every claim, with cuBLAS's split product one call of two kernels.

On that run lessons 26 and 27 failed their launch counts: cuBLAS split the K of two products (the same gemm over
four slices of K, then a ``…split_k_kernel…``), one launch more than claimed each. The engine now counts a library
call once and lists its kernels inside it (``engine/counting/library_calls``). Here each mode's Chrome trace, as the
engine saved it on the H200, goes through the engine's own profiling code (``profile_launches`` with the profiler
replayed, in torch 2.11's event form and in 2.12's), and its kernel rows replace the recorded ones in the recorded
report. The trace has no bytes and no lines: a row that is not a library call takes those of the recorded row of its
name, with the recorded file's lines moved to where the same code is in the lesson now; the modes' totals (bytes,
transfers) and the boundaries are the recording's. Then the lesson's own claims for a GPU are checked as the
engine checks them. Lesson 30, which came after that run, multiplies lesson 27's matrices: its calls and what it
says ran are checked against 27's product in the same traces.
"""

from __future__ import annotations

import json
import runpy
import tarfile
from dataclasses import replace
from pathlib import Path

import pytest
from support.cuda_replay import ReplayedProfiler
from support.locations import DATA

from kernel_tui.engine.counting import profiling
from kernel_tui.model.report.kernel import Kernel, nested_names
from kernel_tui.model.report.mode_result import ModeResult
from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.report.report_schema import checked_report
from kernel_tui.model.scenario.course import course_dir
from kernel_tui.model.scenario.expect import check_claims
from kernel_tui.model.scenario.scenario_file import read_scenario

GPU_CHECK = DATA / "gpu_check"
COURSE = GPU_CHECK / "h200_torch211_course.jsonl"
TRACES = GPU_CHECK / "h200_torch211_traces.tar.gz"
SPLIT_LESSONS = ("26_an_mlp_block", "27_why_kernels_stay_apart")
FORMS = pytest.mark.parametrize("legacy", [True, False], ids=["torch2.11", "torch>=2.12"])


@pytest.fixture(scope="module")
def traces(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("h200")
    with tarfile.open(TRACES) as archive:
        archive.extractall(folder, filter="data")
    return folder / "traces"


def recorded(lesson: str) -> ScenarioReport:
    for line in COURSE.read_text(encoding="utf-8").splitlines():
        report = ScenarioReport.from_dict(json.loads(line))
        if Path(report.scenario).stem == lesson:
            return report
    raise AssertionError(f"{lesson} is not in {COURSE.name}")


def replayed_rows(trace: Path, legacy: bool, monkeypatch: pytest.MonkeyPatch) -> list[Kernel]:
    """The kernel rows the engine makes of one mode's recorded trace."""
    monkeypatch.setattr(profiling, "profile", ReplayedProfiler(trace, legacy=legacy))
    monkeypatch.setattr(profiling, "l2_flush", lambda device: lambda: None)
    monkeypatch.setattr(profiling, "synchronize", lambda device: None)
    profiled = profiling.profile_launches(lambda: None, "cuda")
    assert profiled.note is None, profiled.note  # every profiled run launched the same kernels
    return profiling.kernel_rows(profiled.agreeing, [None] * len(profiled.reference), profiled.reference)


def line_map(report: ScenarioReport, lesson: Path) -> dict[int, int]:
    """Each line of the recorded file to the line of the lesson now holding the same code, where it is one line."""
    now = lesson.read_text(encoding="utf-8").splitlines()
    where = {text: number for number, text in enumerate(now, 1) if text.strip() and now.count(text) == 1}
    then = (report.source or "").splitlines()
    return {number: where[text] for number, text in enumerate(then, 1) if text in where}


def with_recorded_traffic(rows: list[Kernel], mode: ModeResult, lines: dict[int, int]) -> list[Kernel]:
    """Each row that is no library call with the bytes and lines of the recorded row of its name."""
    by_name = {kernel.name: kernel for kernel in mode.kernels}
    carried = []
    for row in rows:
        old = by_name.get(row.name)
        if row.library or old is None:
            carried.append(row)
            continue
        assert old.calls == row.calls, row.name  # the same kernel, launched as often: only library rows regroup
        carried.append(
            replace(
                row,
                bytes_read=old.bytes_read,
                bytes_written=old.bytes_written,
                aten_ops=old.aten_ops,
                lines=tuple(lines[line] for line in old.lines),
                line_calls=tuple((lines[line], calls) for line, calls in old.line_calls),
            )
        )
    return carried


def replayed_report(lesson: str, traces: Path, legacy: bool, monkeypatch: pytest.MonkeyPatch) -> ScenarioReport:
    report = recorded(lesson)
    eager, compiled = (
        replayed_mode(report, lesson, name, traces, legacy, monkeypatch) for name in ("eager", "compiled")
    )
    return replace(report, eager=eager, compiled=compiled)


def replayed_mode(
    report: ScenarioReport, lesson: str, name: str, traces: Path, legacy: bool, monkeypatch: pytest.MonkeyPatch
) -> ModeResult:
    mode = report.mode(name)
    assert mode is not None, f"{lesson}: no {name} result on the H200"
    lines = line_map(report, course_dir() / f"{lesson}.py")
    rows = with_recorded_traffic(replayed_rows(traces / f"{lesson}.{name}.json", legacy, monkeypatch), mode, lines)
    return replace(mode, kernels=tuple(rows), kernel_count=sum(row.calls for row in rows))


def test_the_recording_holds_the_split_the_lessons_once_failed() -> None:
    """The data this replay stands on: on the H200, 27 ran one more launch than claimed in each mode, 26 compiled."""
    failed = {lesson: {k for k, check in recorded(lesson).expect.items() if not check.ok} for lesson in SPLIT_LESSONS}
    assert failed == {SPLIT_LESSONS[0]: {"compiled"}, SPLIT_LESSONS[1]: {"eager", "compiled"}}


@FORMS
@pytest.mark.parametrize("lesson", SPLIT_LESSONS)
def test_the_lessons_hold_every_claim_on_the_recorded_h200(
    lesson: str, legacy: bool, traces: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = replayed_report(lesson, traces, legacy, monkeypatch)
    claims = read_scenario(course_dir() / f"{lesson}.py").claims_for("cuda")
    checks = check_claims(claims, report, swept=False)
    assert set(checks) == set(claims)
    failing = {key: (check.claimed, check.measured) for key, check in checks.items() if not check.ok}
    assert not failing, f"{lesson} on the recorded H200: {failing}"


@FORMS
@pytest.mark.parametrize("mode", ["eager", "compiled"])
def test_lesson_27s_product_is_one_call_of_two_kernels(
    mode: str, legacy: bool, traces: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = replayed_rows(traces / f"27_why_kernels_stay_apart.{mode}.json", legacy, monkeypatch)
    (product,) = [row for row in rows if row.library]
    assert (product.library, product.calls, product.launches) == ("aten::mm", 1, 2)
    first, second = product.library_kernels
    assert "execute_kernel" in first.name and "execute_split_k_kernel" in second.name
    assert first.launch is not None and second.launch is not None
    assert (first.launch.grid, second.launch.grid) == ((8, 8, 4), (8, 8, 1))  # K in four slices, then one pass
    assert product.split_words == "cuBLAS ran this product as 2 kernels: split-K"
    assert nested_names([product]) == ["mm: cuBLAS, 2 kernels, split-K"]
    # Every kernel is still shown: the calls count 4, the launches 5.
    assert sum(row.calls for row in rows) == 4 and sum(row.launches for row in rows) == 5


@FORMS
def test_lesson_26_compiled_splits_one_of_its_two_products(
    legacy: bool, traces: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = replayed_rows(traces / "26_an_mlp_block.compiled.json", legacy, monkeypatch)
    products = [row for row in rows if row.library]
    assert [(row.library, row.calls, len(row.library_kernels)) for row in products] == [
        ("aten::mm", 1, 1),
        ("aten::mm", 1, 2),
    ]
    assert products[0].split_words is None and products[1].split_words is not None
    assert [row.name for row in rows if not row.library] == [
        "triton_poi_fused_addmm_gelu_0",
        "triton_per_fused_add_addmm_native_layer_norm_1",
    ]


def test_a_replayed_report_keeps_its_library_calls_through_json(traces: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    report = replayed_report("27_why_kernels_stay_apart", traces, True, monkeypatch)
    data = json.loads(json.dumps(report.to_dict()))
    product = next(kernel for kernel in data["compiled"]["kernels"] if kernel["library"])
    assert [part["launch"]["grid"] for part in product["library_kernels"]] == [[8, 8, 4], [8, 8, 1]]
    again = ScenarioReport.from_dict(checked_report(data))
    assert again.compiled == report.compiled and again.eager == report.eager


@FORMS
@pytest.mark.parametrize("mode", ["eager", "compiled"])
def test_lesson_30s_product_is_the_one_the_h200_split(
    mode: str, legacy: bool, traces: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lesson 30 multiplies the two 256 × 256 matrices that lesson 27 does, which the H200 traces hold: there the
    product was one call of cuBLAS's two kernels in each mode. Its claims of one call hold on that product, and
    what it says ran (the grids, the row's name) is what the trace shows."""
    lesson, recorded_lesson = (
        course_dir() / "30_inside_a_library_call.py",
        course_dir() / "27_why_kernels_stay_apart.py",
    )
    shapes = [
        [tuple(tensor.shape) for tensor in runpy.run_path(str(path))["inputs"](read_scenario(path).size, "cpu")]
        for path in (lesson, recorded_lesson)
    ]
    assert shapes[0] == shapes[1] == [(256, 256), (256, 256)]
    rows = replayed_rows(traces / f"{recorded_lesson.stem}.{mode}.json", legacy, monkeypatch)
    product = tuple(row for row in rows if row.library)
    report = recorded(recorded_lesson.stem)
    measured = report.mode(mode)
    assert measured is not None
    only_the_product = replace(measured, kernels=product, kernel_count=sum(row.calls for row in product))
    claims = {key: value for key, value in read_scenario(lesson).claims_for("cuda").items() if key == mode}
    held = replace(report, eager=only_the_product) if mode == "eager" else replace(report, compiled=only_the_product)
    checks = check_claims(claims, held, swept=False)
    assert claims and all(check.ok for check in checks.values()), checks
    (row,) = product
    words = read_scenario(lesson).lesson
    assert f"`{nested_names([row])[0]}`" in words
    for kernel in row.library_kernels:
        assert kernel.launch is not None and kernel.launch.grid is not None
        assert " × ".join(map(str, kernel.launch.grid)) + " blocks" in words
