"""Reading scenario files without running them: title, lesson, claims and sizes come from the syntax tree.

Listing a folder or opening a file must never execute it, so everything here works on ``ast`` and
evaluates only constant arithmetic (``2**20``, ``[2**k for k in range(10, 24, 2)]`` is refused, write
the list out or use ``range``-free literals).
"""

from __future__ import annotations

import ast
import math
import operator
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kernel_tui.model.names.safe_text import safe_line, safe_text
from kernel_tui.model.report.boundary import KINDS
from kernel_tui.model.report.compile_variants import COMPILE_KEYS, DEFAULT_VARIANT, VariantError, check_variants
from kernel_tui.model.scenario.snippet import MODULE_CONSTANTS, is_snippet
from kernel_tui.model.storage.bounded_read import SCENARIO_LIMIT, read_bounded

DEFAULT_SIZE = 2**20
BOUNDARY_CLAIMS = ("boundaries", *(f"boundaries_{kind}" for kind in KINDS))
"""The compiled side's boundaries (``model.report.boundary``): how many pairs of kernels pass a value through memory,
all of them and those of each kind of reason."""
CLAIM_KEYS = (
    "eager",
    "compiled",
    "eager_transfers",
    "compiled_transfers",
    "ideal_transfers",
    "graph_breaks",
    "sweep_compiles",
    "eager_forward",
    "eager_backward",
    "compiled_forward",
    "compiled_backward",
    "eager_saved",
    "compiled_saved",
    "eager_peak",
    "compiled_peak",
    "eager_forward_peak",
    "eager_backward_peak",
    "compiled_forward_peak",
    "compiled_backward_peak",
    "compiled_grid",
    "compiled_warps",
    "compiled_elements_per_thread",
    "compiled_fewest_threads",
    "compiled_thread_share",
    "eager_overhead_dominates",
    "compiled_overhead_dominates",
    *BOUNDARY_CLAIMS,
    "variants_fx_graph_hits",
    "variants_tuned_ops",
)
"""What a lesson may claim in ``EXPECT``: launches per run of ``fn`` for ``eager``/``compiled``, array-sized
transfers, and the compiled side's graph breaks and recompiles. A training step (``TRAIN = True``) may also
claim the launches of its forward and backward sections, and what its forward saves for backward in
array-sized units (``eager_saved``, ``compiled_saved``). The peak memory of one call above its inputs, in
array-sized units (``eager_peak``, ``compiled_peak``; per section, ``eager_forward_peak``...). How the compiled
kernels were launched (``kernel_tui.model.scenario.expect.launch_measures``): the grid, warps and elements per thread of
the kernel that launches the most threads, the fewest threads any compiled kernel launches, and on a CPU the
share of PyTorch's threads the widest compiled kernel runs on. Where a call's time went (``call_breakdown``): 1
when most profiled calls spend more time around their kernels (dispatch, launches, guards, wrapper) than in
them, else 0; when a quarter of the runs says each, the claim is too noisy to tell and neither holds nor fails.
The compile variants' (``VARIANTS``) hits in Inductor's FX graph cache, all together: a variant with the default's
arguments compiles the graph ``compiled`` has just saved, a warm compile. The operations the variants tuned
(max-autotune timed two candidate kernels or more for each), all together."""
LINE_CLAIM_KINDS = ("eager_line", "compiled_line", "fused_lines")
LINE_CLAIMS = re.compile(rf"^(?:{'|'.join(LINE_CLAIM_KINDS)})(?:_[1-9]\d*)+$")
"""Claims about lines of the file (``kernel_tui.text.by_line``): ``eager_line_7``, the eager launches line 7 makes per
run; ``compiled_line_7``, the compiled launches whose work includes line 7's; ``fused_lines_6_7_8``, the compiled
launches that carry all of lines 6, 7 and 8."""
MODULE_CLAIM_KINDS = ("hotspot_bytes", "hotspot_flops", "bytes_percent", "flops_percent")
MODULE_CLAIMS = re.compile(
    rf"^(?P<mode>eager|compiled)_(?P<kind>{'|'.join(MODULE_CLAIM_KINDS)})_(?P<path>[A-Za-z_]\w*(?:-\w+)*)$"
)
"""Claims about one ``nn.Module`` of the call (``kernel_tui.model.report.module_table``), named by its path with a
``-`` for each ``.`` (``model-lm_head`` for ``model.lm_head``, ``model-blocks-0-mlp``): a key is also the name of
the explorer's box that asks it, which takes letters, digits, ``_`` and ``-``. ``compiled_hotspot_flops_model-lm_head``
(``hotspot_bytes``), 1 when it computes (moves) more than any other module, else 0; ``eager_bytes_percent_…``
(``flops_percent``), its own kernels' percent of the mode's bytes (FLOPs). Counts, never times: a busy machine's
times would reorder the modules."""


