"""The CUDA preview: every course lesson's CUDA claims checked on the code Inductor generates for sm_90, on a
machine without a GPU; the JSON shape; usage errors; refusing an unchecked torch; and a CPU compile in the same
process untouched by the preview's patches.

One engine serves every scenario (about 0.1-0.3 s each once warm). Claims a preview cannot decide are not
skipped silently: each is listed in its report's assumptions, and here as a warning in the test output.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from conftest import WriteScenario, measure, overdue, within
from support.locations import REPO
from support.warnings_shown import PreviewUndecided

from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.scenario.course import course_dir
from kernel_tui.model.scenario.expect import UNDECIDED_IN_PREVIEW
from kernel_tui.model.scenario.scenario_file import (
    CLAIM_KEYS,
    LINE_CLAIMS,
    MODULE_CLAIMS,
    find_scenarios,
    read_scenario,
)
from kernel_tui.transport.client import EngineClient
from kernel_tui.transport.engine_died import EngineDied

COURSE = find_scenarios([course_dir()])
"""Every lesson: a training step (``TRAIN = True``) is previewed too, traced on the CPU (``preview_training``)."""
RECORDED = REPO / "tests" / "data" / "preview" / "course_sm90.jsonl"
"""The course previewed for sm_90, which ``make gpu-check`` compares a GPU with where its torch cannot preview;
regenerate with ``kernel-tui run scenarios/ --device cuda-preview --arch 90 --json > tests/data/preview/...``."""
DECIDED = tuple(key for key in CLAIM_KEYS if key not in UNDECIDED_IN_PREVIEW)
"""What a preview checks: every claim but those only a sweep or the compile caches can check."""


@pytest.mark.parametrize("path", COURSE, ids=[path.stem for path in COURSE])
def test_course_cuda_claims_hold_in_the_preview(preview_engine: EngineClient, path: Path) -> None:
    claims = read_scenario(path).claims_for("cuda")
    report = measure(preview_engine, path)
    assert report.error is None, f"{report.error.one_line()}\n{report.error.details}"
    assert (report.device, report.arch) == ("cuda-preview", 90)
    decided = {key for key in claims if key in DECIDED or LINE_CLAIMS.match(key) or MODULE_CLAIMS.match(key)}
    assert set(report.expect) == decided
    failing = {key: (check.claimed, check.measured) for key, check in report.expect.items() if not check.ok}
    assert not failing, f"{path.name}: CUDA claims the preview contradicts (claimed, previewed): {failing}"
    for key in set(claims) - decided:
        listed = [line for line in report.assumptions if line.startswith(f"claim not checked: {key} ")]
        assert listed, f"{path.name}: the undecided claim {key} is not listed in the report"
        warnings.warn(f"{path.name}: {listed[0]}", PreviewUndecided, stacklevel=1)
    assert report.eager is not None and report.compiled is not None
    assert report.eager.time_us is None and report.compiled.time_us is None
    assert _compiled(report) == _compiled(_recorded()[path.name]), f"{RECORDED.name} is out of date"
    assert all(kernel.time_us is None for kernel in report.compiled.kernels + report.eager.kernels)


def test_every_course_lesson_claims_compiled_kernels_for_cuda() -> None:
    """Lessons 09-15 used to claim compiled counts on the CPU only; the preview decides them for CUDA."""
    forward_only = [path for path in COURSE if not read_scenario(path).train]
    missing = [path.name for path in forward_only if "compiled" not in read_scenario(path).claims_for("cuda")]
    assert not missing, missing


def _recorded() -> dict[str, ScenarioReport]:
    reports = (ScenarioReport.from_dict(json.loads(line)) for line in RECORDED.read_text().splitlines())
    return {Path(report.scenario).name: report for report in reports}


def _compiled(report: ScenarioReport) -> list[tuple[str, float]]:
    assert report.compiled is not None
    return [(kernel.name, kernel.calls) for kernel in report.compiled.kernels]


def test_tensors_made_from_python_data_on_the_device_inside_fn_compile(preview_engine: EngineClient) -> None:
    """A Hugging Face causal LM's forward (its cache's ``torch.tensor([], device=...)``) and nanoGPT's
    (``x[:, [-1], :]``) failed to compile in the preview, "Found no NVIDIA driver": AOT autograd computed such
    constants for real on the device."""
    report = measure(preview_engine, REPO / "tests" / "data" / "constants_on_the_device.py", size=4096)
    assert report.error is None, report.error
    assert report.compiled is not None
    assert [kernel.name for kernel in report.compiled.kernels] == ["triton_poi_fused__to_copy_index_relu_view_0"]


def test_a_training_step_with_constants_on_the_device_compiles_forward_and_backward(
    preview_engine: EngineClient, write_scenario: WriteScenario
) -> None:
    """nanoGPT's training step as published failed in the preview twice over on its index ``[-1]``, a real
    constant of the graphs: AOT autograd copied backward's graph inside the fake mode to compile it, and the
    forward graph handed the constant, real, to a library call among fakes."""
    source = (REPO / "tests" / "data" / "constants_on_the_device.py").read_text()
    report = measure(preview_engine, write_scenario(source + "\nTRAIN = True\n"), size=4096)
    assert report.error is None, report.error
    assert report.compiled is not None
    assert {kernel.section for kernel in report.compiled.kernels} == {"forward", "backward"}


def test_add_relu_is_one_fused_pointwise_kernel(preview_engine: EngineClient) -> None:
    report = measure(preview_engine, course_dir() / "02_add_relu.py", size=4096)
    assert _compiled(report) == [("triton_poi_fused_add_relu_0", 1)]
    assert report.compiled is not None
    kernel = report.compiled.kernels[0]
    assert (kernel.bytes_read, kernel.bytes_written) == (2 * 4096 * 4, 4096 * 4), "reads two arrays, writes one"
    assert kernel.code is not None and "@triton.jit" in kernel.code
    # The relu: torch 2.14 writes tl.maximum, 2.12 its own triton_helpers.maximum.
    assert re.search(r"\b(tl|triton_helpers)\.maximum\(", kernel.code), kernel.code
    assert kernel.aten_ops == ("aten::add", "aten::relu")
    assert report.signature == "a: (4096,) float32, b: (4096,) float32 → (4096,) float32", "shapes, as measured"


def test_the_gpu_differs_where_the_course_says(preview_engine: EngineClient) -> None:
    """At each lesson's SIZE for sm_90: a large reduction is split in two; a matmul stays a library call."""
    course = Path(course_dir())
    assert _compiled(measure(preview_engine, course / "09_sum_of_squares.py")) == [
        ("triton_red_fused_mul_sum_0", 1),
        ("triton_per_fused_mul_sum_1", 1),
    ]
    assert [name for name, _ in _compiled(measure(preview_engine, course / "10_after_a_reduction.py"))] == [
        "triton_red_fused_mean_0",
        "triton_per_fused_mean_1",
        "triton_poi_fused_mean_sub_2",
    ]
    assert _compiled(measure(preview_engine, course / "14_matmul_bias_relu.py")) == [
        ("extern_kernels.mm", 1),
        ("triton_poi_fused_add_relu_0", 1),
    ]
    host = measure(preview_engine, course / "19_host_and_device.py")
    assert host.compiled is not None
    assert [(k.kind, k.short_name) for k in host.compiled.kernels] == [
        ("kernel", "triton_poi_fused__to_copy_mul_0"),
        ("memcpy", "memcpy DtoH"),
    ]
    assert host.array_bytes is not None
    assert host.compiled.kernels[1].bytes_total == 2 * host.array_bytes


