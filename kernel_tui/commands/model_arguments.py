"""``--model``, ``--input`` and ``--train``: a model class or factory of the user's own run without writing a
scenario (``model.scenario.model_scenario`` writes one), for ``kernel-tui run`` and the explorer alike."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from kernel_tui.model.names.safe_text import safe_line

if TYPE_CHECKING:
    import argparse


def add_model_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model",
        metavar="FILE.py:NAME",
        help="run a model you already have, with no scenario to write: a module class or factory in a file or "
        "an importable module, called with its arguments as in Python: model.py:Block, "
        "'model.py:Block(256, hidden=1024)', 'gpt.py:GPT(GPTConfig(n_embd=64))', mypkg.models:make_block, "
        "'transformers:GPT2Config(n_layer=2)' (needs --input). It runs code of your choosing: the file, and the "
        "arguments as expressions evaluated in its module",
    )
    parser.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="SHAPE[:DTYPE[:HIGH]]",
        help="with --model: the shape of one argument of its forward, first dimension the batch (repeatable, in "
        "order): 8x128x256, 8x128x256:bfloat16, 8x128:int64 for token ids (below the model's embedding size, "
        "or below HIGH)",
    )
    parser.add_argument(
        "--train",
        action="store_true",
        help="with --model: measure a training step (forward, loss, backward): the model's own loss where it "
        "returns one (a loss key or field), else the sum of its outputs, as the report's notes say",
    )


def model_paths(parser: argparse.ArgumentParser, options: argparse.Namespace) -> list[Path]:
    """The scenario ``--model`` names, written out; a usage error for a model or input that cannot work."""
    from kernel_tui.model.scenario.model_scenario import ModelSpecError, write_model_scenario

    if options.model is None:
        if options.input or options.train:
            parser.error("--input and --train go with --model FILE.py:NAME")
        return []
    command = shlex.join(["kernel-tui", *sys.argv[1:]]) if sys.argv[1:] else f"kernel-tui --model {options.model}"
    try:
        return [write_model_scenario(options.model, options.input, train=options.train, command=command)]
    except ModelSpecError as error:
        parser.error(safe_line(str(error)))