def claimed_module(path: str) -> str:
    """The module a claim's key names, as the per-module table writes it: ``model.lm_head`` for ``model-lm_head``."""
    return path.replace("-", ".")


DEVICE_KEYS = ("cpu", "cuda")
CLAIMS_OF_DEVICE = {"cuda-preview": "cuda"}
"""A device whose claims are another's: a CUDA preview generates the code a GPU would run."""


class ScenarioFileError(ValueError):
    """A scenario file that cannot be read; carries the line it failed on."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class ScenarioInfo:
    """What a scenario file says about itself."""

    path: Path
    title: str
    lesson: str
    size: int = DEFAULT_SIZE
    sizes: tuple[int, ...] | None = None
    expect: dict[str, Any] = field(default_factory=dict)
    compile_options: dict[str, Any] = field(default_factory=dict)
    has_fn: bool = True
    has_inputs: bool = True
    is_snippet: bool = False
    """A bare expression such as ``(a + b).relu()``; see ``kernel_tui.model.scenario.snippet``."""
    variants: dict[str, dict[str, Any]] = field(default_factory=dict)
    """``VARIANTS`` but its ``default``, which is ``compile_options``: each measured in a column of its own."""
    variants_line: int | None = None
    """The line of ``VARIANTS``, where an argument that the engine's torch refuses is reported."""
    train: bool = False
    """``TRAIN = True``: the measured step is ``fn``, its loss and ``backward()``; see ``engine/stages/training.py``."""
    has_loss: bool = False
    """The file defines ``loss(output)``; without it a training step's loss is ``output.float().sum()``."""

    def claims_for(self, device: str) -> dict[str, float]:
        """The claims that apply on ``device``: per-device entries override the shared ones."""
        claims = {key: value for key, value in self.expect.items() if key not in DEVICE_KEYS}
        claims.update(self.expect.get(CLAIMS_OF_DEVICE.get(device, device), {}))
        return claims

    def claims_text(self) -> str:
        parts = []
        shared = {k: v for k, v in self.expect.items() if k not in DEVICE_KEYS}
        if shared:
            parts.append(_format_claims(shared))
        for device in DEVICE_KEYS:
            if device in self.expect:
                parts.append(f"{device}: {_format_claims(self.expect[device])}")
        return "; ".join(parts)


def _format_claims(claims: dict[str, Any]) -> str:
    return ", ".join(f"{key} {value}" for key, value in claims.items())


_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Pow: operator.pow,
    ast.FloorDiv: operator.floordiv,
    ast.LShift: operator.lshift,
}


MAX_INT_BITS = 256
MAX_ITEMS = 100_000
"""Bounds on what a literal may build: a crafted ``[1024] * 2**60`` must be refused, not allocated. Items are
counted as ``repr`` would write them out: ``[[0] * 99] * 99`` is 9,900 items though it is two lists in memory, so
a nest of such lists (a "repr bomb") is refused before any message or listing tries to print it."""


def constant_value(node: ast.AST) -> Any:
    """Evaluate literals and integer arithmetic between them, nothing else."""
    value, _items = _evaluate(node)
    return value


def _evaluate(node: ast.AST) -> tuple[Any, int]:
    """The literal's value and its size in items (each element of every list, string and dict, nested ones
    written out), checked against ``MAX_ITEMS`` at every step, so no step costs more than that."""
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        (left, left_items), (right, right_items) = _evaluate(node.left), _evaluate(node.right)
        items = _items_of_operation(node.op, left, left_items, right, right_items)
        result = _BINARY[type(node.op)](left, right)
        if isinstance(result, int) and result.bit_length() > MAX_INT_BITS:
            raise ValueError("number too large")
        return result, items
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value, items = _evaluate(node.operand)
        return -value, items
    if isinstance(node, (ast.List, ast.Tuple)):
        evaluated = [_evaluate(item) for item in node.elts]
        return [value for value, _ in evaluated], _bounded(len(evaluated) + sum(items for _, items in evaluated))
    if isinstance(node, ast.Dict):
        keys = [key for key in node.keys if key is not None]
        if len(keys) != len(node.keys):
            raise ValueError("** in a dict")
        pairs = [(_evaluate(key), _evaluate(value)) for key, value in zip(keys, node.values)]
        items = len(pairs) + sum(key_items + value_items for (_, key_items), (_, value_items) in pairs)
        return {key: value for (key, _), (value, _) in pairs}, _bounded(items)
    if isinstance(node, ast.Constant):
        return node.value, _bounded(len(node.value) if isinstance(node.value, (str, bytes)) else 0)
    raise ValueError(f"not a constant: {_glimpse(node)}")