def test_the_graph_break_lesson_really_divides(preview_engine: EngineClient) -> None:
    """Lesson 15 divides by a value read back with ``.item()``: the second graph's kernel divides by it (a
    stand-in of 1.0 for that value, or a peak that is always 1.0, made the division vanish)."""
    report = measure(preview_engine, Path(course_dir()) / "15_graph_break.py")
    assert report.compiled is not None
    last = report.compiled.kernels[-1]
    assert last.short_name == "triton_poi_fused_cos_div_0" and "aten::div" in last.aten_ops
    assert last.code is not None
    after_cos = last.code.split("tl_math.cos(", 1)[1]
    assert " * " in after_cos or " / " in after_cos, "the cosine is stored without being divided"


@pytest.mark.engine
def test_json_has_the_usual_shape_with_device_arch_and_assumptions(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "kernel_tui",
            "run",
            str(course_dir() / "15_graph_break.py"),
            "--device",
            "cuda-preview",
            "--arch",
            "80",
            "--size",
            "1048576",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    data = json.loads(result.stdout.splitlines()[0])
    assert (data["device"], data["arch"]) == ("cuda-preview", 80) and "A100" in data["device_name"]
    assert any("`.item()`" in line for line in data["assumptions"])
    for mode in ("eager", "compiled"):
        assert {"kernel_count", "kernels", "bytes_total", "transfers", "time_us"} <= set(data[mode])
        assert data[mode]["time_us"] is None
    assert data["compiled"]["graph_breaks"] == 1
    kinds = [(kernel["kind"], kernel["short_name"]) for kernel in data["compiled"]["kernels"]]
    assert ("memcpy", "memcpy DtoH") in kinds, "the .item() between the graphs is a device-to-host copy"
    assert data["speedup"] is None and data["sweep"] == []
    # The tables and the lab report say "preview" where a measurement would show a time.
    from rich.console import Console

    from kernel_tui.text.markdown_report import scenario_markdown
    from kernel_tui.text.render import scenario_view

    report = ScenarioReport.from_dict(data)
    console = Console(record=True, width=160)
    console.print(scenario_view(report, 160))
    text = console.export_text()
    assert "compile preview · speedup preview" in text and "µs" not in text
    assert "| `memcpy DtoH` | 1 | preview |" in scenario_markdown(report)


@pytest.mark.parametrize(
    "argv",
    [
        ["--device", "cuda-preview", "--arch", "70"],
        ["--device", "cpu", "--arch", "90"],
        ["--arch", "100"],
    ],
)
def test_arch_usage_errors_exit_2(argv: list[str]) -> None:
    from kernel_tui.commands.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["run", str(course_dir() / "02_add_relu.py"), *argv])
    assert exit_info.value.code == 2


