"""The JSON page's field table (``docs/json.md``), walked from the report's own dataclasses: every field of
``kernel-tui run --json`` with its type and the docstring written under it in ``model/``, so the format's
documentation is the code's and a field cannot be added without its sentence."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
import types
import typing
from functools import cache
from typing import Any

from kernel_tui.model.report import report
from kernel_tui.model.report.report import ScenarioReport


class UndocumentedField(ValueError):
    """A report field with no docstring under it."""


WRITTEN_FLAT = {(report.VariantResult, "measured")}
"""Fields whose own fields the JSON writes in their place (a variant is written as ``compiled``'s fields beside
its own, as ``model/report_schema`` reads it)."""


@cache
def field_docs(owner: type) -> dict[str, str]:
    """The docstrings written under the fields of dataclass ``owner`` (a string right after an annotation)."""
    tree = ast.parse(inspect.getsource(owner))
    body = tree.body[0]
    assert isinstance(body, ast.ClassDef)
    docs: dict[str, str] = {}
    for statement, following in zip(body.body, body.body[1:]):
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            docs[statement.target.id] = " ".join(following.value.value.split())
    return docs


def _inner(kind: Any) -> tuple[str, type | None]:
    """How a field's type reads in JSON, and the dataclass its values hold, if any."""
    origin, arguments = typing.get_origin(kind), typing.get_args(kind)
    if origin in (types.UnionType, typing.Union):
        named = [_inner(argument) for argument in arguments if argument is not type(None)]
        nullable = len(named) < len(arguments)
        text = " or ".join(name for name, _ in named) + (" or null" if nullable else "")
        return text, next((held for _, held in named if held is not None), None)
    if origin in (tuple, list):
        name, held = _inner(arguments[0]) if arguments else ("any", None)
        return f"list of {name}", held
    if origin is dict:
        name, held = _inner(arguments[1])
        return f"object of {name}", held
    if dataclasses.is_dataclass(kind) and isinstance(kind, type):
        return "object", kind
    names = {int: "integer", float: "number", str: "string", bool: "true/false", type(None): "null", Any: "any"}
    return names.get(kind, getattr(kind, "__name__", str(kind))), None


def field_rows(owner: type, prefix: str = "") -> list[tuple[str, str, str]]:
    """(path, type, meaning) for every field of ``owner`` and of the dataclasses it holds, depth first."""
    rows: list[tuple[str, str, str]] = []
    hints = typing.get_type_hints(owner, vars(report))
    docs = field_docs(owner)
    for item in dataclasses.fields(owner):
        if (owner, item.name) in WRITTEN_FLAT:
            continue
        path = prefix + item.name
        if item.name not in docs:
            raise UndocumentedField(f"{owner.__module__}.{owner.__qualname__}.{item.name} has no docstring")
        text, held = _inner(hints[item.name])
        rows.append((path, text, docs[item.name]))
        if held is not None:
            marker = "[]" if text.startswith("list") else ("{NAME}" if text.startswith("object of") else "")
            rows.extend(field_rows(held, f"{path}{marker}."))
    return rows


def fields_tables() -> str:
    lines = ["| field | type | meaning |", "| --- | --- | --- |"]
    for path, text, meaning in field_rows(ScenarioReport):
        said = re.sub(r"\bNone\b", "`null`", meaning).replace("|", "\\|")
        lines.append(f"| `{path}` | {text} | {said} |")
    return "\n".join(lines)
