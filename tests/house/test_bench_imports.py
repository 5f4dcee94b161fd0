"""``make bench`` runs on the venv that ``make run`` builds, which has no pytest: every benchmark, and every
test helper a benchmark borrows (some only inside a function), must import without it. ``bench/app_timing.py``
once failed there, through the UI tests' helpers importing ``conftest``."""

from __future__ import annotations

import ast
import subprocess
import sys

from support.locations import REPO

NO_PYTEST = """
import importlib, sys
sys.modules["pytest"] = None  # an import of pytest now raises ImportError, as where it is not installed
sys.path[:0] = ["bench", "tests"]
import run_all
modules = [*run_all.BENCHMARKS, *sys.argv[1:]]
for name in modules:
    importlib.import_module(name)
print(len(run_all.BENCHMARKS), len(modules))
"""


def _borrowed_from_tests() -> set[str]:
    """The modules of ``tests/support`` that a bench imports, at its top or inside a function, by dotted name."""
    helpers = {f"support.{path.stem}" for path in (REPO / "tests" / "support").glob("*.py")}
    named: set[str] = set()
    for bench in (REPO / "bench").glob("*.py"):
        for node in ast.walk(ast.parse(bench.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                named.add(node.module)
                named.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                named.update(alias.name for alias in node.names)
    return named & helpers


def test_every_benchmark_and_the_helpers_it_borrows_import_where_pytest_is_not_installed() -> None:
    borrowed = sorted(_borrowed_from_tests())
    assert "support.ui_support" in borrowed  # the harness app_timing drives the app with
    done = subprocess.run(
        [sys.executable, "-c", NO_PYTEST, *borrowed], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    benchmarks, imported = map(int, done.stdout.split()[-2:])
    assert benchmarks >= 10 and imported == benchmarks + len(borrowed)
