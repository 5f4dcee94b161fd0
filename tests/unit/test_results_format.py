"""Saved results carry a format version, and results saved before it still open.

``tests/data/results_unversioned.jsonl`` is real output of the code before the version existed:
``kernel-tui run tests/data/add_relu.py --json --sizes 1024,65536`` at commit 766ea2c, on a CPU. That it
still opens, in ``view`` and as a ``--baseline``, is the promise kept to everyone who saved results then.
(That ``run --json`` writes the version is checked on a fresh run in ``test_view``.)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.ui_support import DATA, explorer, finished, wait_for

from kernel_tui.commands.cli import main
from kernel_tui.commands.exits import EXIT_USAGE
from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.storage.results_file import (
    FORMAT_FIELD,
    RESULTS_FORMAT,
    ResultsFileError,
    read_results,
    saved_form,
)
from kernel_tui.ui.app.view_app import build_view_app
from kernel_tui.ui.link.view_link import saved_reports
from kernel_tui.ui.widgets.kernel_table import KernelTable

UNVERSIONED = DATA / "results_unversioned.jsonl"
SCENARIO = DATA / "add_relu.py"


def unversioned_object() -> dict[str, Any]:
    (line,) = UNVERSIONED.read_text().splitlines()
    data: dict[str, Any] = json.loads(line)
    assert FORMAT_FIELD not in data  # the fixture is what the code before the version wrote
    return data


def written(tmp_path: Path, data: dict[str, Any], name: str = "results.jsonl") -> Path:
    target = tmp_path / name
    target.write_text(json.dumps(data) + "\n")
    return target


def test_results_saved_before_the_version_still_read_as_they_were_measured() -> None:
    (report,) = read_results(UNVERSIONED)
    assert report.title == "Add, then ReLU" and report.ok
    assert report.eager is not None and report.compiled is not None
    assert (report.eager.kernel_count, report.compiled.kernel_count) == (2, 1)
    assert [point.size for point in report.sweep] == [1024, 65536]
    assert report.source == SCENARIO.read_text()


def test_a_versioned_file_reads_as_the_same_report_as_the_unversioned_one(tmp_path: Path) -> None:
    (old,) = read_results(UNVERSIONED)
    versioned = saved_form(old)
    assert next(iter(versioned)) == FORMAT_FIELD and versioned[FORMAT_FIELD] == RESULTS_FORMAT
    (new,) = read_results(written(tmp_path, versioned))
    assert new == old


def test_the_saved_form_is_the_report_with_the_version_in_front() -> None:
    (report,) = read_results(UNVERSIONED)
    form = saved_form(report)
    assert form.pop(FORMAT_FIELD) == RESULTS_FORMAT
    assert form == report.to_dict()
    assert FORMAT_FIELD not in report.to_dict()  # the engine's messages have the protocol's version instead


async def test_kernel_tui_view_opens_results_saved_before_the_version() -> None:
    # The file names the scenario by the path it had where it was measured, which this checkout need not have.
    (saved,) = read_results(UNVERSIONED)
    app = build_view_app(saved_reports((saved,), UNVERSIONED), clock=lambda: 1000.0)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("r")
        await wait_for(pilot, lambda: finished(app, Path(saved.scenario)), what="the saved run to be shown")
        table = explorer(app).query_one("#compiled", KernelTable)
        assert saved.compiled is not None and table.kernels == saved.compiled.kernels


class TestANewerFormat:
    """A file from a newer kernel-tui is refused whole, in one line naming the file and its version."""

    def newer(self, tmp_path: Path) -> Path:
        return written(tmp_path, {**unversioned_object(), FORMAT_FIELD: RESULTS_FORMAT + 1}, "newer.jsonl")

    def test_view_refuses_it_with_one_line(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        newer = self.newer(tmp_path)
        assert main(["view", str(newer)]) == EXIT_USAGE
        (line,) = capsys.readouterr().err.splitlines()
        assert line.startswith(f"kernel-tui view: {newer}: line 1: saved in results format {RESULTS_FORMAT + 1}")
        assert "newer kernel-tui" in line and "Traceback" not in line

    def test_a_baseline_is_refused_before_anything_runs(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        newer = self.newer(tmp_path)
        assert main(["run", str(SCENARIO), "--baseline", str(newer)]) == EXIT_USAGE
        (line,) = capsys.readouterr().err.splitlines()
        assert line.startswith(f"kernel-tui run: --baseline {newer}: line 1: saved in results format")

    def test_one_newer_line_among_readable_ones_refuses_the_file(self, tmp_path: Path) -> None:
        mixed = tmp_path / "mixed.jsonl"
        newer = {**unversioned_object(), FORMAT_FIELD: 99}
        mixed.write_text(UNVERSIONED.read_text() + json.dumps(newer) + "\n")
        with pytest.raises(ResultsFileError, match=r"mixed\.jsonl: line 2: saved in results format 99 "):
            read_results(mixed)


@pytest.mark.parametrize("version", ["1", True, -1, 1.5, None, [1]])
def test_a_version_that_is_no_version_is_not_a_report(tmp_path: Path, version: Any) -> None:
    path = written(tmp_path, {**unversioned_object(), FORMAT_FIELD: version})
    with pytest.raises(ResultsFileError) as raised:
        read_results(path)
    message = str(raised.value)
    assert message.startswith(f"{path}: line 1: not a kernel-tui report ({FORMAT_FIELD} is ")
    assert "\n" not in message


def test_a_pretty_printed_report_of_this_format_opens(tmp_path: Path) -> None:
    (report,) = read_results(UNVERSIONED)
    pretty = tmp_path / "results.json"
    pretty.write_text(json.dumps([saved_form(report)], indent=2))
    assert read_results(pretty) == (report,)
    assert isinstance(report, ScenarioReport)
