"""Models, not toy functions: scenarios built from ``nn.Module``s (at module level and passed from ``inputs()``)
measured on the CPU and previewed for every GPU architecture, on models the course does not contain
(``tests/data/modules/``): a residual MLP block, a transformer encoder layer and a conv + batch-norm + ReLU block.

Each must run without error; a library call is credited only with the operators whose bytes it moved (a residual
``add`` belongs to the layer norm's kernel, not to the ``addmm``); its matmul's FLOPs are known; the ideal reads
every parameter and buffer once. The preview's Triton kernels are those its own CUDA wrapper launches.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
import torch
from conftest import WriteScenario, measure
from support.locations import REPO
from torch import nn

from kernel_tui.engine.stages.scenario_weights import global_names, on_device, place_weights, used_weights
from kernel_tui.model.report.kernel import Kernel
from kernel_tui.model.report.module_table import kernel_work
from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.scenario.model_scenario import ModelSpecError, parse_input, parse_model, write_model_scenario
from kernel_tui.transport.client import EngineClient

MODELS = REPO / "tests" / "data" / "modules"
MLP, ENCODER, CONV = MODELS / "residual_mlp.py", MODELS / "encoder_passed.py", MODELS / "conv_block.py"
SIZE = 2**16
LIBRARY = re.compile(r"^(aten::(addmm|mm|bmm|convolution)|extern_kernels\.\w+)$")
"""The rows of a compiled table that are library calls rather than generated kernels."""


def _parameter_bytes(*modules: nn.Module) -> int:
    tensors = {id(t): t for module in modules for t in [*module.parameters(), *module.buffers()]}
    return sum(t.numel() * t.element_size() for t in tensors.values())


IDEAL_WITHOUT_WEIGHTS = {MLP: 2 * SIZE * 4, ENCODER: 2 * SIZE * 4, CONV: 3 * SIZE * 4}
"""One float32 input of ``SIZE`` elements read and the output written: as large, or twice (16 channels from 8)."""


def _expected_weight_bytes(path: Path) -> int:
    if path == MLP:
        return _parameter_bytes(nn.Linear(128, 512), nn.Linear(512, 128), nn.LayerNorm(128))
    if path == ENCODER:
        return _parameter_bytes(nn.TransformerEncoderLayer(64, 4, dim_feedforward=128, batch_first=True))
    return _parameter_bytes(nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16))


def _library_rows(report: ScenarioReport) -> list[Kernel]:
    assert report.compiled is not None
    return [kernel for kernel in report.compiled.kernels if LIBRARY.match(kernel.name)]


def _check_model(report: ScenarioReport, path: Path) -> None:
    assert report.error is None, f"{report.error.one_line()}\n{report.error.details}"
    assert report.eager is not None and report.compiled is not None
    assert report.ideal_bytes == IDEAL_WITHOUT_WEIGHTS[path] + _expected_weight_bytes(path)
    library = _library_rows(report)
    assert library, "each of these models runs a library matmul or convolution compiled"
    eager_ops = {op for kernel in report.eager.kernels for op in kernel.aten_ops}
    for row in library:
        credited = set(row.aten_ops) & eager_ops
        assert credited <= {"aten::addmm", "aten::mm", "aten::bmm", "aten::convolution"}, (
            f"{row.name} is credited with {sorted(credited)}: an elementwise operator's bytes are another kernel's"
        )
        assert row.flops, f"{row.name}: a library matmul's or convolution's FLOPs follow from its shapes"
    if path == MLP:
        add = next(kernel for kernel in report.eager.kernels if kernel.aten_ops == ("aten::add",))
        by_short_name = {kernel.short_name: kernel.name for kernel in report.compiled.kernels}
        takers = [by_short_name[name] for name in add.fused_into]
        assert takers and all("add" in name and "layer_norm" in name for name in takers), takers
        eager_matmul = next(kernel for kernel in report.eager.kernels if "aten::addmm" in kernel.aten_ops)
        assert eager_matmul.flops == 2 * 2 * (SIZE // 128) * 128 * 512, "two linears, 2·M·N·K each"
        matmul_rows = [row for row in library if row.flops]
        assert sum(row.flops or 0 for row in matmul_rows) == eager_matmul.flops
    if path == CONV:
        assert [row.flops for row in library if row.flops] == [2 * (SIZE // 2048) * 16 * 16 * 16 * 8 * 9]


@pytest.mark.parametrize("arch", [80, 90, 100])
@pytest.mark.parametrize("path", [MLP, ENCODER, CONV], ids=["mlp", "encoder", "conv"])
def test_models_preview_for_every_architecture(preview_engine: EngineClient, path: Path, arch: int) -> None:
    report = measure(preview_engine, path, size=SIZE, arch=arch)
    assert report.arch == arch
    _check_model(report, path)
    assert report.compiled is not None
    assert any(kernel.name.startswith("triton_") for kernel in report.compiled.kernels)
    # Forward only: parameters that require grad are no training step.
    assert not any(line.startswith("training:") for line in report.assumptions)


@pytest.mark.parametrize("path", [MLP, ENCODER, CONV], ids=["mlp", "encoder", "conv"])
def test_models_measure_on_the_cpu(engine: EngineClient, path: Path) -> None:
    report = measure(engine, path, size=SIZE)
    _check_model(report, path)
    assert report.eager is not None
    assert report.eager.bytes_total == _dispatched_bytes(path), "each byte the dispatcher saw is on some row"


def _dispatched_bytes(path: Path) -> int:
    """What the model's eager operators move as a dispatch mode counts them, run here in the test's process."""
    from kernel_tui.engine.counting.flops import eager_bytes_and_flops

    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    traffic, _ = eager_bytes_and_flops(module.fn, module.inputs(SIZE, "cpu"))
    return sum(record.bytes_total for record in traffic)


@pytest.mark.engine  # Inductor's code generation, in this process
@pytest.mark.parametrize("path", [MLP, CONV], ids=["mlp", "conv"])
def test_the_previews_triton_kernels_are_those_its_cuda_wrapper_launches(path: Path) -> None:
    from torch._subclasses.fake_tensor import FakeTensorMode

    from kernel_tui.engine.preview.preview_codegen import generate_for_gpu
    from kernel_tui.engine.preview.preview_inputs import fake_inputs
    from kernel_tui.engine.stages.loader import load_scenario

    scenario = load_scenario(path)
    args = fake_inputs(scenario, SIZE, FakeTensorMode(allow_non_fake_inputs=False))
    assert all(w.device.type == "cuda" for w in scenario.weights), "every parameter and buffer is a fake CUDA tensor"
    code = generate_for_gpu(scenario.module.fn, args, 90)
    launched = [name for source in code.sources for name in re.findall(r"\b(triton_\w+)\.run\(", source)]
    previewed = [record.name for record in code.records if record.name.startswith("triton_")]
    assert previewed == launched and launched


def test_fn_uses_the_modules_its_helpers_use() -> None:
    namespace: dict[str, object] = {}
    exec(  # a scenario's module, as the loader runs it
        "import torch\nfrom torch import nn\nlayer = nn.Linear(4, 4)\nunused = nn.Linear(4, 4)\nW = torch.ones(4)\n"
        "def helper(x):\n    return layer(x) * W\ndef fn(x):\n    return helper(x)\n",
        namespace,
    )
    assert {"helper", "layer", "W"} <= set(global_names(namespace["fn"], namespace))
    used = used_weights(namespace["fn"], namespace, ())
    assert used.modules == (namespace["layer"],) and used.tensor_names == ("W",)


def test_placing_keeps_parameters_tied_and_follows_the_inputs_dtype() -> None:
    encoder, decoder = nn.Embedding(10, 4), nn.Linear(4, 10, bias=False)
    decoder.weight = encoder.weight  # tied, as language models do
    namespace: dict[str, object] = {"model": nn.Sequential(encoder, decoder)}
    used = used_weights(lambda: None, namespace, (nn.Sequential(encoder, decoder),))
    place_weights(used, namespace, on_device("cpu"), torch.float64)
    assert encoder.weight is decoder.weight and isinstance(encoder.weight, nn.Parameter)
    assert encoder.weight.dtype == torch.float64 and encoder.weight.requires_grad


def test_model_and_input_spellings(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text("class Block: ...\n")
    spec = parse_model("model.py:Block(256, hidden=1024)", tmp_path)
    assert (spec.target, spec.name, spec.call) == (str(tmp_path / "model.py"), "Block", "(256, hidden=1024)")
    assert parse_model("pkg.models:make_block", tmp_path).target == "pkg.models"
    assert parse_input("8x128:int64:50257").high == 50257 and parse_input("8x128:long").dtype == "int64"
    assert parse_input("8x128x256:bfloat16").shape == (8, 128, 256)
    for bad_model in ("model.py", "missing.py:Block", "model.py:Block(open('x'))(1)", "model.py:Block("):
        with pytest.raises(ModelSpecError):
            parse_model(bad_model, tmp_path)
    for bad_input in ("8x0", "8x128:int7", "8x128:float32:10", "axb"):
        with pytest.raises(ModelSpecError):
            parse_input(bad_input)


MODEL_FILE = """
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    def __init__(self, width=64, hidden=256):
        super().__init__()
        self.fc1 = nn.Linear(width, hidden)
        self.fc2 = nn.Linear(hidden, width)
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        return self.norm(x + self.fc2(F.gelu(self.fc1(x))))
"""


@pytest.mark.engine
@pytest.mark.parametrize("device", ["cpu", "cuda-preview"])
def test_run_model_runs_a_class_from_a_file_with_no_fn(tmp_path: Path, device: str) -> None:
    (tmp_path / "block.py").write_text(MODEL_FILE)
    command = [sys.executable, "-m", "kernel_tui", "run", "--model", "block.py:Block(64, hidden=128)"]
    command += ["--input", "4x32x64", "--device", device, "--no-time", "--json"]
    env = {**os.environ, "KERNEL_TUI_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=900, env=env, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    report = ScenarioReport.from_dict(json.loads(done.stdout.splitlines()[0]))
    assert report.error is None and report.eager is not None and report.compiled is not None
    assert report.signature == "x: (4, 32, 64) float32 → (4, 32, 64) float32"
    weights = _parameter_bytes(nn.Linear(64, 128), nn.Linear(128, 64), nn.LayerNorm(64))
    assert report.ideal_bytes == 2 * 4 * 32 * 64 * 4 + weights
    assert Path(report.scenario).parent == tmp_path / "cache" / "models"
    # The hotspot (issue 56): shares of the profiler's kernel time, which --no-time keeps; a preview times nothing,
    # so of bytes. Written in the JSON as the report reads it back.
    written = json.loads(done.stdout.splitlines()[0])["hotspots"]
    assert written == json.loads(json.dumps([asdict(hot) for hot in report.hotspots]))
    measure = "bytes" if device == "cuda-preview" else "time"
    assert [(hot.mode, hot.measure) for hot in report.hotspots] == [("eager", measure), ("compiled", measure)]
    layers = {"model.fc1", "model.fc2", "model.norm", "model"}
    assert all(hot.modules and {module.path for module in hot.modules} <= layers for hot in report.hotspots)


@pytest.mark.engine
def test_a_timed_model_is_not_swept_unless_sizes_are_asked_for(tmp_path: Path) -> None:
    """A model's sweep scales its batch, 1 to 2 here: on ResNet18's training step its recompile for a dynamic
    batch took 222 s, and the run hit the timeout (issue 56). --sizes still sweeps."""
    (tmp_path / "block.py").write_text(MODEL_FILE)
    command = [sys.executable, "-m", "kernel_tui", "run", "--model", "block.py:Block(16, hidden=32)"]
    command += ["--input", "2x4x16", "--device", "cpu", "--json"]
    env = {**os.environ, "KERNEL_TUI_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=900, env=env, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    report = ScenarioReport.from_dict(json.loads(done.stdout.splitlines()[0]))
    assert report.error is None and report.compiled is not None and report.compiled.time_us is not None
    assert report.sweep == () and report.sweep_strategy is None


TRAIN_MLP = """
import torch
import torch.nn.functional as F
from torch import nn

