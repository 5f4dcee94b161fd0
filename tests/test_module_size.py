"""A module is one concept, not a line count: every module of the package and of the tests stays under about 700
lines, past which a file surely holds more than one concept and is split by concept (docs/files.md names the
parts); under it, a concept keeps its file whole rather than being cut to fit a smaller number. ``tests/data``
holds data and recorded inputs, not modules anyone reads through, and is left out."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 700


def _modules() -> list[Path]:
    package = ROOT.glob("kernel_tui/**/*.py")
    tests = (path for path in ROOT.glob("tests/**/*.py") if "data" not in path.relative_to(ROOT / "tests").parts)
    return sorted([*package, *tests])


def test_the_modules_are_found() -> None:
    names = {str(path.relative_to(ROOT)) for path in _modules()}
    assert {"kernel_tui/commands/cli.py", "tests/test_module_size.py", "tests/replay.py"} <= names
    assert not any(name.startswith("tests/data/") for name in names)


def test_no_module_passes_700_lines() -> None:
    too_long = {}
    for path in _modules():
        with path.open(encoding="utf-8") as text:
            lines = sum(1 for _ in text)
        if lines > LIMIT:
            too_long[str(path.relative_to(ROOT))] = lines
    assert not too_long, f"split by concept (at most {LIMIT} lines each): {too_long}"
