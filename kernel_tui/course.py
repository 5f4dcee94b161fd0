"""Where the built-in course lives: ``scenarios/`` in a checkout, ``kernel_tui/scenarios`` once installed."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def course_dir() -> Path:
    """The folder of the built-in scenarios, found through the package so any install finds it."""
    return Path(str(resources.files("kernel_tui.scenarios")))
