"""A module is one concept, not a line count: every module of the package and of the tests stays under about 700
lines, past which a file surely holds more than one concept and is split by concept (docs/files.md names the
parts); under it, a concept keeps its file whole rather than being cut to fit a smaller number. ``tests/data``
holds data and recorded inputs, not modules anyone reads through, and is left out."""

from __future__ import annotations

import ast
from pathlib import Path

from support.locations import REPO

ROOT = REPO
LIMIT = 700


def _modules() -> list[Path]:
    package = ROOT.glob("kernel_tui/**/*.py")
    tools = ROOT.glob("tools/**/*.py")
    tests = (path for path in ROOT.glob("tests/**/*.py") if "data" not in path.relative_to(ROOT / "tests").parts)
    return sorted([*package, *tools, *tests])


def test_the_modules_are_found() -> None:
    names = {str(path.relative_to(ROOT)) for path in _modules()}
    assert {"kernel_tui/commands/cli.py", "tests/house/test_module_size.py", "tests/support/replay.py"} <= names
    assert not any(name.startswith("tests/data/") for name in names)


def test_no_module_passes_700_lines() -> None:
    too_long = {}
    for path in _modules():
        with path.open(encoding="utf-8") as text:
            lines = sum(1 for _ in text)
        if lines > LIMIT:
            too_long[str(path.relative_to(ROOT))] = lines
    assert not too_long, f"split by concept (at most {LIMIT} lines each): {too_long}"


FOLDER_LIMIT = 16
"""Modules a folder may hold (``__init__`` aside): past it, ``ls`` no longer answers where a concept lives, and the
folder is split into layers, as ``engine/`` and ``ui/`` were."""
TIERS = {"unit", "ui", "engine", "gpu", "house"}
"""The test folders, one per tier (``docs/testing.md``): what a test needs to run and what it guards, so that a
folder's name says which tests a change wants run. A tier is a list of checks, not a layer of modules, so the
folder limit is the package's and the tooling's, not theirs."""


def _folder_counts() -> dict[str, int]:
    counts: dict[str, int] = {}
    for path in _modules():
        if path.name != "__init__.py" and not path.is_relative_to(ROOT / "tests"):
            folder = str(path.parent.relative_to(ROOT))
            counts[folder] = counts.get(folder, 0) + 1
    return counts


def test_no_folder_holds_more_than_about_sixteen_modules() -> None:
    counts = _folder_counts()
    assert counts["kernel_tui/engine/counting"] > 1 and "tools/gpu_check" in counts, "the folders are found"
    too_many = {folder: count for folder, count in counts.items() if count > FOLDER_LIMIT}
    assert not too_many, f"split into layer folders (at most {FOLDER_LIMIT} modules each): {too_many}"


def test_every_test_file_sits_in_the_folder_of_its_tier() -> None:
    tests = ROOT / "tests"
    outside = [
        str(path.relative_to(tests))
        for path in tests.rglob("test_*.py")
        if "data" not in path.relative_to(tests).parts and path.relative_to(tests).parts[0] not in TIERS
    ]
    assert len(list(tests.rglob("test_*.py"))) > 100, "the test files are found"
    assert not outside, f"each test file belongs in one of tests/{sorted(TIERS)}: {outside}"
    assert {path.name for path in tests.glob("*.py")} == {"conftest.py"}, "shared helpers belong in tests/support"


def test_no_test_file_declares_a_warning_class() -> None:
    """xdist's controller imports a warning's class by module name, and a test file in a tier folder is not on its
    path: a warning declared there takes the worker down when raised (``support/warnings_shown.py`` holds them)."""
    declared = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in (ROOT / "tests").rglob("test_*.py")
        if "data" not in path.relative_to(ROOT / "tests").parts
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef)
        and any(isinstance(base, ast.Name) and base.id.endswith("Warning") for base in node.bases)
    ]
    assert not declared, f"declare warnings in tests/support/warnings_shown.py: {declared}"
