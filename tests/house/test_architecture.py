"""The layout rule: only ``kernel_tui/engine`` may import torch, anywhere in its code.

Everything else (the CLI, the client, the app) runs in the UI process, which must start fast and survive
whatever the engine does. The app's own check, in a fresh interpreter, is in ``test_ui_imports.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

from support.locations import REPO

PACKAGE = REPO / "kernel_tui"
ENGINE = PACKAGE / "engine"


def imports_torch(path: Path) -> list[int]:
    lines = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import) and any(alias.name.split(".")[0] == "torch" for alias in node.names):
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "torch":
            lines.append(node.lineno)
    return lines


def test_only_the_engine_imports_torch() -> None:
    offenders = {
        str(path.relative_to(PACKAGE)): lines
        for path in PACKAGE.rglob("*.py")
        if ENGINE not in path.parents and (lines := imports_torch(path))
    }
    assert offenders == {}


def test_the_engine_does_import_torch() -> None:
    assert any(imports_torch(path) for path in ENGINE.rglob("*.py"))


KERNEL_NAME_PIECES = ("fused", "triton_", "cpp_", "graph_")
"""Pieces of Inductor's kernel names (``graph_0_cpp_fused_add_0``, ``triton_poi_fused_add_0``)."""
REGEX_FUNCTIONS = {"compile", "match", "fullmatch", "search", "findall", "finditer", "sub", "subn", "split"}


def kernel_name_patterns(path: Path) -> list[int]:
    """Lines where a regular expression mentions a piece of an Inductor kernel name."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in REGEX_FUNCTIONS or not isinstance(node.func.value, ast.Name):
            continue
        if node.func.value.id != "re" or not node.args:
            continue
        literals = [part.value for part in ast.walk(node.args[0]) if isinstance(part, ast.Constant)]
        if any(isinstance(text, str) and any(piece in text for piece in KERNEL_NAME_PIECES) for text in literals):
            lines.append(node.lineno)
    return lines


def test_kernel_names_are_parsed_only_in_names_py() -> None:
    """One parser of Inductor's kernel names: five once drifted apart (which prefixes, which suffix)."""
    bench = PACKAGE.parent / "bench"
    offenders = {
        str(path.relative_to(PACKAGE.parent)): lines
        for path in [*PACKAGE.rglob("*.py"), *bench.rglob("*.py")]
        if path != PACKAGE / "model" / "names" / "names.py" and (lines := kernel_name_patterns(path))
    }
    assert offenders == {}


def test_the_kernel_name_check_finds_a_pattern() -> None:
    assert kernel_name_patterns(PACKAGE / "model" / "names" / "names.py"), (
        "names.py parses kernel names with regular expressions"
    )
