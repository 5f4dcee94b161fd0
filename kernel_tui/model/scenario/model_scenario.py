"""A model you already have, as a scenario: ``--model FILE.py:Block --input 8x128x256`` written out as a scenario
file that builds the model and calls it, which then runs like any other (and can be copied to become one's own).

The spelling follows Python's: ``FILE.py:NAME`` or ``package.module:NAME`` names a module class or a factory,
``NAME(256, hidden=1024)`` calls it with those arguments, any Python expressions evaluated in that module's
namespace as if written there (``GPT(GPTConfig(n_embd=64))``): ``--model`` runs code of the user's choosing, as
importing their file does, and the one rule is that the model is what one call of ``NAME`` returns. A Hugging Face
config (``transformers:GPT2Config(n_layer=1)``) stands for the model it describes. An input is ``SHAPE[:DTYPE[:HIGH]]``:
``8x128x256``, ``8x128x256:bfloat16``, ``8x128:int64`` (token ids, below the smallest ``nn.Embedding``'s
``num_embeddings``, or below ``HIGH`` when given). The first dimension is the batch: the run's size scales it, so
``--size`` and the sweep grow the batch and keep every other dimension.

Torch-free: the front end writes the file, the engine runs it.
"""

from __future__ import annotations

import ast
import hashlib
import math
import re
from dataclasses import dataclass
from pathlib import Path

from kernel_tui.model.settings import cache_dir
from kernel_tui.model.storage.atomic_write import write_atomic

FLOAT_DTYPES = ("float32", "float16", "bfloat16", "float64")
INT_DTYPES = ("int64", "int32", "int16", "int8", "uint8")
DTYPE_ALIASES = {"float": "float32", "half": "float16", "double": "float64", "long": "int64", "int": "int32"}
MODEL_SPEC = re.compile(r"^(?P<target>[^()]+?):(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?P<call>\(.*\))?$", re.S)


class ModelSpecError(ValueError):
    """A ``--model`` or ``--input`` that cannot name a model or an input; the message says how to write it."""


@dataclass(frozen=True)
class ModelInput:
    shape: tuple[int, ...]
    dtype: str
    high: int | None = None
    """Token ids are drawn below this; None: below the model's smallest embedding table (2 without one)."""

    @property
    def is_integer(self) -> bool:
        return self.dtype in INT_DTYPES


@dataclass(frozen=True)
class ModelSpec:
    target: str
    """``/abs/path/model.py`` or ``package.module``."""
    name: str
    """The class or factory in it, dotted for a nested one."""
    call: str
    """Its arguments as written, ``(256, hidden=1024)`` or ``(GPTConfig(n_embd=64))``; ``()`` without. They are
    evaluated in the namespace of ``target``, as if written there: ``--model`` runs code of the user's choosing."""

    @property
    def is_file(self) -> bool:
        return self.target.endswith(".py")


def parse_model(text: str, cwd: Path | None = None) -> ModelSpec:
    match = MODEL_SPEC.match(text.strip())
    if not match:
        raise ModelSpecError(
            f"--model {text!r}: write FILE.py:NAME or package.module:NAME, with arguments as in Python if it takes "
            "any: model.py:Block, 'model.py:Block(256, hidden=1024)', mypkg.models:make_block"
        )
    target, name, call = match["target"], match["name"], match["call"] or "()"
    _check_one_call(text, name, call)
    if target.endswith(".py"):
        path = (cwd or Path.cwd()) / target
        if not path.is_file():
            raise ModelSpecError(f"--model {text!r}: no such file {target}")
        target = str(path.resolve())
    elif not re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", target):
        raise ModelSpecError(f"--model {text!r}: {target!r} is neither a FILE.py nor a package.module name")
    return ModelSpec(target, name, call)


def _check_one_call(text: str, name: str, call: str) -> None:
    """The model is what one call of ``name`` returns: its arguments are any Python expressions (they run, as
    the file itself does), but a call of what it returns (``Block(...)(8)``) or anything after it is refused,
    so that what runs is what the command reads as."""
    try:
        node = ast.parse(f"{name}{call}", mode="eval").body
    except SyntaxError as error:
        raise ModelSpecError(f"--model {text!r}: its arguments {call} are not a Python call ({error.msg})") from error
    if not isinstance(node, ast.Call) or ast.unparse(node.func) != name:
        raise ModelSpecError(
            f"--model {text!r}: write one call of {name}, {name}(ARGUMENTS): the model is what it returns"
        )


def parse_input(text: str) -> ModelInput:
    parts = text.strip().split(":")
    usage = (
        f"--input {text!r}: write SHAPE[:DTYPE[:HIGH]], e.g. 8x128x256, 8x128x256:bfloat16, 8x128:int64 "
        "(token ids) or 8x128:int64:50257 (ids below 50257)"
    )
    if not 1 <= len(parts) <= 3 or not re.fullmatch(r"[1-9]\d*(?:x[1-9]\d*)*", parts[0]):
        raise ModelSpecError(usage)
    shape = tuple(int(dimension) for dimension in parts[0].split("x"))
    dtype = DTYPE_ALIASES.get(parts[1], parts[1]) if len(parts) > 1 else "float32"
    if dtype not in FLOAT_DTYPES + INT_DTYPES + ("bool",):
        raise ModelSpecError(f"{usage}; DTYPE is one of {', '.join(FLOAT_DTYPES + INT_DTYPES)} or bool")
    high = None
    if len(parts) == 3:
        if dtype not in INT_DTYPES or not parts[2].isdigit() or int(parts[2]) < 1:
            raise ModelSpecError(f"{usage}; HIGH is a positive integer, for an integer input only")
        high = int(parts[2])
    return ModelInput(shape, dtype, high)


