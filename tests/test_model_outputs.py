"""The models people bring, as they are, with ``--model``: outputs that are tuples holding None, dicts and
dataclasses; their own loss in a training step; constructor arguments written as in their own file; a Hugging
Face config and a torchvision builder with no wrapper file; token ids as inputs.

Each runs the scenario ``--model`` writes, in the engine, as ``kernel-tui run --model`` does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, measure

from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.scenario.model_scenario import ModelSpecError, parse_model, write_model_scenario
from kernel_tui.transport.client import EngineClient

MODELS = REPO / "tests" / "data" / "models"
GPT = "tiny_gpt.py:GPT(GPTConfig(n_layer=1, n_embd=64))"


def _model(
    client: EngineClient,
    model: str,
    inputs: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    **options: Any,
) -> ScenarioReport:
    monkeypatch.setenv("KERNEL_TUI_CACHE_DIR", str(tmp_path / "cache"))
    path = write_model_scenario(model, inputs, train=options.pop("train", False), command="test", cwd=MODELS)
    report = measure(client, path, **options)
    assert report.error is None, report.error.one_line()
    return report


def test_constructor_arguments_are_expressions_of_one_call() -> None:
    assert parse_model(GPT, MODELS).call == "(GPTConfig(n_layer=1, n_embd=64))"
    # A call of what the model call returns, or a statement after it, would run code the command does not read as.
    for spelling in ('tiny_gpt.py:GPT(__import__("os").system("false"))(8)', "tiny_gpt.py:GPT(1); print(2)"):
        with pytest.raises(ModelSpecError, match="one call of GPT|not a Python call"):
            parse_model(spelling, MODELS)


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
    said = [note for note in report.notes if note.startswith("the training step differentiates")]
    assert said == [
        "the training step differentiates the sum of fn's floating-point outputs (((2, 16, 96) float32, None)), as "
        "output.float().sum(): fn returned no loss (a loss key or field); define loss(output) to choose one"
    ]


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