TRAIN = True
fc1 = nn.Linear(64, 256)
fc2 = nn.Linear(256, 64)


def fn(x):
    return fc2(F.gelu(fc1(x)))


def inputs(size, device):
    return (torch.randn(size // 64, 64, device=device),)
"""


def test_a_training_step_differentiates_the_modules_parameters(
    preview_engine: EngineClient, write_scenario: WriteScenario
) -> None:
    report = measure(preview_engine, write_scenario(TRAIN_MLP), size=2**14, arch=90)
    assert report.error is None, report.error.one_line()
    weights = _parameter_bytes(nn.Linear(64, 256), nn.Linear(256, 64))
    x = 2**14 * 4
    # Reads x and every weight once; writes the loss, x's gradient and every weight's gradient.
    assert report.ideal_bytes == (x + weights) + (4 + x + weights)
    # The step returns the loss and each gradient: x's, then the weights' (the shapes line counts those past four).
    assert report.signature is not None and report.signature.endswith(
        "(() float32, (256, 64) float32, (64, 256) float32, (64,) float32, … 2 more)"
    )
    assert report.eager is not None and report.compiled is not None
    assert report.compiled.saved_bytes == report.eager.saved_bytes == 2 * 256 * 256 * 4, "the weights are not saved"


def test_each_step_starts_from_cleared_parameter_gradients() -> None:
    from kernel_tui.engine.stages.training import TrainingStep

    layer = nn.Linear(4, 2)
    step = TrainingStep(lambda x: layer(x).sum(), lambda: tuple(layer.parameters()))
    x = torch.ones(3, 4)
    first = [grad.clone() for grad in step(x)[1:]]
    second = step(x)[1:]
    assert len(second) == 2, "the weight's and the bias's gradients (x does not require grad)"
    assert all(torch.equal(a, b) for a, b in zip(first, second, strict=True)), "not accumulated across steps"


def test_the_explorer_takes_a_model_and_run_needs_a_path_or_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from kernel_tui.commands.arguments import app_parser
    from kernel_tui.commands.cli import main
    from kernel_tui.commands.model_arguments import model_paths
    from kernel_tui.model.scenario.scenario_file import read_scenario

    (tmp_path / "block.py").write_text(MODEL_FILE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KERNEL_TUI_CACHE_DIR", str(tmp_path / "cache"))
    parser = app_parser()
    options = parser.parse_args(["--model", "block.py:Block", "--input", "2x8x64", "--train"])
    [path] = model_paths(parser, options)
    info = read_scenario(path)
    assert info.title == "Block from block.py, called on 2x8x64 float32" and info.train
    assert info.has_fn and info.has_inputs and info.size == 2 * 8 * 64
    with pytest.raises(SystemExit) as usage:
        main(["run"])
    assert usage.value.code == 2 and "a PATH" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["run", "--input", "2x8"])
    assert "--input and --train go with --model" in capsys.readouterr().err


def test_a_weight_given_a_dtype_of_its_own_keeps_it() -> None:
    default, chosen = nn.Linear(4, 4), nn.Linear(4, 4).to(torch.bfloat16)
    namespace: dict[str, object] = {}
    place_weights(used_weights(lambda: None, namespace, (default, chosen)), namespace, on_device("cpu"), torch.float16)
    assert default.weight.dtype == torch.float16 and chosen.weight.dtype == torch.bfloat16


# The models people bring, as they are (tests/data/models): outputs that are tuples holding None, dicts and
# dataclasses; their own loss in a training step; constructor arguments written as in their own file; a Hugging
# Face config and a torchvision builder with no wrapper file; token ids as inputs. Each runs the scenario --model
# writes, in the engine, as kernel-tui run --model does.

BROUGHT = REPO / "tests" / "data" / "models"
GPT = "tiny_nanogpt.py:GPT(GPTConfig(n_layer=1, n_embd=64))"


def _model(
    client: EngineClient,
    model: str,
    inputs: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    **options: Any,
) -> ScenarioReport:
    monkeypatch.setenv("KERNEL_TUI_CACHE_DIR", str(tmp_path / "cache"))
    path = write_model_scenario(model, inputs, train=options.pop("train", False), command="test", cwd=BROUGHT)
    report = measure(client, path, **options)
    assert report.error is None, report.error.one_line()
    return report


def test_constructor_arguments_are_expressions_of_one_call() -> None:
    assert parse_model(GPT, BROUGHT).call == "(GPTConfig(n_layer=1, n_embd=64))"
    # A call of what the model call returns, or a statement after it, would run code the command does not read as.
    for spelling in ('tiny_nanogpt.py:GPT(__import__("os").system("false"))(8)', "tiny_nanogpt.py:GPT(1); print(2)"):
        with pytest.raises(ModelSpecError, match="one call of GPT|not a Python call"):
            parse_model(spelling, BROUGHT)


@pytest.mark.engine
def test_a_gpt_that_returns_logits_and_none_runs_on_token_ids(
    engine: EngineClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = _model(engine, GPT, ["2x16:int64"], tmp_path, monkeypatch)
    assert report.signature == "x: (2, 16) int64 → ((2, 16, 96) float32, None)"
    assert report.eager is not None and report.compiled is not None
    # Token ids are no unit of what a model's kernels move: no "×array" figures.
    assert report.array_bytes == 0 and report.eager.transfers is None and report.compiled.transfers is None
    assert report.ideal_transfers is None


@pytest.mark.engine
def test_a_training_step_takes_the_models_own_loss_and_says_so(
    engine: EngineClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = _model(engine, "heads.py:ScoredHead(64)", ["8x64"], tmp_path, monkeypatch, train=True)
    assert "the training step differentiates the model's own loss (the loss it returned)" in report.notes
    assert report.eager is not None
    forward = [row for row in report.eager.kernels if row.section == "forward"]
    assert not [row.name for row in forward if row.unplaced and "default loss" in row.unplaced], "no sum added"


@pytest.mark.engine
def test_a_training_step_without_a_loss_says_what_it_differentiates(
    engine: EngineClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = _model(engine, GPT, ["2x16:int64"], tmp_path, monkeypatch, train=True)
    assert report.eager is not None and report.compiled is not None
    # The loss gathers (logits, None)'s tensors inside the compiled step: without a graph break of its own (torch
    # 2.11 broke at is_dataclass(None); make test runs this on 2.11 too).
    assert report.compiled.graph_breaks == 0, report.compiled.graph_break_reasons
    said = [note for note in report.notes if note.startswith("the training step differentiates")]
    assert said == [
        "the training step differentiates the sum of fn's floating-point outputs (((2, 16, 96) float32, None)), as "
        "output.float().sum(): fn returned no loss (a loss key or field); define loss(output) to choose one"
    ]
    # Every kernel of both sections is a module's (issue 56): a backward operator the module's whose forward
    # operator it differentiates, a compiled kernel the modules' of the FX nodes Inductor fused into it (a backward
    # node's those of the forward node it differentiates). The one exception is that default loss: fn's own code,
    # no module's, and the compiled kernels that fused it (its sum) or its gradient (the expand of the seed).
    loss = [row for row in report.eager.kernels if row.module == ""]
    assert [(row.section, row.name) for row in loss] == [("forward", "aten::sum")]
    fused_loss = {kernel for row in loss for kernel in row.fused_into}
    for mode in (report.eager, report.compiled):
        assert {row.section for row in mode.kernels} == {"forward", "backward"}
        nameless = [(row.section, row.name, row.module) for row in mode.kernels if not row.module]
        loss_rows = [
            (row.section, row.name, "")
            for row in mode.kernels
            if row in loss
            or row.short_name in fused_loss
            or (mode is report.compiled and "expand" in row.name.split("_"))
        ]
        assert nameless == loss_rows, [(row.name, row.aten_ops) for row in mode.kernels if not row.module]
    eager = {(row.section, row.name): row.module_calls for row in report.eager.kernels}
    assert eager["backward", "aten::gelu_backward"] == eager["forward", "aten::gelu"] == (("model.blocks.0", 1),)
    attention = "aten::_scaled_dot_product_flash_attention_for_cpu"
    assert eager["backward", f"{attention}_backward"] == (("model.blocks.0.attn", 1),)
    # And the lines of the model's file it differentiates: autograd's record of the forward operator's stack.
    stacks = {(row.section, row.name): row.stack for row in report.eager.kernels}
    assert stacks["backward", "aten::gelu_backward"] == stacks["forward", "aten::gelu"]
    assert stacks["forward", "aten::gelu"][0].startswith(str(BROUGHT / "tiny_nanogpt.py") + ":")
    # Backward launches count under their modules, and every launch under one module.
    assert sum(row.eager_launches or 0 for row in report.modules) == pytest.approx(report.eager.kernel_count)
    assert sum(row.compiled_launches or 0 for row in report.modules) == pytest.approx(report.compiled.kernel_count)
    # Compiled, forward and backward, from the training compile the engine watches (not the root module of the
    # eager operators a kernel absorbed): each kernel the modules and the lines of the model's file of the nodes it
    # fused, and only theirs.
    model_file = str(BROUGHT / "tiny_nanogpt.py")
    gelu_line = _line_in(model_file, "F.gelu(self.fc(")
    attention_line = _line_in(model_file, "F.scaled_dot_product_attention(")
    compiled = {(row.section, row.name): row for row in report.compiled.kernels}
    gelu_grad = next(row for (section, _), row in compiled.items() if section == "backward" and "gelu" in row.name)
    assert gelu_grad.module == "model.blocks.0", gelu_grad
    assert gelu_grad.stack[0] == f"{model_file}:{gelu_line}", gelu_grad.stack
    assert gelu_grad.stack and f"{model_file}:{attention_line}" not in gelu_grad.stack, gelu_grad.stack
    attention_grad = compiled["backward", f"{attention}_backward"]
    placed = (attention_grad.module, attention_grad.stack[:1])
    assert placed == ("model.blocks.0.attn", (f"{model_file}:{attention_line}",)), placed
    products = compiled["backward", "aten::mm"]  # each linear's two gradients, the lm_head's one
    assert dict(products.module_calls) == {
        **{f"model.blocks.0.{layer}": 2 for layer in ("attn.qkv", "attn.proj", "fc", "out")},
        "model.lm_head": 2,
    }
    forward_gelu = next(row for (section, _), row in compiled.items() if section == "forward" and "gelu" in row.name)
    assert forward_gelu.module == "model.blocks.0" and forward_gelu.stack[0] == f"{model_file}:{gelu_line}"
    # A row's time goes to each module as the profiler timed each of its launches, not alike per launch: backward's
    # first two products are the lm_head's gradients (all else waits on them).
    assert len(products.launch_time_us) == products.calls == 10 and products.time_us is not None
    lm_head = products.time_us * sum(products.launch_time_us[:2]) / sum(products.launch_time_us)
    timed = {work.path: work.time_us for work in products.module_work}
    assert timed["model.lm_head"] == pytest.approx(sum(products.launch_time_us[:2])), products
    shares = {part.path: part.time_us for part in kernel_work(products)}
    assert shares["model.lm_head"] == pytest.approx(lm_head), products


def _line_in(path: str, text: str) -> int:
    """The line of the file at ``path`` that holds ``text``."""
    return next(number for number, line in enumerate(Path(path).read_text().splitlines(), 1) if text in line)


@pytest.mark.engine
def test_a_dataclass_output_is_measured(engine: EngineClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    report = _model(engine, "heads.py:Encoder", ["4x8x64"], tmp_path, monkeypatch)
    assert report.signature == "x: (4, 8, 64) float32 → Encoded{hidden: (4, 8, 64) float32, pooled: (4, 64) float32}"
    assert report.ideal_bytes is not None and report.ideal_bytes >= (4 * 8 * 64 + 4 * 64) * 4


@pytest.mark.engine
def test_a_hugging_face_config_is_the_model_it_describes(
    engine: EngineClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = "transformers:GPT2Config(n_layer=1, n_embd=64, n_head=2, vocab_size=128, n_positions=32)"
    report = _model(engine, config, ["2x16:int64"], tmp_path, monkeypatch)
    assert report.signature is not None and "(2, 16, 128) float32" in report.signature, report.signature
    assert report.eager is not None and report.compiled is not None and report.compiled.kernels


@pytest.mark.engine
def test_a_torchvision_builder_runs_with_no_wrapper(
    engine: EngineClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = _model(engine, "torchvision.models:resnet18(num_classes=10)", ["1x3x32x32"], tmp_path, monkeypatch)
    assert report.signature == "x: (1, 3, 32, 32) float32 → (1, 10) float32"
    assert report.eager is not None and report.eager.flops, "convolutions and the linear layer have FLOPs"


@pytest.mark.engine
def test_a_training_preview_runs_the_attention_a_gpu_would(
    preview_engine: EngineClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = _model(preview_engine, GPT, ["2x16:int64"], tmp_path, monkeypatch, train=True, arch=90)
    assert report.eager is not None and report.compiled is not None
    rows = [(row.section, row.name) for mode in (report.eager, report.compiled) for row in mode.kernels]
    assert not [name for _, name in rows if name.endswith("_for_cpu")], rows
    for mode in (report.eager, report.compiled):
        names = {(row.section, row.name) for row in mode.kernels}
        assert ("forward", "aten::_scaled_dot_product_efficient_attention") in names, names
        assert ("backward", "aten::_scaled_dot_product_efficient_attention_backward") in names, names
    assert "SDPA backend: a GPU chooses it at run time; for q [2, 2, 16, 32] float32 the preview assumes efficient" in (
        report.assumptions
    )
    # Compiled, each graph is generated decomposed: its kernels name var_mean, rsqrt, iota, a masked index put,
    # which eager never ran; each counted from the graph, the step's total is eager's within a few percent.
    assert report.eager.flops is not None and report.compiled.flops is not None
    assert report.compiled.flops == pytest.approx(report.eager.flops, rel=0.02)
    # Modules as on the CPU (issue 56), the compiled graphs' from AOTAutograd's forward stack of each backward
    # node: only the default loss is fn's own code, its sum and, compiled, the expand of its gradient.
    assert [(row.section, row.name, row.module) for row in report.eager.kernels if not row.module] == [
        ("forward", "aten::sum", "")
    ]
    assert [(row.section, row.module, set(row.aten_ops)) for row in report.compiled.kernels if not row.module] == [
        ("forward", "", {"aten::view", "aten::sum"}),
        ("backward", "", {"aten::expand", "aten::view", "aten::mm"}),
    ]
    assert sum(row.compiled_launches or 0 for row in report.modules) == pytest.approx(report.compiled.kernel_count)
    # And, as on the CPU, each module's compiled kernel the lines of the model's file its nodes were written on,
    # backward's too (AOTAutograd's copy of the forward node's stack).
    model_file = f"{BROUGHT / 'tiny_nanogpt.py'}:"
    unplaced = [
        (row.section, row.name, row.stack[:1])
        for row in report.compiled.kernels
        if row.module and not (row.stack and row.stack[0].startswith(model_file))
    ]
    assert unplaced == []