def scenario_source(spec: ModelSpec, inputs: list[ModelInput], *, train: bool, command: str, cwd: Path) -> str:
    """The text of a scenario that builds the model at module level and calls it on ``inputs``."""
    if not inputs:
        raise ModelSpecError("--model needs the shape of what it is called with: --input 8x128x256 (repeatable)")
    elements = math.prod(inputs[0].shape)
    names = [f"x{index}" if len(inputs) > 1 else "x" for index in range(len(inputs))]
    where = Path(spec.target).name if spec.is_file else spec.target
    if spec.is_file:
        load = (
            f"_spec = importlib.util.spec_from_file_location({_module_name(spec)!r}, {spec.target!r})\n"
            "assert _spec is not None and _spec.loader is not None\n"
            "source = importlib.util.module_from_spec(_spec)\n"
            "sys.modules[_spec.name] = source  # as an import registers it: dataclasses and pickle look there\n"
            f"sys.path.append({str(Path(spec.target).parent)!r})  # the file may import modules beside it\n"
            "_spec.loader.exec_module(source)\n"
        )
    else:
        load = (
            f"sys.path.append({str(cwd)!r})  # where the command ran\n"
            f"source = importlib.import_module({spec.target!r})\n"
        )
    made = []
    for given in inputs:
        dimensions = ["batch", *(str(dimension) for dimension in given.shape[1:])]
        shape = f"({', '.join(dimensions)}{',' if len(dimensions) == 1 else ''})"
        if given.is_integer:
            high = given.high if given.high is not None else "ID_LIMIT"
            made.append(f"torch.randint(0, {high}, {shape}, device=device, dtype=torch.{given.dtype})")
        elif given.dtype == "bool":
            made.append(f"torch.rand({shape}, device=device) < 0.5")
        else:
            made.append(f"torch.randn({shape}, device=device, dtype=torch.{given.dtype})")
    mode = "train" if train else "eval"
    command = command.replace("\\", "/").replace('"' * 3, "'" * 3)  # quoted in the docstring
    lines = [
        f'"""{spec.name} from {where}, called on {", ".join(_shown(given) for given in inputs)}',
        "",
        f"Written by `{command}`: the model is built at module level and fn calls it"
        f"{' as a training step' if train else ''}.",
        "Copy this file to make it a scenario of your own.",
        '"""',
        "",
        "import importlib",
        "import importlib.util",
        "import sys",
        "",
        "import torch",
        "",
        f"SIZE = {elements}",
        f"SIZES = {[max(1, elements * scale // 8) for scale in (1, 2, 4, 8)]}",
        *(["TRAIN = True"] if train else []),
        "",
        load.rstrip("\n"),
        f"if not hasattr(source, {spec.name.split('.')[0]!r}):",
        f"    raise LookupError({f'{where} defines no {spec.name.split(chr(46))[0]}'!r})",
        "# The arguments as written on the command line, evaluated as if written in the model's own module.",
        f"model = eval({spec.name + spec.call!r}, vars(source))",
        *(_FROM_CONFIG if _may_be_config(spec) else []),
        f"model.{mode}()  # {'dropout and batch statistics as in training' if train else 'inference: dropout off'}",
        "ID_LIMIT = min((m.num_embeddings for m in model.modules() if isinstance(m, torch.nn.Embedding)), default=2)",
        '"""Token ids are drawn below the smallest embedding table."""',
        "",
        "",
        f"def fn({', '.join(names)}):",
        f"    return model({', '.join(names)})",
        "",
        "",
        "def inputs(size, device):",
        f"    batch = max(1, round({inputs[0].shape[0]} * size / SIZE))  # the size scales the batch",
        f"    return ({', '.join(made)},)",
        "",
    ]
    return "\n".join(lines)


_FROM_CONFIG = [
    'if "transformers" in sys.modules and isinstance(model, sys.modules["transformers"].PretrainedConfig):',
    "    # A Hugging Face config: the model it describes, with its language-model head where it has one.",
    "    from transformers import AutoModel, AutoModelForCausalLM",
    "",
    "    try:",
    "        model = AutoModelForCausalLM.from_config(model)",
    "    except ValueError:",
    "        model = AutoModel.from_config(model)",
]


def _may_be_config(spec: ModelSpec) -> bool:
    return spec.target.split(".")[0] == "transformers" or spec.name.endswith("Config")


def _shown(given: ModelInput) -> str:
    shape = "x".join(str(dimension) for dimension in given.shape)
    return f"{shape} {given.dtype}"


def _module_name(spec: ModelSpec) -> str:
    # The scenario prefix, as the loader names a scenario's own module: no installed module is called so.
    return f"kernel_tui_scenario_model_{hashlib.sha256(spec.target.encode()).hexdigest()[:12]}"


def models_dir() -> Path:
    return cache_dir() / "models"


def write_model_scenario(model: str, inputs: list[str], *, train: bool, command: str, cwd: Path | None = None) -> Path:
    """Parse ``--model`` and ``--input`` and write their scenario under ``models_dir()``; ModelSpecError
    says what is wrong with either."""
    cwd = cwd or Path.cwd()
    spec = parse_model(model, cwd)
    source = scenario_source(spec, [parse_input(text) for text in inputs], train=train, command=command, cwd=cwd)
    digest = hashlib.sha256(source.encode()).hexdigest()[:10]
    stem = re.sub(r"\W", "_", spec.name.split(".")[-1])
    path = models_dir() / f"{stem}_{digest}.py"
    try:
        write_atomic(path, source)
    except OSError as error:
        raise ModelSpecError(f"--model: cannot write its scenario to {path}: {error.strerror}") from error
    return path
