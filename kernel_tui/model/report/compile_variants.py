"""Compile variants: named sets of ``torch.compile`` keyword arguments, each measured in a column of its own.

A scenario declares them as a literal, ``VARIANTS = {"default": {}, "dynamic": {"dynamic": True}}``, and
``kernel-tui run --variant NAME=KEY:VALUE,...`` adds or overrides one headless. The variant named
``default`` is the report's ``compiled`` column (``COMPILE`` when there is none); every other variant is
reported under ``variants``. Nothing here imports torch: the shapes of the arguments are checked here, their
values (a mode's name, an Inductor option) by the engine, which knows what its torch accepts.
"""

from __future__ import annotations

import ast
import re
from dataclasses import asdict, dataclass
from typing import Any

from kernel_tui.model.report.report_keys import MODES

COMPILE_KEYS = ("mode", "dynamic", "fullgraph", "backend", "options")
DEFAULT_VARIANT = "default"
RESERVED_NAMES = MODES
"""The columns that already exist: a variant of that name would be read as one of them."""
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,31}")


class VariantError(ValueError):
    """A variant whose name or arguments ``torch.compile`` could not be given."""


def check_variant_name(name: object) -> str:
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise VariantError(
            f"variant name {name!r} must be a short word (letters, digits, and _ . + - after the first; 32 at most)"
        )
    if name in RESERVED_NAMES:
        raise VariantError(f"variant name {name!r} is taken by a column of its own: choose another")
    return name


def check_compile_arguments(name: str, arguments: object) -> dict[str, Any]:
    """``arguments`` if they have the shape ``torch.compile`` takes; else a VariantError naming ``name``."""
    if not isinstance(arguments, dict):
        raise VariantError(f"variant {name!r} must be a dict of torch.compile arguments, not {arguments!r}")
    for key, value in arguments.items():
        if key not in COMPILE_KEYS:
            raise VariantError(
                f"variant {name!r}: unknown torch.compile argument {key!r} (known: {', '.join(COMPILE_KEYS)})"
            )
        problem = _argument_problem(key, value)
        if problem:
            raise VariantError(f"variant {name!r}: {key} {problem}, not {value!r}")
    if arguments.get("mode") is not None and arguments.get("options"):
        # torch.compile refuses both at once; saying so here names the variant.
        raise VariantError(f"variant {name!r}: give mode or options, not both (torch.compile takes one)")
    return dict(arguments)


def _argument_problem(key: str, value: object) -> str | None:
    if key in ("mode", "backend"):
        return None if value is None or isinstance(value, str) else "must be a string"
    if key == "dynamic":
        return None if value is None or isinstance(value, bool) else "must be True, False or None"
    if key == "fullgraph":
        return None if isinstance(value, bool) else "must be True or False"
    if not isinstance(value, dict) or not all(isinstance(option, str) for option in value):
        return "must be a dict of Inductor options by name"
    return None


def check_variants(value: object) -> dict[str, dict[str, Any]]:
    """A ``VARIANTS`` literal, checked: names to ``torch.compile`` arguments."""
    if not isinstance(value, dict) or not value:
        raise VariantError(
            'VARIANTS must be a dict of named torch.compile arguments, e.g. {"dynamic": {"dynamic": True}}'
        )
    return {check_variant_name(name): check_compile_arguments(name, arguments) for name, arguments in value.items()}


def parse_variant_flag(text: str) -> tuple[str, dict[str, Any]]:
    """``NAME=KEY:VALUE,KEY:VALUE`` (``--variant``) as a name and its arguments.

    Values are Python literals (``True``, ``1``, ``"max-autotune"``, ``{"max_autotune": True}``); a bare word
    that is none (``max-autotune-no-cudagraphs``) is that string. ``NAME=`` alone is plain ``torch.compile()``.
    """
    name, equals, rest = text.partition("=")
    if not equals:
        raise VariantError(f"--variant {text!r}: write NAME=KEY:VALUE,..., e.g. dyn=dynamic:True")
    check_variant_name(name.strip())
    arguments: dict[str, Any] = {}
    for pair in _top_level_parts(rest):
        key, colon, value = pair.partition(":")
        if not colon or not key.strip():
            raise VariantError(f"--variant {text!r}: {pair!r} is not KEY:VALUE")
        if key.strip() in arguments:
            raise VariantError(f"--variant {text!r}: {key.strip()} given twice")
        arguments[key.strip()] = _literal(value.strip())
    return name.strip(), check_compile_arguments(name.strip(), arguments)


