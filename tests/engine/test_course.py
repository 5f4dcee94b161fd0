"""The built-in course: every lesson's claims hold when the engine measures it, and every lesson keeps the
house rules (numbered in order, 80 to 250 words, a question before the explanation).

The claim tests run each scenario through a real engine, compiles included; the shared Inductor cache
(``tests/conftest.py``) makes every run after the first a cache hit. Torch is never imported here: the
engine is a child process, and whether a GPU exists is asked of an engine too.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import lesson_params, lesson_report, measure
from support.locations import DATA, REPO

from kernel_tui.model.report.compile_variants import COMPILE_KEYS
from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.scenario.course import course_dir
from kernel_tui.model.scenario.expect import NEEDS_SWEEP, check_claims
from kernel_tui.model.scenario.scenario_file import CLAIM_KEYS, ScenarioFileError, find_scenarios, read_scenario
from kernel_tui.transport.client import EngineClient
from kernel_tui.transport.engine_died import EngineDied
from kernel_tui.ui.state.course.score import split_lesson

NUMBERED = re.compile(r"^(\d{2})_[a-z0-9_]+\.py$")
MIN_LESSONS = 14
MIN_WORDS, MAX_WORDS = 80, 250
EXPLANATION = "**Why.**"
"""Where each lesson's explanation starts; the prediction questions come before it."""

COURSE = find_scenarios([course_dir()])
PREVIEW = DATA / "preview" / "course_sm90.jsonl"
CPU_RECORDING = DATA / "course_cpu.jsonl"
"""The course previewed for sm_90 (``tests/gpu/test_cuda_preview.py`` keeps it up to date): where Triton names are."""
SPOILER = re.compile(
    r"\b(?:no|one|two|three|four|five|six|seven|\d+)\s+(?:\w+\s+)?(?:kernels?|transfers?|compiles?|graphs?|operations?)\b"
    r"|\b(?:are free|makes a copy|kernels too|overhead is the work|library kernel|graph break|saves)\b",
    re.IGNORECASE,
)
"""A title that says what the learner is asked to predict: a count, or the lesson's conclusion."""
KERNEL_NAME = re.compile(r"^(?:cpp|triton)_\w*|^aten::\w+|^Memcpy \w+")
"""A generated kernel (``cpp_fused_add_relu_0``, ``triton_poi_...``), an operator or a copy, named anywhere."""
OP_NAME = re.compile(r"^_?[a-z][a-z0-9_]+$")
"""A bare operator name (``clone``, ``addmm``); checked in the explanation, where the lesson says what ran."""


def _ids(paths: list[Path]) -> list[str]:
    return [path.stem for path in paths]


def _failures(report: ScenarioReport) -> str:
    rows = [
        f"  {key}: claimed {check.claimed}, measured {check.measured}" + (f" ({check.reason})" if check.reason else "")
        for key, check in report.expect.items()
        if not check.ok
    ]
    return "\n".join(rows)


def _check_report(report: ScenarioReport, claims: dict[str, float], device: str) -> None:
    assert report.error is None, f"{report.error.one_line()}\n{report.error.details}"
    assert report.device == device
    assert set(report.expect) == set(claims), f"claims not checked: {set(claims) - set(report.expect)}"
    assert all(check.ok for check in report.expect.values()), (
        f"{Path(report.scenario).name} on {device}: claims that do not hold\n{_failures(report)}"
    )


# -- the files themselves ------------------------------------------------------------------------


def test_the_course_has_enough_lessons() -> None:
    assert len(COURSE) >= MIN_LESSONS, [path.name for path in COURSE]


def test_files_are_numbered_in_course_order() -> None:
    names = [path.name for path in COURSE]
    unnumbered = [name for name in names if not NUMBERED.match(name)]
    assert not unnumbered, f"every scenario in the course needs a number: {unnumbered}"
    numbers = [int(match.group(1)) for name in names if (match := NUMBERED.match(name))]  # all match: above
    assert numbers == list(range(1, len(names) + 1)), names


@pytest.mark.parametrize("path", COURSE, ids=_ids(COURSE))
def test_lesson_asks_first_and_fits_the_length(path: Path) -> None:
    info = read_scenario(path)
    assert info.has_fn and info.has_inputs
    assert info.title and info.title != path.stem, "the first docstring line is the title"
    words = len(info.lesson.split())
    assert MIN_WORDS <= words <= MAX_WORDS, f"{path.name}: {words} words"
    question, marker, explanation = info.lesson.partition(EXPLANATION)
    assert marker, f"{path.name}: the explanation starts with {EXPLANATION}"
    assert "?" in question, f"{path.name}: ask the learner to predict before explaining"
    assert explanation.strip()


