"""Reading a results file written by ``kernel-tui run --json``: every report in it, each checked.

``kernel-tui run --baseline`` compares with the reports of one, and ``kernel-tui view`` shows them. Apart from
``baseline`` (the comparison) so that the view, which compares nothing before its first frame, does not load it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kernel_tui.report import ScenarioReport
from kernel_tui.report_keys import MODES


class ResultsFileError(Exception):
    """A results file that cannot be used (as a baseline, or to view); its message is one line and names the file."""


def read_results(path: Path) -> tuple[ScenarioReport, ...]:
    """The reports in a file written by ``kernel-tui run --json``: one JSON object per line, or one JSON
    object or list of them (a report saved pretty-printed)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ResultsFileError(f"{path}: cannot read it: {_reason(error)}") from error
    objects: list[tuple[int | None, Any]]
    """Each report's JSON, with its line number where the file is one report per line."""
    try:
        whole = json.loads(text)
    except ValueError:
        objects = [
            (number, _json_line(path, number, line)) for number, line in enumerate(text.splitlines(), 1) if line.strip()
        ]
    else:
        objects = [(None, item) for item in (whole if isinstance(whole, list) else [whole])]
    if not objects:
        raise ResultsFileError(f"{path}: holds no report (write one with kernel-tui run --json)")
    return tuple(_report(path, number, data) for number, data in objects)


def _json_line(path: Path, number: int, line: str) -> Any:
    try:
        return json.loads(line)
    except ValueError as error:
        raise ResultsFileError(f"{path}: line {number} is not JSON ({error})") from error


def _report(path: Path, number: int | None, data: Any) -> ScenarioReport:
    where = f"{path}: line {number}" if number is not None else str(path)
    if not isinstance(data, dict):
        raise ResultsFileError(f"{where}: not a kernel-tui report (expected a JSON object)")
    try:
        report = ScenarioReport.from_dict(data)
        _check_numbers(report)
    except (TypeError, ValueError, KeyError, AttributeError) as error:
        raise ResultsFileError(f"{where}: not a kernel-tui report ({_reason(error)})") from error
    return report


def _check_numbers(report: ScenarioReport) -> None:
    """Reject what ``from_dict`` lets through but ``compare`` would trip over: a field of the wrong type."""
    if not isinstance(report.scenario, str) or not isinstance(report.size, int):
        raise TypeError("scenario and size must be a string and an integer")
    for name in MODES:
        mode = report.mode(name)
        if mode is None:
            continue
        _check(f"{name}.kernel_count", mode.kernel_count, optional=False)
        for field_name in ("bytes_total", "time_us", "time_iqr_us"):
            _check(f"{name}.{field_name}", getattr(mode, field_name))
        for kernel in mode.kernels:
            if not isinstance(kernel.name, str) or not isinstance(kernel.short_name, str):
                raise TypeError(f"{name}: a kernel's name is not a string")
            _check(f"{name} kernel {kernel.name} calls", kernel.calls, optional=False)
            for field_name in ("bytes_read", "bytes_written", "time_us"):
                _check(f"{name} kernel {kernel.name} {field_name}", getattr(kernel, field_name))


def _check(what: str, value: Any, optional: bool = True) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{what} is {value!r}, not a number")


def _reason(error: BaseException) -> str:
    """The error's own words on one line: the file's name is said once, by the caller."""
    text = getattr(error, "strerror", None) or str(error)
    return text.splitlines()[0] if text.strip() else type(error).__name__