def _bounded(items: int) -> int:
    if items > MAX_ITEMS:
        raise ValueError(f"more than {MAX_ITEMS:,} items")
    return items


def _glimpse(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 80 else text[:79] + "…"


def _items_of_operation(op: ast.operator, left: Any, left_items: int, right: Any, right_items: int) -> int:
    """The size of ``left op right`` in items, refused before it is built if over ``MAX_ITEMS``."""
    if isinstance(op, ast.Pow):
        if not isinstance(right, int) or abs(right) > 64:
            raise ValueError("exponent too large")
        if isinstance(left, int) and left.bit_length() * abs(right) > MAX_INT_BITS:
            raise ValueError("number too large")
    if isinstance(op, ast.LShift) and isinstance(right, int) and right > MAX_INT_BITS:
        raise ValueError("shift too large")
    if isinstance(op, ast.Mult):
        for sequence, items, count in ((left, left_items, right), (right, right_items, left)):
            if isinstance(sequence, (list, str, bytes)) and isinstance(count, int):
                return _bounded(items * max(count, 0))
    if isinstance(op, ast.Add) and isinstance(left, (list, str, bytes)):
        return _bounded(left_items + right_items)  # a sum of many terms: each partial sum is bounded too
    return 0


def read_source(path: str | Path) -> str:
    """A Python file's text as Python reads it: a UTF-8 byte-order mark or a ``coding:`` line is honoured.

    Raises ScenarioFileError, and nothing else, for a file that cannot be read or decoded: every caller, from the
    engine's loader to the lesson pane, then handles one error (a binary file once crashed ``run --json``, whose
    caller had left out the SyntaxError a bad ``coding:`` line raises)."""
    import importlib.util

    try:
        return importlib.util.decode_source(read_bounded(path, SCENARIO_LIMIT))
    except SyntaxError as error:  # no encoding declaration fits the bytes
        raise ScenarioFileError(f"cannot read the file: {error.msg}", error.lineno) from error
    except (OSError, ValueError, LookupError) as error:
        raise ScenarioFileError(f"cannot read the file: {error}") from error


def saved_source(path: Path) -> str | None:
    """The scenario's text for its saved report, so ``kernel-tui view`` needs no copy of the file; None when it
    cannot be read (the report's load error then says why)."""
    try:
        return read_source(path)
    except ScenarioFileError:
        return None


def read_scenario(path: str | Path) -> ScenarioInfo:
    """Parse ``path`` into a ScenarioInfo. Raises ScenarioFileError (with the line) on a bad file."""
    path = Path(path)
    return parse_scenario(read_source(path), path)


def parse_scenario(source: str, path: Path) -> ScenarioInfo:
    """Never raises anything but ScenarioFileError, whatever the file holds: listing a folder must list it."""
    try:
        return _parse_scenario(source, path)
    except ScenarioFileError:
        raise
    except RecursionError as error:
        raise ScenarioFileError("nested too deeply to read") from error
    except MemoryError as error:
        raise ScenarioFileError("too large to read") from error
    except (ValueError, TypeError) as error:
        raise ScenarioFileError(f"cannot read the file: {error}") from error


def _parse_scenario(source: str, path: Path) -> ScenarioInfo:
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as error:
        raise ScenarioFileError(f"syntax error: {error.msg}", error.lineno) from error
    docstring = ast.get_docstring(tree) or ""
    title, _, lesson = docstring.strip().partition("\n")
    snippet = is_snippet(tree)
    if snippet and not title:
        title = _snippet_title(tree)
    functions = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    constants: dict[str, tuple[Any, int]] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name in MODULE_CONSTANTS:
                try:
                    constants[name] = (constant_value(node.value), node.lineno)
                except (ValueError, TypeError, ZeroDivisionError, OverflowError, MemoryError) as error:
                    raise ScenarioFileError(f"{name} must be a literal: {error}", node.lineno) from error
                except RecursionError as error:
                    raise ScenarioFileError(f"{name} is nested too deeply", node.lineno) from error
    size = _read_size(constants)
    sizes = _read_sizes(constants)
    expect = _read_expect(constants)
    compile_options = _read_compile(constants)
    variants = _read_variants(constants)
    if DEFAULT_VARIANT in variants:
        compile_options = _default_variant(variants.pop(DEFAULT_VARIANT), constants)
    train = _read_train(constants)
    return ScenarioInfo(
        path=path,
        title=safe_line(title.strip() or path.stem),
        lesson=safe_text(lesson.strip()),
        size=size,
        sizes=sizes,
        expect=expect,
        compile_options=compile_options,
        has_fn=snippet or "fn" in functions,
        has_inputs=snippet or "inputs" in functions,
        is_snippet=snippet,
        variants=variants,
        variants_line=constants["VARIANTS"][1] if "VARIANTS" in constants else None,
        train=train,
        has_loss="loss" in functions,
    )


def _snippet_title(tree: ast.Module) -> str:
    text = ast.unparse(tree.body[-1]).splitlines()[0]
    return text if len(text) <= 60 else text[:59] + "…"


def _read_size(constants: dict[str, tuple[Any, int]]) -> int:
    if "SIZE" not in constants:
        return DEFAULT_SIZE
    value, line = constants["SIZE"]
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ScenarioFileError(f"SIZE must be a positive integer, not {value!r}", line)
    return value


def _read_sizes(constants: dict[str, tuple[Any, int]]) -> tuple[int, ...] | None:
    if "SIZES" not in constants:
        return None
    value, line = constants["SIZES"]
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value)
    ):
        raise ScenarioFileError("SIZES must be a non-empty list of positive integers", line)
    return tuple(sorted(set(value)))