# -- in this process: refusing, restoring (torch is imported from here on) -------------------------------------


def test_refuses_where_a_patch_would_miss_its_target_or_on_a_cpu_only_build(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    from kernel_tui.engine.preview import preview_support

    preview_support.check_preview()  # this torch has every piece
    missing = "torch._inductor.fx_passes.pad_mm._no_such_piece"
    monkeypatch.setattr(preview_support, "TORCH_TARGETS", (*preview_support.TORCH_TARGETS, missing))
    refusal = rf"it patches {re.escape(missing)}, which is not there"
    with pytest.raises(preview_support.PreviewUnavailable, match=refusal):
        preview_support.check_preview()
    monkeypatch.undo()
    target = "torch._inductor.fx_passes.pad_mm._should_pad"
    monkeypatch.setitem(preview_support.STAND_IN_PARAMETERS, target, ("match", "mat1", "mat2", "op", "renamed"))
    with pytest.raises(preview_support.PreviewUnavailable, match=rf"{re.escape(target)} takes \(match, mat1"):
        preview_support.check_preview()
    monkeypatch.undo()
    monkeypatch.setattr(torch.version, "cuda", None)
    with pytest.raises(preview_support.PreviewUnavailable, match="needs the CUDA build of torch"):
        preview_support.check_preview()


@pytest.mark.engine  # compiles in the test process
def test_a_cpu_compile_after_a_preview_is_untouched() -> None:
    import torch
    from torch._inductor.utils import run_and_get_code
    from torch._subclasses.fake_tensor import FakeTensorMode
    from triton.runtime.driver import driver

    from kernel_tui.engine.preview.preview_codegen import generate_for_gpu

    def fn(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return (a + b).relu()

    available, active = torch.cuda.is_available(), driver._active
    with FakeTensorMode():
        args = (torch.randn(1024, device="cuda"), torch.randn(1024, device="cuda"))
    code = generate_for_gpu(fn, args, 90)
    assert [record.name for record in code.records] == ["triton_poi_fused_add_relu_0"]
    assert (torch.cuda.is_available(), driver._active) == (available, active)
    torch._dynamo.reset()
    with torch.no_grad():
        result, sources = run_and_get_code(torch.compile(fn), torch.ones(8), torch.ones(8))
    assert torch.equal(result, torch.full((8,), 2.0))
    assert "cpp_fused_add_relu_0" in sources[0] and "triton" not in sources[0]


@pytest.mark.engine
async def test_the_explorer_shows_a_preview() -> None:
    """``kernel-tui --device cuda-preview``: the explorer's engine generates for the GPU; no time, no crash."""
    import time

    from support.ui_support import ADD_RELU

    from kernel_tui.ui.app.app import KernelTuiApp
    from kernel_tui.ui.state.course.catalog import load_catalog
    from kernel_tui.ui.state.run_state import RunStatus
    from kernel_tui.ui.widgets.kernel_table import KernelTable

    app = KernelTuiApp(load_catalog([ADD_RELU], course=None), device="cuda-preview")
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("r")
        explorer = app.get_explorer()
        started = time.monotonic()
        assert explorer is not None
        while explorer.runs[ADD_RELU].running:
            assert not overdue(started, 300), "no preview within 300 s (scaled by the machine's pace)"
            await pilot.pause(0.2)
        await pilot.pause()
        run = explorer.runs[ADD_RELU]
        assert run.status is RunStatus.DONE, run.record.error
        compiled = explorer.query_one("#compiled", KernelTable)
        assert [kernel.name for kernel in compiled.kernels] == ["triton_poi_fused_add_relu_0"]
        # Each run has an engine of its own: a run asked for before the first engine was ready leaves the
        # explorer waiting for the next one's hello, which comes from the same device.
        while explorer.hello is None:
            assert not overdue(started, 300), "no engine said hello within 300 s (scaled by the machine's pace)"
            await pilot.pause(0.2)
        assert explorer.hello.device == "cuda-preview"
        cells = [str(cell) for cell in compiled.get_row_at(0)]
        assert "preview" in cells, cells


@pytest.mark.engine  # Inductor's code generation, in this process
def test_what_a_gpu_would_measure_is_an_assumption() -> None:
    """SDPA's backend, pad_mm's benchmark and training graphs: decided without a GPU, and said so."""
    import torch
    import torch.nn.functional as F
    from torch._subclasses.fake_tensor import FakeTensorMode

    from kernel_tui.engine.preview.preview_codegen import generate_for_gpu

    with FakeTensorMode():
        q, k, v = (torch.randn(2, 8, 256, 64, device="cuda", dtype=torch.float16) for _ in range(3))
        a = torch.randn(1025, 1027, device="cuda", dtype=torch.float16, requires_grad=True)
        b = torch.randn(1027, 1029, device="cuda", dtype=torch.float16)
    notes: list[str] = []
    attention = generate_for_gpu(
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), (q, k, v), 90, notes=notes
    )
    assert [r.name for r in attention.records] == ["aten::_scaled_dot_product_flash_attention"]
    matmul = generate_for_gpu(lambda a, b: (a @ b).relu(), (a, b), 90, notes=notes)
    assert [r.call or r.name for r in matmul.records] == ["extern_kernels.mm", "triton_poi_fused_relu_0"]
    assert any(note.startswith("SDPA backend") and note.endswith("flash") for note in notes), notes
    assert any(note.startswith("pad_mm: aten.mm 1025×1027×1029 float16") for note in notes), notes
    assert any(note.startswith("training: ") for note in notes), notes


@pytest.mark.engine  # boots the engine through a file of its own
def test_an_engine_that_refuses_says_why(tmp_path: Path) -> None:
    """What the CLI and the explorer report when the preview refuses this torch: the engine's own reason."""
    boot = tmp_path / "boot.py"
    boot.write_text(
        "from kernel_tui.engine.preview import preview_support\n"
        "preview_support.TORCH_TARGETS += ('torch._inductor.no_such_piece',)\n"
        "from kernel_tui.engine.__main__ import main\n"
        "main()\n"
    )
    client = EngineClient(
        command=[sys.executable, str(boot), "--device", "cuda-preview"], env={**os.environ, "PYTHONPATH": str(REPO)}
    )
    with client, pytest.raises(EngineDied) as death:
        client.start(timeout=within(120))  # the refusal must come before a busy machine's start times out
    assert death.value.describe().startswith("the engine exited with code 3: --device cuda-preview cannot fake a GPU")
    assert death.value.refusal.endswith("it patches torch._inductor.no_such_piece, which is not there")


def test_inputs_left_on_the_cpu_are_an_inputs_error_not_eager_0(
    preview_engine: EngineClient, write_scenario: WriteScenario
) -> None:
    on_the_cpu = write_scenario(
        "import torch\nSIZE = 4096\n\ndef fn(a):\n    return (a + 1).relu()\n\n"
        "def inputs(size, device):\n    return (torch.randn(size),)\n",
        name="ignores_the_device.py",
    )
    report = measure(preview_engine, on_the_cpu)
    assert report.error is not None and report.error.stage == "inputs", report.error
    assert "on the CPU" in report.error.message and "device=device" in report.error.message
    assert report.error.line == 7, "the line of inputs()"
    moved_in_fn = write_scenario(
        "import torch\nSIZE = 4096\n\ndef fn(a):\n    return (a.cuda() + 1).relu()\n\n"
        "def inputs(size, device):\n    return (torch.randn(size),)\n",
        name="moves_it_itself.py",
    )
    moved = measure(preview_engine, moved_in_fn)
    assert moved.error is None and moved.eager is not None
    assert [kernel.short_name for kernel in moved.eager.kernels][0] == "memcpy HtoD"
