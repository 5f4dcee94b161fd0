"""``kernel-tui view --text``: saved results printed as device columns, each scenario's reports side by side.

The headless form of what the explorer shows of saved results, for scripts and for comparing the results of
several machines (``kernel-tui run --json`` on each, or one preview with ``--arch 80,90,100``) in a terminal.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kernel_tui.commands.cli_output import writing
from kernel_tui.commands.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE

if TYPE_CHECKING:
    from rich.console import Console

    from kernel_tui.model.report.report import ScenarioReport


def print_device_columns(files: Sequence[str], console: Console) -> int:
    """Every scenario in ``files``, its reports as columns in the order the files were given; a file that is not
    results is a usage error naming it (and the line), before anything is printed."""
    from kernel_tui.model.compare.device_columns import by_scenario, compare_devices
    from kernel_tui.model.storage.results_file import ResultsFileError, read_results
    from kernel_tui.text.device_columns_text import device_columns_view

    reports: list[ScenarioReport] = []
    for name in files:
        try:
            reports += read_results(Path(name))
        except ResultsFileError as error:
            print(f"kernel-tui view: {error}", file=sys.stderr)
            return EXIT_USAGE
    exit_code = EXIT_OK
    for columns in by_scenario(reports):
        if any(report.error is not None for report in columns):
            exit_code = EXIT_FAILED
        with writing("the results to standard output"):
            console.print(device_columns_view(compare_devices(columns)))
            console.file.flush()
    return exit_code
