"""The oldest torch kernel-tui runs on, and the engine's one-line refusal below it.

Below the floor the engine would not fail loudly: an older Inductor's C++ kernels emit no profiler event, so
the compiled column would list ATen operators as if they were kernels, and older Dynamo and Inductor move
what the engine reads. So the engine checks first, before it measures anything, and says which torch it found
and which it needs. ``pyproject.toml`` asks for the same floor (tests/house/test_packaging.py holds them together),
so that ``pip install kernel-tui`` into an environment whose torch is new enough leaves that torch alone.
"""

from __future__ import annotations

import re
import sys

OLDEST_TORCH = (2, 10)
"""The oldest torch release the course and the engine's tests were run on and pass (docs/TORCH_VERSIONS.md)."""


def release(version: str) -> tuple[int, int]:
    """``2.13.0+cpu`` -> (2, 13); a version that does not start with two numbers counts as new enough."""
    match = re.match(r"(\d+)\.(\d+)", version)
    return (int(match.group(1)), int(match.group(2))) if match else OLDEST_TORCH


def below_floor(version: str) -> str | None:
    """The refusal for torch ``version``, one line; None where it is new enough."""
    if release(version) >= OLDEST_TORCH:
        return None
    oldest = ".".join(map(str, OLDEST_TORCH))
    return (
        f"kernel-tui needs torch {oldest} or newer and found torch {version} ({sys.executable}): "
        f"upgrade it there (pip install 'torch>={oldest}') or run kernel-tui from an environment that has one"
    )