@pytest.mark.parametrize("path", COURSE, ids=_ids(COURSE))
def test_every_lesson_makes_claims_for_both_devices(path: Path) -> None:
    info = read_scenario(path)
    assert info.expect, f"{path.name}: a lesson without EXPECT checks nothing"
    assert info.claims_for("cpu"), f"{path.name}: no claims for CPU"
    assert info.claims_for("cuda"), f"{path.name}: no claims for CUDA"


def test_list_shows_the_course_in_order(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from kernel_tui.commands.cli import main

    monkeypatch.setenv("COLUMNS", "400")  # one row per line, so titles are not wrapped
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    positions = []
    for path in COURSE:
        title = read_scenario(path).title
        assert title in out, f"{title!r} missing from kernel-tui list"
        positions.append(out.index(title))
    assert positions == sorted(positions)


def test_readme_documents_every_key() -> None:
    readme = (Path(course_dir()) / "README.md").read_text(encoding="utf-8")
    for key in (*CLAIM_KEYS, *COMPILE_KEYS, "SIZE", "SIZES", "EXPECT", "COMPILE", "def fn", "def inputs"):
        assert f"`{key}" in readme, key


@pytest.mark.parametrize("path", COURSE, ids=_ids(COURSE))
def test_title_names_the_topic_not_the_answer(path: Path) -> None:
    """The title is on screen before the prediction: it must not say how many kernels, or what happens."""
    title = read_scenario(path).title
    spoiler = None if title.endswith("?") else SPOILER.search(title)
    assert spoiler is None, f"{path.name}: the title {title!r} gives the answer away ({spoiler.group(0)!r})"


# -- the kernels a lesson names ---------------------------------------------------------------------------


def named_kernels(path: Path) -> tuple[list[str], list[str]]:
    """(kernel and operator names anywhere in the lesson, bare operator names in its explanation).

    Only names in backticks count; code (``.view()``, ``x @ w``, ``dynamic=False``) and the scenario's own
    names (``x``, ``bias``, ``fn``) are not kernel names. A trailing ``...`` or ``_`` leaves a prefix.
    """
    source = path.read_text(encoding="utf-8")
    lesson = read_scenario(path).lesson
    own = {node.id for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Name)}
    own |= {node.arg for node in ast.walk(ast.parse(source)) if isinstance(node, ast.arg)}
    own |= {node.name for node in ast.walk(ast.parse(source)) if isinstance(node, ast.FunctionDef)}
    kernels = [name.removesuffix("...") for name in re.findall(r"`([^`]+)`", lesson) if KERNEL_NAME.match(name)]
    _, why, _ = split_lesson(lesson)
    ops = [
        name
        for name in re.findall(r"`([^`]+)`", why)
        if OP_NAME.match(name) and len(name) > 1 and name not in own and not KERNEL_NAME.match(name)
    ]
    return kernels, ops


def _measured_names(kernels: list[dict[str, Any]]) -> list[str]:
    return [*(kernel["name"] for kernel in kernels), *(op for kernel in kernels for op in kernel["aten_ops"])]


def _finds(name: str, measured: list[str]) -> bool:
    """A kernel name (or its prefix) within a measured name, or an operator among the ops and fused names."""
    if KERNEL_NAME.match(name):
        return any(name in found for found in measured)
    return any(f"_{name}_" in f"_{found.replace('aten::', '').split('.')[-1]}_" for found in measured)


def _preview_names(path: Path) -> list[str]:
    if read_scenario(path).train:
        return []  # a training step is not previewed (engine/stages/training.py): its names are checked on CPU only
    for line in PREVIEW.read_text(encoding="utf-8").splitlines():
        report = json.loads(line)
        if Path(report["scenario"]).name == path.name:
            return _measured_names(report["eager"]["kernels"] + report["compiled"]["kernels"])
    raise AssertionError(f"{path.name} is not in {PREVIEW.name}: regenerate it (tests/gpu/test_cuda_preview.py)")


