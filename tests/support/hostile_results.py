"""Crafted results files, made by the tests that use them (no committed blobs): what a stranger might send.

Each starts from a real report (the recorded add+relu run in ``tests/data``, with the scenario's text as
``kernel-tui run --json`` saves it) and changes one thing: text that would drive a terminal or read as
markup, a number JSON allows but a report cannot hold, a field of the wrong type, a nesting too deep.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from support.ui_support import ADD_RELU, DATA

OSC52 = "\x1b]52;c;cHduZWQ=\x07"
"""Writes "pwned" to the clipboard of a terminal that allows it."""
OSC2 = "\x1b]2;window title\x07"
HOSTILE_TEXT = f"a{OSC52}b{OSC2}\x1b[2J\x9b31m\x00\r[/] [link=https://evil.example]x[/link] [blink]b[/blink]"
"""Every kind of untrusted text at once: OSC 52 and OSC 2, a CSI (7-bit and C1), NUL, CR, and markup."""
CONTROL_BYTES = ("\x1b", "\x9b", "\x07", "\x00", "\r")


def template() -> dict[str, Any]:
    """A real saved report: the recorded add+relu run, with its scenario's text as ``run --json`` carries it."""
    recording = json.loads((DATA / "ui_add_relu_messages.json").read_text())
    report: dict[str, Any]
    (report,) = (message["report"] for message in recording["messages"] if message["type"] == "done")
    report = copy.deepcopy(report)
    report["source"] = ADD_RELU.read_text()
    report["scenario"] = "/elsewhere/add_relu.py"
    report["signature"] = "a: (1048576,) float32, b: (1048576,) float32 → (1048576,) float32"
    report["variants"] = {
        "max": {
            **copy.deepcopy(report["compiled"]),
            "options": {"mode": "max-autotune"},
            "speedup": 1.0,
            "speedup_range": [0.9, 1.1],
            "note": "a note",
            "error": None,
        }
    }
    report["notes"] = ["a note"]
    report["ceilings"] = {"bandwidth_gbs": 10.0, "matmul_gflops": 100.0, "dtype": "float32", "ridge": 10.0}
    report["expect"] = {"eager": {"claimed": 2, "measured": 2, "ok": True}}
    return report


def with_text(text: str) -> dict[str, Any]:
    """The template with ``text`` in every string a screen or the table output shows."""
    report = template()
    for key in ("device_name", "torch_version", "signature", "title"):
        report[key] = f"{key} {text}"
    for mode in ("eager", "compiled"):
        for kernel in report[mode]["kernels"]:
            kernel["name"] = kernel["short_name"] = f"{kernel['short_name']} {text}"
            if kernel.get("code"):
                kernel["code"] += f"\n// {text}"
        report[mode]["notes"] = [f"mode note {text}"]
    report["notes"] = [f"note {text}"]
    report["variants"] = {f"v {text}": {**report["variants"]["max"], "note": f"variant note {text}"}}
    report["source"] = report["source"].replace("Add, then ReLU", f"Add, then ReLU {text}")
    report["sweep"] = [{"size": 1024, "eager_us": 1.0, "compiled_us": 1.0, "note": f"sweep {text}"}]
    return report


def with_error(text: str) -> dict[str, Any]:
    report = with_text(text)
    report["error"] = {
        "stage": "compile",
        "message": f"message {text}",
        "line": 3,
        "file": f"f{text}.py",
        "details": f"details {text}",
    }
    return report


def set_at(report: dict[str, Any], where: str, value: Any) -> dict[str, Any]:
    """``report`` with ``value`` at a dotted path (``eager.kernels.0.calls``)."""
    report = copy.deepcopy(report)
    *parents, last = where.split(".")
    target: Any = report
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target[part]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return report


