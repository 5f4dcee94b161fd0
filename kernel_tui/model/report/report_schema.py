"""A report's JSON checked against the report's own dataclasses before any of it is used.

A results file comes from anywhere (``kernel-tui view``, ``--baseline``) and an engine message from a process
that runs a stranger's code, so both are checked here, the one place a report is decoded: every field has the
type its dataclass declares (read from the annotations, so the schema cannot drift from ``report``), numbers
are finite and of a size a count or a time can have, and every string is made safe to show (``safe_text``).
A report that does not fit is refused with ``SchemaError``, which names the field (``eager.kernels.0.calls``).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import types
import typing
from typing import Any

from kernel_tui.model.names.safe_text import safe_line, safe_text
from kernel_tui.model.report.launch import WARP_SIZE

MAX_INTEGER = 2**63
"""Bytes, FLOPs and sizes are 64-bit counts: a ``10**4000`` is no count of anything."""
MAX_FLOAT = 1e300
"""Times, rates and ratios: finite, with room for arithmetic on them (sums, ratios) to stay finite."""
NOT_NEGATIVE = frozenset(
    (
        "size",
        "calls",
        "kernel_count",
        "bytes_read",
        "bytes_written",
        "bytes_total",
        "ideal_bytes",
        "array_bytes",
        "eager_bytes",
        "compiled_bytes",
        "saved_bytes",
        "forward_bytes",
        "backward_bytes",
        "peak_bytes",
        "eager_peak_bytes",
        "compiled_peak_bytes",
        "peak_arrays",
        "forward_peak_bytes",
        "backward_peak_bytes",
        "buffers_allocated",
        "buffers_reused",
        "buffers_freed_early",
        "threads",
        "sweep_compiles",
        "eager_launches",
        "compiled_launches",
    )
)
"""Counts: a negative one is no measurement (and a sweep's size is at least one element)."""
OFFSETS = frozenset(("start_us", "end_us"))
"""Times that are places on a timeline, not durations."""
MAX_FREE_FORM_DEPTH = 16
"""How deep ``options`` (torch.compile's arguments, free-form JSON) may nest."""


class SchemaError(ValueError):
    """A report's JSON that does not fit the report; the message names the field and what is wrong."""

    def __init__(self, where: str, problem: str) -> None:
        where = safe_line(where if len(where) <= 120 else where[:119] + "…")
        super().__init__(f"{where or 'the report'}: {problem}")
        self.where = where


def checked_report(data: Any, *, finite: bool = True) -> dict[str, Any]:
    """``data`` (a parsed ``--json`` object) checked field by field, with its strings made safe; ``finite=False``
    lets a float be NaN or infinite, which the engine's protocol carries for a time that was not measured."""
    from kernel_tui.model.report.report import ScenarioReport

    return checked(ScenarioReport, data, finite=finite)


def checked(cls: type, data: Any, *, finite: bool = True, where: str = "") -> dict[str, Any]:
    """``data`` checked as the JSON form of the report's dataclass ``cls`` (a sweep point sent alone)."""
    return _dataclass_fields(cls, data, where, finite)


def _dataclass_fields(cls: type, data: Any, where: str, finite: bool) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise SchemaError(where, f"is {_shown(data)}, not an object")
    checked = {}
    for name, (hint, required) in _schema(cls).items():
        here = f"{where}.{name}" if where else name
        if name not in data:
            if required:
                raise SchemaError(here, "is missing")
            continue
        checked[name] = _value(hint, data[name], here, finite)
    return checked


@functools.cache
def _schema(cls: type) -> dict[str, tuple[Any, bool]]:
    """Each field's type and whether it must be present, from the dataclass itself."""
    from kernel_tui.model.report import mode_result, report

    hints = typing.get_type_hints(cls, vars(report))
    schema: dict[str, tuple[Any, bool]] = {}
    for field in dataclasses.fields(cls):
        required = field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING
        schema[field.name] = (hints[field.name], required)
    if cls is report.VariantResult:
        # On the wire a variant is the fields of ``compiled`` (null where not measured) beside its own.
        del schema["measured"]
        schema.update({name: (hint | None, False) for name, (hint, _) in _schema(mode_result.ModeResult).items()})
    return schema


@functools.cache
def _shape(hint: Any) -> tuple[Any, tuple[Any, ...], Any]:
    """A type's origin and arguments, and for ``X | None`` the ``X``: typing's answers, asked once per type (they
    are most of the cost of a check otherwise)."""
    origin, arguments = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        (inner,) = (argument for argument in arguments if argument is not type(None))
        return origin, arguments, inner
    return origin, arguments, None


def _value(hint: Any, value: Any, where: str, finite: bool) -> Any:
    origin, arguments, optional_of = _shape(hint)
    if optional_of is not None:
        if value is None:
            return None
        return _value(optional_of, value, where, finite)
    if hint is str:
        if not isinstance(value, str):
            raise SchemaError(where, f"is {_shown(value)}, not text")
        return safe_text(value)
    if hint is bool:
        if not isinstance(value, bool):
            raise SchemaError(where, f"is {_shown(value)}, not true or false")
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise SchemaError(where, f"is {_shown(value)}, not a whole number")
        if not -MAX_INTEGER < value < MAX_INTEGER:
            raise SchemaError(where, "is a number too large for a count")
        return _counted(value, where)
    if hint is float:
        return _counted(_float(value, where, finite), where)
    if hint is Any:
        return _free_form(value, where, 0)
    if dataclasses.is_dataclass(hint):
        fields = _dataclass_fields(typing.cast(type, hint), value, where, finite)
        if getattr(hint, "__name__", None) == "KernelLaunch":
            _check_launch(fields, where)  # measured data: consistent, not only well typed
        return fields
    if origin is tuple:
        if not isinstance(value, (list, tuple)):  # a tuple: a message decoded in-process, never through JSON
            raise SchemaError(where, f"is {_shown(value)}, not a list")
        if len(arguments) == 2 and arguments[1] is Ellipsis:
            return [_value(arguments[0], item, f"{where}.{index}", finite) for index, item in enumerate(value)]
        if len(value) != len(arguments):
            raise SchemaError(where, f"has {len(value)} items, not {len(arguments)}")
        return [
            _value(kind, item, f"{where}.{index}", finite) for index, (kind, item) in enumerate(zip(arguments, value))
        ]
    if origin is dict:
        if not isinstance(value, dict):
            raise SchemaError(where, f"is {_shown(value)}, not an object")
        return {safe_text(key): _value(arguments[1], item, f"{where}.{key}", finite) for key, item in value.items()}
    raise TypeError(f"the report schema has no rule for {hint!r} ({where})")  # a new field's type: teach it here


def _float(value: Any, where: str, finite: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SchemaError(where, f"is {_shown(value)}, not a number")
    if isinstance(value, int):
        if not -MAX_FLOAT < value < MAX_FLOAT:
            raise SchemaError(where, "is a number too large")
        return value  # an integral time stays as written: the report compares it as the engine sent it
    if math.isnan(value) or math.isinf(value):
        if finite:
            raise SchemaError(where, f"is {value}, not a finite number")
        return value
    if not -MAX_FLOAT < value < MAX_FLOAT:
        raise SchemaError(where, "is a number too large")
    return value


def is_duration(name: str) -> bool:
    """Whether a field holds a time something took (``time_us``, ``compile_s``): a negative one was never measured."""
    return name.endswith(("_us", "_s", "_ms")) and name not in OFFSETS


def _counted(value: float, where: str) -> Any:
    name = where.rsplit(".", 1)[-1]
    if name in NOT_NEGATIVE and value < 0:
        raise SchemaError(where, f"is {value}, a negative count")
    if is_duration(name) and value < 0:
        raise SchemaError(where, f"is {value}, a negative time")
    if name == "size" and ".sweep." in f".{where}" and value < 1:
        raise SchemaError(where, f"is {value}: a sweep's size is at least 1")
    return value


def _free_form(value: Any, where: str, depth: int) -> Any:
    """Any JSON (a torch.compile argument), its strings made safe and its depth bounded."""
    if depth > MAX_FREE_FORM_DEPTH:
        raise SchemaError(where, "is nested too deeply")
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, (list, tuple)):
        return [_free_form(item, where, depth + 1) for item in value]
    if isinstance(value, dict):
        return {safe_text(str(key)): _free_form(item, f"{where}.{key}", depth + 1) for key, item in value.items()}
    if isinstance(value, float) and not math.isfinite(value):
        raise SchemaError(where, f"is {value}, not a finite number")
    if isinstance(value, int) and not isinstance(value, bool) and not -MAX_INTEGER < value < MAX_INTEGER:
        raise SchemaError(where, "is a number too large")
    return value


def _shown(value: Any) -> str:
    """A wrong value named in an error: its type, and a short and safe glimpse of it."""
    kind = {dict: "an object", list: "a list", tuple: "a list", str: "text", type(None): "null"}.get(
        type(value), "a number"
    )
    if isinstance(value, (dict, list, tuple, type(None))):
        return kind
    if isinstance(value, bool):
        return "true" if value else "false"
    glimpse = repr(value) if not isinstance(value, int) or abs(value) < 10**30 else "a huge number"
    glimpse = safe_text(glimpse if len(glimpse) <= 40 else glimpse[:39] + "…")
    return f"{kind} {glimpse}"


_LAUNCH_AT_LEAST_ONE = ("warps",)
_LAUNCH_NOT_NEGATIVE = ("registers_per_thread", "shared_memory", "elements", "threads")


def _check_launch(fields: dict[str, Any], where: str) -> None:
    """Raise ``SchemaError`` at the first field of ``fields`` (a launch's checked JSON) that no launch can have.

    A launch is measured data: every field a count that can be, and the fields consistent with each other. A crafted
    results file showed a negative grid, a block of zero threads, occupancy past 100% and threads that did not
    multiply out, all as if measured."""
    for name in ("grid", "block"):
        dims = fields.get(name)
        if dims is not None and any(dim < 1 for dim in dims):
            raise SchemaError(f"{where}.{name}", f"is {list(dims)}: each dimension is at least 1")
    for name in _LAUNCH_AT_LEAST_ONE:
        if (value := fields.get(name)) is not None and value < 1:
            raise SchemaError(f"{where}.{name}", f"is {value}: a block has at least one warp")
    for name in _LAUNCH_NOT_NEGATIVE:
        if (value := fields.get(name)) is not None and value < 0:
            raise SchemaError(f"{where}.{name}", f"is {value}, a negative count")
    occupancy = fields.get("occupancy_pct")
    if occupancy is not None and not 0 <= occupancy <= 100:
        raise SchemaError(f"{where}.occupancy_pct", f"is {occupancy}: a share is between 0 and 100")
    grid, block, threads, warps = (fields.get(name) for name in ("grid", "block", "threads", "warps"))
    if grid is not None and block is not None and threads is not None and threads != math.prod(grid) * math.prod(block):
        raise SchemaError(
            f"{where}.threads", f"is {threads}, not grid × block ({math.prod(grid)} × {math.prod(block)})"
        )
    if block is not None and warps is not None and warps != -(-math.prod(block) // WARP_SIZE):
        raise SchemaError(f"{where}.warps", f"is {warps}, not the block's {math.prod(block)} threads in warps of 32")
