"""Where the built-in course lives: ``kernel_tui/scenarios`` once installed (an editable install maps it onto the
checkout's ``scenarios/``), ``scenarios/`` in a checkout that is only on ``PYTHONPATH``."""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path


def course_dir() -> Path:
    """The folder of the built-in scenarios, found through the package so any install finds it.

    The package's spec names the folder without importing the package or ``importlib.resources`` (with
    ``zipfile`` and ``tempfile`` behind it): the explorer reads this before its first frame."""
    spec = find_spec("kernel_tui.scenarios")
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    # A checkout on PYTHONPATH, installed nowhere (make gpu-check on a GPU machine): the package maps
    # kernel_tui.scenarios onto scenarios/ only when installed, so the first GPU run found no course.
    checkout = Path(__file__).resolve().parents[3] / "scenarios"
    if checkout.is_dir():
        return checkout
    raise ModuleNotFoundError("the built-in course is not installed", name="kernel_tui.scenarios")
