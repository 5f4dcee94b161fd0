"""Where the built-in course lives: ``scenarios/`` in a checkout, ``kernel_tui/scenarios`` once installed."""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path


def course_dir() -> Path:
    """The folder of the built-in scenarios, found through the package so any install finds it.

    The package's spec names the folder without importing the package or ``importlib.resources`` (with
    ``zipfile`` and ``tempfile`` behind it): the explorer reads this before its first frame."""
    spec = find_spec("kernel_tui.scenarios")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("the built-in course is not installed", name="kernel_tui.scenarios")
    return Path(next(iter(spec.submodule_search_locations)))