def test_named_kernels_are_found_in_text() -> None:
    lesson = Path(course_dir()) / "10_after_a_reduction.py"
    kernels, ops = named_kernels(lesson)
    assert kernels == ["triton_poi_fused_mean_sub_2", "cpp_fused_mean_sub_"]
    assert ops == []
    assert named_kernels(Path(course_dir()) / "05_contiguous_copies.py") == (["aten::contiguous"], ["clone"])
    assert _finds("cpp_fused_mean_sub_", ["graph_3_cpp_fused_mean_sub_0"])
    assert _finds("copy_", ["graph_1_cpp_fused_add_copy__0"]) and _finds("mm", ["extern_kernels.mm"])
    assert not _finds("mm", ["aten::addmm"]) and not _finds("cpp_fused_div_0", ["graph_2_cpp_fused_cos_div_0"])


@pytest.mark.parametrize("path", COURSE, ids=_ids(COURSE))
def test_triton_names_in_a_lesson_are_in_the_preview(path: Path) -> None:
    """A Triton kernel a lesson names is one Inductor generates for sm_90 (the recorded preview)."""
    measured = _preview_names(path)
    missing = [name for name in named_kernels(path)[0] if name.startswith("triton_") and not _finds(name, measured)]
    assert not missing, f"{path.name} names kernels the preview does not generate: {missing}\n{measured}"


def _recorded(recording: Path, name: str) -> ScenarioReport:
    for line in recording.read_text(encoding="utf-8").splitlines():
        if Path(json.loads(line)["scenario"]).name == name:
            return ScenarioReport.from_dict(json.loads(line))
    raise AssertionError(f"{name} is not in {recording.name}")


def test_tuned_operations_count_what_the_variants_tuned_never_the_winner() -> None:
    """Lesson 32's ``variants_tuned_ops`` counts the operations its max-autotune variant timed candidates for (one
    bmm, on the engine's recorded CPU run): a report without the variant fails it, one whose variant tuned nothing
    measures 0, and the sm_90 preview, which compiles with max-autotune off, lists it as not checked."""
    claims = {"variants_tuned_ops": 1.0}
    cpu = _recorded(CPU_RECORDING, "32_autotune.py")
    (held,) = check_claims(claims, cpu, swept=False).values()
    assert held.ok is True and held.measured == 1, held
    (operation,) = cpu.variants["autotune"].autotune
    assert operation.operation == "bmm" and len(operation.choices) >= 2
    (without,) = check_claims(claims, replace(cpu, variants={}), swept=False).values()
    assert without.ok is False and without.measured is None, without
    untuned = {"autotune": replace(cpu.variants["autotune"], autotune=())}
    (nothing,) = check_claims(claims, replace(cpu, variants=untuned), swept=False).values()
    assert nothing.ok is False and nothing.measured == 0, nothing
    preview = _recorded(PREVIEW, "32_autotune.py")
    assert "variants_tuned_ops" not in preview.expect
    assert any(line.startswith("claim not checked: variants_tuned_ops (claimed 1): ") for line in preview.assumptions)


def test_claims_about_a_module_read_what_its_own_launches_did() -> None:
    """Lesson 33's claims about ``model.lm_head`` hold on the engine's recorded runs, CPU and sm_90 preview, and fail
    when broken: another module claimed as the one that computes the most, a percent two points off. A report whose
    rows of several modules were shared out by launches (``module_work`` left out, as before it was measured) has
    no eager FLOPs of the lm_head to grade: its ``aten::linear`` row's ninth part is no measurement."""
    name = "33_a_models_hotspot.py"
    for recording, device in ((CPU_RECORDING, "cpu"), (PREVIEW, "cuda")):
        report = _recorded(recording, name)
        claims = read_scenario(REPO / "scenarios" / name).claims_for(device)
        held = check_claims(claims, report, swept=False)
        assert all(check.ok for check in held.values()), {key: check for key, check in held.items() if not check.ok}
        broken = {
            "compiled_hotspot_flops_model-blocks-1-mlp-up": 1.0,
            "eager_hotspot_bytes_model-blocks-0-attn-qkv": 1.0,
            "compiled_flops_percent_model-lm_head": 73.0,
            "eager_bytes_percent_model-blocks-0-mlp-up": 54.0,
        }
        failed = check_claims(broken, report, swept=False)
        assert [check.ok for check in failed.values()] == [False] * 4, failed
        assert failed["compiled_hotspot_flops_model-blocks-1-mlp-up"].measured == 0
        assert failed["compiled_flops_percent_model-lm_head"].measured == pytest.approx(71, abs=0.01)
    cpu = _recorded(CPU_RECORDING, name)
    assert cpu.eager is not None
    shared = replace(cpu.eager, kernels=tuple(replace(kernel, module_work=()) for kernel in cpu.eager.kernels))
    (unmeasured,) = check_claims(
        {"eager_flops_percent_model-lm_head": 71.0}, replace(cpu, eager=shared), swept=False
    ).values()
    assert unmeasured.ok is False and unmeasured.measured is None


