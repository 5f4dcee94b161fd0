"""The file map (``docs/files.md``): every file a newcomer would open, with the first sentence of its own
docstring (or of its first comment or heading), so a module explains itself once and the map follows it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

LISTED = (
    "kernel_tui/**/*.py",
    "kernel_tui/**/*.tcss",
    "bench/*.py",
    "tools/**/*.py",
    "tests/*.py",
    "tests/support/*.py",
    "docs/*.md",
    "scenarios/README.md",
)
"""The package, its style sheets, the benchmarks, the tooling beside the package, the test harness (test files are
named by what they test, so only the helpers are listed) and the pages."""


class UndocumentedFile(ValueError):
    """A listed file that says nothing about itself (no docstring, comment or heading)."""


def first_sentence(text: str) -> str:
    """The first sentence of the first paragraph, on one line."""
    paragraph = " ".join(text.strip().split("\n\n", 1)[0].split())
    match = re.match(r"(.+?[.!?])(\s|$)", paragraph)
    return match.group(1) if match else paragraph


def describe(path: Path) -> str:
    """What ``path`` says about itself."""
    text = path.read_text(encoding="utf-8")
    said: str | None = None
    if path.suffix == ".py":
        said = ast.get_docstring(ast.parse(text))
    elif path.suffix == ".tcss":
        said = match.group(1) if (match := re.match(r"\s*/\*(.*?)\*/", text, re.DOTALL)) else None
    elif path.suffix == ".md":
        said = match.group(1) if (match := re.search(r"^#\s+(.+)$", text, re.MULTILINE)) else None
    if not said or not said.strip():
        raise UndocumentedFile(f"{path}: no docstring, first comment or heading says what it is")
    return first_sentence(said)


def listed_files(root: Path) -> list[Path]:
    found = {path for pattern in LISTED for path in root.glob(pattern)}
    return sorted(path for path in found if not path.name.startswith("test_") and "__snapshots__" not in path.parts)


def files_table(root: Path) -> str:
    lines = ["| file | what it is |", "| --- | --- |"]
    for path in listed_files(root):
        said = describe(path).replace("|", "\\|")
        lines.append(f"| `{path.relative_to(root)}` | {said} |")
    return "\n".join(lines)