def _top_level_parts(text: str) -> list[str]:
    """``text`` split at the commas outside brackets and quotes, so that ``options:{"a": 1, "b": 2}`` stays whole."""
    parts, depth, quote, start = [], 0, "", 0
    for index, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return [part.strip() for part in parts if part.strip()]


def _literal(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


def describe_arguments(arguments: dict[str, Any]) -> str:
    """``mode=reduce-overhead, dynamic=True``, or ``torch.compile()`` for none: how a column says what it ran."""
    if not arguments:
        return "torch.compile()"
    return ", ".join(f"{key}={value if isinstance(value, str) else repr(value)}" for key, value in arguments.items())


LIBRARY = "library"
"""A candidate that calls a library (ATen's ``mm``, ``bmm``): nothing Inductor writes fuses into it."""
TEMPLATE = "template"
"""A candidate Inductor writes from a template (C++ on a CPU, Triton on a GPU): it can take an epilogue."""


@dataclass(frozen=True)
class TunedChoice:
    """One candidate a max-autotune compile timed for an operation."""

    name: str
    """Inductor's name for it: ``bmm`` (ATen's), ``cpp_CppMicroGemmFP32Vec_0``, ``triton_mm_3``…"""
    kind: str
    """``LIBRARY`` or ``TEMPLATE``."""
    time_ms: float | None
    """What Inductor's benchmark gave it, in milliseconds; None where it failed to run (Inductor's inf)."""
    description: str = ""
    """Inductor's words for its configuration (a Triton template's block sizes), empty where it has none."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class TunedOperation:
    """An operation a max-autotune compile chose a kernel for: its candidates, fastest first, and the winner."""

    operation: str
    """What Inductor tuned: ``mm``, ``addmm``, ``bmm``, ``convolution``…"""
    shapes: tuple[tuple[int, ...], ...]
    """Its inputs' sizes."""
    choices: tuple[TunedChoice, ...]
    """Every candidate timed, fastest first; the first is the one Inductor chose."""

    @property
    def winner(self) -> TunedChoice | None:
        return self.choices[0] if self.choices and self.choices[0].time_ms is not None else None

    def percent_of_best(self, choice: TunedChoice) -> float | None:
        """The winner's time as a percentage of ``choice``'s: 100 for the winner, 50 for one twice as slow."""
        winner = self.winner
        if winner is None or winner.time_ms is None or not choice.time_ms:
            return None
        return 100.0 * winner.time_ms / choice.time_ms

    def gave_up(self) -> str:
        """What choosing the winner cost besides its own time: a library call fuses no epilogue, so whatever
        follows it (a bias, an activation) runs as a kernel more and goes through memory."""
        winner = self.winner
        if winner is None:
            return "no candidate ran"
        if winner.kind == LIBRARY:
            if any(choice.kind == TEMPLATE for choice in self.choices):
                return "a library call: no epilogue fuses into it, so what follows runs as a kernel more"
            return "nothing: a library call was the only candidate"
        return "nothing: a template can take the epilogue into its own kernel"

    def to_dict(self) -> dict[str, Any]:
        return {
            "operation": self.operation,
            "shapes": [list(shape) for shape in self.shapes],
            "choices": [
                {**choice.to_dict(), "percent_of_best": self.percent_of_best(choice)} for choice in self.choices
            ],
            "winner": self.winner.name if self.winner is not None else None,
            "gave_up": self.gave_up(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TunedOperation:
        choices = tuple(
            TunedChoice(
                str(item.get("name", "")),
                str(item.get("kind", "")),
                item.get("time_ms"),
                str(item.get("description") or ""),
            )
            for item in data.get("choices") or []
            if isinstance(item, dict)
        )
        shapes = tuple(tuple(int(size) for size in shape) for shape in data.get("shapes") or [])
        return cls(str(data.get("operation", "")), shapes, choices)