WRONG_TYPE_FIELDS = (
    "notes",
    "source",
    "expect",
    "size",
    "title",
    "device_name",
    "scenario",
    "ceilings",
    "ceilings.bandwidth_gbs",
    "speedup_range",
    "sweep",
    "sweep.0",
    "sweep.0.size",
    "sweep_strategy",
    "sweep_compiles",
    "threads",
    "signature",
    "variants",
    "variants.max",
    "variants.max.options",
    "variants.max.speedup_range",
    "variants.max.note",
    "variants.max.error",
    "eager",
    "eager.kernels",
    "eager.kernels.0",
    "eager.kernels.0.name",
    "eager.kernels.0.calls",
    "eager.kernels.0.bytes_read",
    "eager.kernels.0.lines",
    "eager.kernels.0.aten_ops",
    "eager.kernel_count",
    "eager.bytes_total",
    "eager.notes",
    "compiled.kernels.0.code",
    "compiled.graph_break_reasons",
    "expect.eager",
    "expect.eager.claimed",
)
"""Every kind of field a report holds, each of which once crashed ``view`` or ``--baseline`` with the wrong type."""
WRONG_VALUES = ({"a": [1]}, [["x"]], "text", 3.5, True)


def wrong_types() -> Iterator[tuple[str, dict[str, Any]]]:
    """(the field, a report with a wrong value in it), for each field and each wrong value its type rules out."""
    base = template()
    base["sweep"] = [{"size": 1024, "eager_us": 1.0, "compiled_us": 1.0}]
    base["sweep_strategy"] = "dynamic"
    base["sweep_compiles"] = 1
    base["threads"] = 2
    for where in WRONG_TYPE_FIELDS:
        for value in WRONG_VALUES:
            crafted = set_at(base, where, value)
            yield where, crafted


BAD_NUMBERS: dict[str, Callable[[str], str]] = {
    "NaN": lambda line: line.replace('"time_us": 284.45', '"time_us": NaN'),
    "Infinity": lambda line: line.replace('"time_us": 284.45', '"time_us": Infinity'),
    "-Infinity": lambda line: line.replace('"size": 1048576', '"size": -Infinity'),
    "1e999": lambda line: line.replace('"bytes_total": 20971520', '"bytes_total": 1e999'),
    "10**4000": lambda line: line.replace('"bytes_total": 20971520', '"bytes_total": 1' + "0" * 4000),
    "10**4000 size": lambda line: line.replace('"size": 1048576', '"size": 1' + "0" * 4000),
    "10**4000 calls": lambda line: line.replace('"calls": 1,', '"calls": 1' + "0" * 4000 + ","),
    "-10**400 float": lambda line: line.replace('"ceiling_pct": 62.027', '"ceiling_pct": -1' + "0" * 400 + ".5"),
    "huge claimed": lambda line: line.replace('"claimed": 2', '"claimed": 1' + "0" * 4000),
    "negative size": lambda line: line.replace('"size": 1048576', '"size": -5'),
    "zero sweep size": lambda line: line.replace('"size": 1024,', '"size": 0,'),
}
"""Numbers a JSON parser takes but no report holds: each once crashed ``view`` or ``--baseline``, or was shown."""


def bad_number_lines() -> Iterator[tuple[str, str]]:
    line = json.dumps(template())
    for name, change in BAD_NUMBERS.items():
        changed = change(line)
        assert changed != line, name
        yield name, changed


def deeply_nested(depth: int = 100_000) -> str:
    """A report whose ``notes`` nest ``depth`` lists deep."""
    line = json.dumps(template())
    return line.replace('"notes": ["a note"]', '"notes": ' + "[" * depth + "]" * depth, 1)


def write_lines(path: Path, *objects: Any) -> Path:
    path.write_text("".join((item if isinstance(item, str) else json.dumps(item)) + "\n" for item in objects))
    return path


def hundred_files(folder: Path) -> list[Path]:
    """A hundred crafted results files, every class above: what ``view`` and ``--baseline`` are tried on."""
    folder.mkdir(parents=True, exist_ok=True)
    files = [
        write_lines(folder / "text.jsonl", with_text(HOSTILE_TEXT)),
        write_lines(folder / "error.jsonl", with_error(HOSTILE_TEXT)),
        write_lines(folder / "nested.jsonl", deeply_nested()),
        write_lines(folder / "devzero.jsonl", {**template(), "scenario": "/dev/zero", "source": None}),
        write_lines(folder / "devtty.jsonl", {**template(), "scenario": "/dev/tty", "source": None}),
    ]
    for _name, line in bad_number_lines():
        files.append(write_lines(folder / f"number {len(files)}.jsonl", line))
    for index, (_where, crafted) in enumerate(wrong_types()):
        if len(files) >= 100:
            break
        files.append(write_lines(folder / f"type {index:03}.jsonl", crafted))
    return files
