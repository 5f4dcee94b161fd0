"""The code a lesson is about: ``fn`` and ``inputs`` cut out of a scenario file with ``ast``, never run.

Each piece keeps its line numbers, so an error that names a line can be found in the source pane.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

SHOWN_FUNCTIONS = ("fn", "inputs")


@dataclass(frozen=True)
class SourcePiece:
    """A top-level function of the scenario, with the line it starts on (decorators included)."""

    name: str
    first_line: int
    code: str


def scenario_source(source: str) -> list[SourcePiece]:
    """``fn`` then ``inputs`` as written in ``source``; a file that does not parse gives no pieces."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # a crafted file must not crash the view
        return []
    lines = source.splitlines()
    found = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in SHOWN_FUNCTIONS:
            first = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
            last = node.end_lineno or node.lineno
            found[node.name] = SourcePiece(node.name, first, "\n".join(lines[first - 1 : last]))
    return [found[name] for name in SHOWN_FUNCTIONS if name in found]