def test_a_claim_about_a_module_names_it_as_the_explorers_box_can(tmp_path: Path) -> None:
    """A module claim names its kind and the module's path with a ``-`` for each ``.``
    (``compiled_hotspot_flops_model-lm_head``): the key names the predict dialog's box too, and a box's name takes
    no ``.`` (the explorer crashed on ``predict-eager_hotspot_flops_model.lm_head``). A dotted path or a kind the
    reader does not know is refused with the line and the kinds it does."""
    lesson = tmp_path / "lesson.py"
    for key in ("compiled_hotspot_model-lm_head", "compiled_hotspot_flops_model.lm_head"):
        lesson.write_text(f"EXPECT = {{{key!r}: 1}}\n\ndef fn(x):\n    return x\n")
        with pytest.raises(
            ScenarioFileError, match=rf"unknown claim '{re.escape(key)}'.*hotspot_flops_MODULE"
        ) as error:
            read_scenario(lesson)
        assert error.value.line == 1
    lesson.write_text('EXPECT = {"cuda": {"eager_bytes_percent_model-h-0-attn": 12.5}}\n')
    assert read_scenario(lesson).claims_for("cuda-preview") == {"eager_bytes_percent_model-h-0-attn": 12.5}


# -- the claims, measured --------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("path", lesson_params(COURSE))
def test_claims_hold_on_cpu(engine: EngineClient, path: Path) -> None:
    # A claim about the sweep is measured however busy the machine: the tests' sweeps have no budget to speak
    # of (conftest); a claim the budget leaves unmeasured is tested in test_faults.
    claims = read_scenario(path).claims_for("cpu")
    assert claims
    _check_report(lesson_report(engine, path), claims, "cpu")


@pytest.mark.slow
@pytest.mark.parametrize("path", lesson_params(COURSE))
def test_kernels_a_lesson_names_run_on_cpu(engine: EngineClient, path: Path) -> None:
    """Every kernel and operator a lesson names is in its measurement: CPU names on CPU, GPU ones in the preview."""
    report = lesson_report(engine, path)
    assert report.eager is not None and report.compiled is not None, report.error
    kernels = report.eager.kernels + report.compiled.kernels
    cpu = _measured_names([{"name": kernel.name, "aten_ops": kernel.aten_ops} for kernel in kernels])
    gpu = _preview_names(path)
    named, ops = named_kernels(path)
    missing = [name for name in named if not name.startswith("triton_") and not _finds(name, cpu + gpu)]
    missing += [name for name in ops if not _finds(name, cpu + gpu)]
    assert not missing, f"{path.name} names what its measurement does not show: {missing}\nCPU: {cpu}\nGPU: {gpu}"


@pytest.mark.engine
@pytest.mark.xdist_group(COURSE[1].stem)  # beside lesson 02's own measurement, whose compile it then finds cached
def test_a_lesson_writes_nothing_on_stderr_but_its_own() -> None:
    """Torch's own chatter is not the learner's news. Torch 2.10 to 2.12 warned at every profile that events are
    cleared "at the end of each cycle" (a profiler schedule's, which the engine never uses); a fresh engine per
    lesson printed it once per lesson in ``kernel-tui run`` and the explorer's engine log (``make test`` runs this on
    torch 2.11.0 too)."""
    lines: list[str] = []
    with EngineClient("cpu", stderr_sink=lines.append) as client:
        report = measure(client, COURSE[1])
    assert report.error is None, report.error
    assert lines == []


@pytest.fixture(scope="module")
def cuda_engine() -> Iterator[EngineClient]:
    """An engine on the GPU; where torch sees none, the engine refuses to start and the tests skip."""
    client = EngineClient("cuda")
    try:
        client.start()
    except EngineDied as death:
        client.close()
        if "sees no CUDA device" in death.stderr_tail:
            pytest.skip("no CUDA device: torch.cuda.is_available() is false in the engine")
        pytest.fail(f"the CUDA engine did not start: {death.describe()}\n{death.stderr_tail}")
    with client:
        yield client


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.parametrize("path", COURSE, ids=_ids(COURSE))
def test_claims_hold_on_cuda(cuda_engine: EngineClient, path: Path) -> None:
    claims = read_scenario(path).claims_for("cuda")
    assert claims
    report = measure(cuda_engine, path, sweep=bool(NEEDS_SWEEP & set(claims)))
    _check_report(report, claims, "cuda")
