"""Reading a results file written by ``kernel-tui run --json``: every report in it, each checked.

``kernel-tui run --baseline`` compares with the reports of one, and ``kernel-tui view`` shows them. Apart from
``baseline`` (the comparison) so that the view, which compares nothing before its first frame, does not load it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kernel_tui.model.names.safe_text import safe_line
from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.report.report_schema import checked_report
from kernel_tui.model.storage.bounded_read import RESULTS_LIMIT, read_bounded

RESULTS_FORMAT = 1
"""The version of the saved form that ``kernel-tui run --json`` writes (its ``format_version``): raised when a
field changes meaning or a reader would misread a newer file, never for a field added (readers skip those)."""
FORMAT_FIELD = "format_version"
UNVERSIONED = 0
"""The format of results saved before they carried a version: read as version 1 is, since it is the same form."""


class ResultsFileError(Exception):
    """A results file that cannot be used (as a baseline, or to view); its message is one line and names the file."""


def saved_form(report: ScenarioReport) -> dict[str, Any]:
    """``report`` as one object of a results file: its JSON form, led by the format it is written in."""
    return {FORMAT_FIELD: RESULTS_FORMAT, **report.to_dict()}


def read_results(path: Path) -> tuple[ScenarioReport, ...]:
    """The reports in a file written by ``kernel-tui run --json``: one JSON object per line, or one JSON
    object or list of them (a report saved pretty-printed)."""
    try:
        text = read_bounded(path, RESULTS_LIMIT).decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ResultsFileError(f"{shown(path)}: cannot read it: {_reason(error)}") from error
    objects: list[tuple[int | None, Any]]
    """Each report's JSON, with its line number where the file is one report per line."""
    try:
        whole = _json(text)
    except (ValueError, RecursionError):
        # Lines split at newlines only: ``splitlines`` would also split inside a string holding U+2028 or \x85.
        objects = [
            (number, _json_line(path, number, line)) for number, line in enumerate(text.split("\n"), 1) if line.strip()
        ]
    else:
        # A file of one line is the common case of one report: its errors name line 1 as a longer file's would.
        one_line = 1 if "\n" not in text.strip() else None
        objects = [(one_line, item) for item in (whole if isinstance(whole, list) else [whole])]
    if not objects:
        raise ResultsFileError(f"{shown(path)}: holds no report (write one with kernel-tui run --json)")
    return tuple(_report(path, number, data) for number, data in objects)


def shown(path: Path) -> str:
    """A file's name as it is printed: a stranger chose it."""
    return safe_line(str(path))


def _json(text: str) -> Any:
    """JSON as a report holds it: ``NaN``, ``Infinity`` and a number too long to be a count are refused
    (Python's own parser would take them, and a table or a comparison would then trip over them)."""
    return json.loads(text, parse_constant=_refuse_constant, parse_int=_bounded_int)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a report holds")


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > 20:
        raise ValueError(f"the number {digits[:12]}… ({len(digits)} digits) is not one a report holds")
    return int(digits)


def _json_line(path: Path, number: int, line: str) -> Any:
    try:
        return _json(line)
    except RecursionError as error:
        raise ResultsFileError(f"{shown(path)}: line {number} is nested too deeply to be a report") from error
    except ValueError as error:
        raise ResultsFileError(f"{shown(path)}: line {number} is not JSON ({_reason(error)})") from error


def _report(path: Path, number: int | None, data: Any) -> ScenarioReport:
    return _report_at(f"{shown(path)}: line {number}" if number is not None else shown(path), data)


def report_from_line(where: str, line: str) -> ScenarioReport:
    """One line of ``kernel-tui run --json`` as a report, read as a results file's line is (its format checked,
    strict JSON); raises ResultsFileError naming ``where`` when it is not one."""
    try:
        data = _json(line)
    except RecursionError as error:
        raise ResultsFileError(f"{where}: nested too deeply to be a report") from error
    except ValueError as error:
        raise ResultsFileError(f"{where}: not JSON ({_reason(error)})") from error
    return _report_at(where, data)


def _report_at(where: str, data: Any) -> ScenarioReport:
    if not isinstance(data, dict):
        raise ResultsFileError(f"{where}: not a kernel-tui report (expected a JSON object)")
    _check_format(where, data.get(FORMAT_FIELD, UNVERSIONED))
    try:
        report = ScenarioReport.from_dict(checked_report(data))
    except (TypeError, ValueError, KeyError, AttributeError) as error:
        raise ResultsFileError(f"{where}: not a kernel-tui report ({_reason(error)})") from error
    return report


def _check_format(where: str, version: Any) -> None:
    """A file of a newer format is refused as a whole: its fields may no longer mean what this reader takes
    them to mean, and a table of misread numbers is worse than none."""
    if isinstance(version, bool) or not isinstance(version, int) or version < UNVERSIONED:
        glimpse = safe_line(json.dumps(version)[:40])
        raise ResultsFileError(f"{where}: not a kernel-tui report ({FORMAT_FIELD} is {glimpse}, not a version)")
    if version > RESULTS_FORMAT:
        raise ResultsFileError(
            f"{where}: saved in results format {version} by a newer kernel-tui; this one reads formats up to "
            f"{RESULTS_FORMAT} (update kernel-tui to open it)"
        )


def _reason(error: BaseException) -> str:
    """The error's own words on one line: the file's name is said once, by the caller."""
    text = getattr(error, "strerror", None) or str(error)
    return safe_line(text.splitlines()[0][:300]) if text.strip() else type(error).__name__