def _read_expect(constants: dict[str, tuple[Any, int]]) -> dict[str, Any]:
    if "EXPECT" not in constants:
        return {}
    value, line = constants["EXPECT"]
    if not isinstance(value, dict):
        raise ScenarioFileError("EXPECT must be a dict such as {'eager': 2, 'compiled': 1}", line)
    for key, claim in value.items():
        if key in DEVICE_KEYS:
            if not isinstance(claim, dict):
                raise ScenarioFileError(f"EXPECT[{key!r}] must be a dict of claims", line)
            _check_claims(claim, line, prefix=f"{key}.")
        else:
            _check_claims({key: claim}, line)
    return value


def _check_claims(claims: dict[str, Any], line: int, prefix: str = "") -> None:
    for key, claim in claims.items():
        if key not in CLAIM_KEYS and not LINE_CLAIMS.match(key) and not MODULE_CLAIMS.match(key):
            patterns = ("eager_line_N", "compiled_line_N", "fused_lines_N_M")
            modules = tuple(f"compiled_{kind}_MODULE" for kind in MODULE_CLAIM_KINDS)
            known = ", ".join(CLAIM_KEYS + DEVICE_KEYS + patterns + modules)
            raise ScenarioFileError(f"EXPECT has an unknown claim {prefix}{key!r} (known: {known})", line)
        if isinstance(claim, bool) or not isinstance(claim, (int, float)) or not math.isfinite(claim) or claim < 0:
            raise ScenarioFileError(f"EXPECT {prefix}{key} must be a number >= 0, and finite, not {claim!r}", line)


def _read_compile(constants: dict[str, tuple[Any, int]]) -> dict[str, Any]:
    if "COMPILE" not in constants:
        return {}
    value, line = constants["COMPILE"]
    if not isinstance(value, dict) or not all(key in COMPILE_KEYS for key in value):
        raise ScenarioFileError(f"COMPILE must be a dict of torch.compile arguments ({', '.join(COMPILE_KEYS)})", line)
    return value


def _read_variants(constants: dict[str, tuple[Any, int]]) -> dict[str, dict[str, Any]]:
    if "VARIANTS" not in constants:
        return {}
    value, line = constants["VARIANTS"]
    try:
        return check_variants(value)
    except VariantError as error:
        raise ScenarioFileError(str(error), line) from error


def _default_variant(options: dict[str, Any], constants: dict[str, tuple[Any, int]]) -> dict[str, Any]:
    """VARIANTS' ``default`` is the compiled column; COMPILE says the same, so two different answers are refused."""
    if "COMPILE" in constants and constants["COMPILE"][0] != options:
        raise ScenarioFileError(
            f"VARIANTS['default'] ({options!r}) and COMPILE ({constants['COMPILE'][0]!r}) both set the compiled "
            "column: keep one",
            constants["VARIANTS"][1],
        )
    return options


def _read_train(constants: dict[str, tuple[Any, int]]) -> bool:
    if "TRAIN" not in constants:
        return False
    value, line = constants["TRAIN"]
    if not isinstance(value, bool):
        raise ScenarioFileError(f"TRAIN must be True or False, not {value!r}", line)
    return value


def is_scenario_file(path: Path) -> bool:
    return path.suffix == ".py" and not path.name.startswith(("_", "."))


def find_scenarios(paths: list[str | Path]) -> list[Path]:
    """Expand files and folders into scenario files, folders in name order (the course order)."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(sorted(p for p in path.iterdir() if p.is_file() and is_scenario_file(p)))
        else:
            found.append(path)
    return found
