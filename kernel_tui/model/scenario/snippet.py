"""Bare-expression snippets: a file holding just ``(a + b).relu()`` is a scenario too.

The snippet's last expression is what ``fn`` computes and returns: the one line measured, eager and
compiled alike. The statements above it are set-up: they run once per size in ``inputs``, outside the
measurement, and the names the last line reads from them (or from the free single-letter names ``a``,
``b``, ``c``, ``x``, ``y``, ``z``: float32 tensors of the current size on the current device) are ``fn``'s
arguments. Were the set-up in ``fn``, eager would run it and the compiler would drop what its result does
not need: the two modes would measure different code. Imports and the scenario constants (``SIZE``,
``EXPECT``...) stay at module level. The rewrite works on the syntax tree and keeps the user's line
numbers, so errors point at the line they typed. Pure ``ast``: the UI uses it too.
"""

from __future__ import annotations

import ast
import builtins
import sys
from typing import Any

TENSOR_NAMES = ("a", "b", "c", "x", "y", "z")
MODULE_CONSTANTS = frozenset({"SIZE", "SIZES", "EXPECT", "COMPILE", "VARIANTS", "TRAIN"})
"""The settings a scenario file may assign at module level (``scenario_file`` reads these); in a snippet they stay
at module level, not set-up."""
PRELUDE = "import torch\nimport torch.nn.functional as F\n"
"""What a snippet may use without importing it."""


def is_snippet(tree: ast.Module) -> bool:
    """A file with no ``fn`` whose last statement is an expression."""
    defines_fn = any(isinstance(node, ast.FunctionDef) and node.name == "fn" for node in tree.body)
    body = [node for node in tree.body if not _is_docstring(node, tree)]
    return not defines_fn and bool(body) and isinstance(body[-1], ast.Expr)


def free_tensor_names(tree: ast.Module) -> list[str]:
    """The single-letter names the snippet reads before (or without) assigning them, in order of first use."""
    assigned: set[str] = set()
    free: list[str] = []
    for node in code_statements(tree):
        own = _parameters(node)  # a helper's ``def f(x)`` reads its own x, not a free tensor
        for name in _loads_in_order(node):
            if name in TENSOR_NAMES and name not in assigned and name not in free and name not in own:
                free.append(name)
        assigned.update(_defined(node))
    return free


def _parameters(node: ast.stmt) -> set[str]:
    """The parameter names of the functions (and lambdas) a statement defines, anywhere inside it."""
    names: set[str] = set()
    for inner in ast.walk(node):
        if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            arguments = inner.args
            every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
            names.update(argument.arg for argument in every if argument is not None)
    return names


def measured_lines(tree: ast.Module) -> tuple[int, int, bool]:
    """The first and last line of the measured expression, and whether set-up lines run before it."""
    body = code_statements(tree)
    last = body[-1]
    return last.lineno, last.end_lineno or last.lineno, len(body) > 1


def measured_arguments(tree: ast.Module) -> list[str]:
    """``fn``'s arguments: the names the last line reads that the set-up defines (assigns, or ``def``s and
    ``class``es: a helper ``f`` the last line calls) or that are free tensors."""
    body = code_statements(tree)
    setup, last = body[:-1], body[-1]
    known = set(free_tensor_names(tree)) | {name for statement in setup for name in _defined(statement)}
    return list(dict.fromkeys(name for name in _loads_in_order(last) if name in known))


def _defined(statement: ast.stmt) -> list[str]:
    """The names a set-up statement binds at its own level: assigned, or defined by ``def`` and ``class``.

    A helper is passed to ``fn`` as an argument like any other set-up value, so that it may use what the
    set-up made (``w``) and the compiler traces into its call; the names bound inside its body are its own."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [statement.name]
    return [node.id for node in ast.walk(statement) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)]


def snippet_module(tree: ast.Module) -> ast.Module:
    """Rewrite a snippet into a scenario module with ``fn`` and ``inputs``, line numbers kept."""
    free = free_tensor_names(tree)
    arguments = measured_arguments(tree)
    module_level: list[ast.stmt] = []
    body: list[ast.stmt] = []
    for node in tree.body:
        if _is_docstring(node, tree) or isinstance(node, (ast.Import, ast.ImportFrom)) or _is_constant(node):
            module_level.append(node)
        else:
            body.append(node)
    setup, last = body[:-1], body[-1]
    assert isinstance(last, ast.Expr)
    end = last.end_lineno or last.lineno
    fields: dict[str, Any] = {"type_params": []} if sys.version_info >= (3, 12) else {}
    fn = ast.FunctionDef(
        name="fn",
        args=ast.arguments(
            posonlyargs=[],
            args=[ast.arg(arg=name) for name in arguments],
            kwonlyargs=[],
            kw_defaults=[],
            defaults=[],
        ),
        body=[ast.copy_location(ast.Return(value=last.value), last)],
        decorator_list=[],
        returns=None,
        lineno=last.lineno,
        col_offset=0,
        end_lineno=last.end_lineno,
        end_col_offset=last.end_col_offset,
        **fields,
    )
    names = "".join(name + ", " for name in free)
    made = f"    ({names}) = (torch.randn(size, device=device) for _ in range({len(free)}))\n"
    inputs = ast.parse(
        "def inputs(size, device):\n"
        + (made if free else "")
        + f"    return ({''.join(name + ', ' for name in arguments)})\n"
    ).body[0]
    ast.increment_lineno(inputs, end)
    assert isinstance(inputs, ast.FunctionDef)
    # The set-up keeps its own line numbers, so that its errors name the line typed.
    inputs.body[-1:-1] = setup
    prelude = ast.parse(PRELUDE).body
    module = ast.Module(body=[*prelude, *module_level, fn, inputs], type_ignores=[])
    return ast.fix_missing_locations(module)


def _is_docstring(node: ast.stmt, tree: ast.Module) -> bool:
    return (
        node is tree.body[0]
        and isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        and len(tree.body) > 1
    )


def _is_constant(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id in MODULE_CONSTANTS
    )


def code_statements(tree: ast.Module) -> list[ast.stmt]:
    """The snippet's code: its statements but the docstring, the imports and the scenario constants."""
    return [
        node
        for node in tree.body
        if not (_is_docstring(node, tree) or isinstance(node, (ast.Import, ast.ImportFrom)) or _is_constant(node))
    ]


def _loads_in_order(node: ast.AST) -> list[str]:
    loads = [n for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    loads.sort(key=lambda n: (n.lineno, n.col_offset))
    return [n.id for n in loads if not hasattr(builtins, n.id)]
