"""The code a lesson is about: ``fn``, the helpers it calls, and ``inputs``, cut out of a scenario file with
``ast``, never run.

Each piece keeps its line numbers, so an error that names a line can be found in the source pane.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from kernel_tui.model.names.safe_text import safe_text
from kernel_tui.model.scenario.snippet import code_statements, is_snippet

SHOWN_FUNCTIONS = ("fn", "inputs")
SNIPPET_PIECE = "snippet"
"""The name of a bare snippet's one piece: its code, set-up and measured line."""


@dataclass(frozen=True)
class SourcePiece:
    """A top-level function (or a class ``fn`` uses) of the scenario, with the line it starts on (decorators
    included)."""

    name: str
    first_line: int
    code: str


def scenario_source(source: str) -> list[SourcePiece]:
    """The helpers ``fn`` calls (in the file's order), then ``fn`` and ``inputs`` as written in ``source``; a file
    that does not parse gives no pieces. The helpers are shown because the gutter cites their lines: a kernel
    launched in ``project`` is on its line and on the line of ``fn`` that called it (``with L8``)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # a crafted file must not crash the view
        return []
    lines = source.splitlines()
    if is_snippet(tree):
        return [snippet_piece(tree, lines)]
    defined = {
        node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }
    shown = [name for name in SHOWN_FUNCTIONS if isinstance(defined.get(name), (ast.FunctionDef, ast.AsyncFunctionDef))]
    helpers = _called(defined, "fn") if "fn" in shown else set()
    helpers_in_order = sorted(helpers, key=lambda name: defined[name].lineno)
    return [_piece(defined[name], lines) for name in (*helpers_in_order, *shown)]


def snippet_piece(tree: ast.Module, lines: list[str]) -> SourcePiece:
    """A bare-expression snippet has no ``fn``: its code is its set-up and the line measured
    (``model.scenario.snippet``), from the first to the last, on the lines the learner typed them."""
    code = code_statements(tree)
    start = min(node.lineno for node in code)
    end = max(node.end_lineno or node.lineno for node in code)
    return SourcePiece(SNIPPET_PIECE, start, _shown_lines(lines, start, end))


def _called(defined: dict[str, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef], start: str) -> set[str]:
    """The top-level functions and classes of the file that ``start`` uses, and those they use in turn."""
    found: set[str] = set()
    waiting = [start]
    while waiting:
        for node in ast.walk(defined[waiting.pop()]):
            if isinstance(node, ast.Name) and node.id in defined and node.id not in found:
                if node.id not in SHOWN_FUNCTIONS:
                    found.add(node.id)
                    waiting.append(node.id)
    return found


def _piece(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, lines: list[str]) -> SourcePiece:
    first = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
    last = node.end_lineno or node.lineno
    return SourcePiece(node.name, first, _shown_lines(lines, first, last))


def _shown_lines(lines: list[str], first: int, last: int) -> str:
    """Lines ``first`` to ``last`` as the terminal may show them: a string literal's escape bytes made visible."""
    return "\n".join(safe_text(line) for line in lines[first - 1 : last])


def shown_line_numbers(pieces: list[SourcePiece]) -> frozenset[int]:
    """The file's line numbers the pieces show (what the lesson's line cursor can stand on)."""
    return frozenset(
        line for piece in pieces for line in range(piece.first_line, piece.first_line + len(piece.code.splitlines()))
    )
