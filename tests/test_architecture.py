"""The layout rule: only ``kernel_tui/engine`` may import torch, anywhere in its code.

Everything else (the CLI, the client, the app) runs in the UI process, which must start fast and survive
whatever the engine does. The app's own check, in a fresh interpreter, is in ``test_ui_imports.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "kernel_tui"
ENGINE = PACKAGE / "engine"


def imports_torch(path: Path) -> list[int]:
    lines = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import) and any(alias.name.split(".")[0] == "torch" for alias in node.names):
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "torch":
            lines.append(node.lineno)
    return lines


def test_only_the_engine_imports_torch():
    offenders = {
        str(path.relative_to(PACKAGE)): lines
        for path in PACKAGE.rglob("*.py")
        if ENGINE not in path.parents and (lines := imports_torch(path))
    }
    assert offenders == {}


def test_the_engine_does_import_torch():
    assert any(imports_torch(path) for path in ENGINE.rglob("*.py"))
