"""The README's Layout table names every file a newcomer would open: the package, the benchmarks, the test
harness and the design notes. A file added without its line, or a line left for a file that is gone, fails."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _documented() -> set[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    first_cells = (row.split(" | ", 1)[0] for row in section.splitlines() if row.startswith("| `"))
    return {path for cell in first_cells for path in re.findall(r"`([^`]+)`", cell)}


def _files() -> set[str]:
    found = [
        *ROOT.glob("kernel_tui/**/*.py"),
        *ROOT.glob("kernel_tui/**/*.tcss"),
        *ROOT.glob("bench/*.py"),
        *(path for path in ROOT.glob("tests/*.py") if not path.name.startswith("test_")),
        *ROOT.glob("docs/*.md"),
    ]
    return {str(path.relative_to(ROOT)) for path in found}


def test_every_file_has_a_line_in_the_readmes_layout() -> None:
    missing = sorted(_files() - _documented())
    assert not missing, f"add a line to README.md's Layout table for: {', '.join(missing)}"


def test_the_layout_names_no_file_that_is_gone() -> None:
    gone = sorted(path for path in _documented() if "/" in path and not (ROOT / path).exists())
    assert not gone, f"README.md's Layout table names files that do not exist: {', '.join(gone)}"
