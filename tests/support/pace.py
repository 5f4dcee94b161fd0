"""How busy the machine is right now, and waits scaled by it: for the tests and for the benches, which run where
pytest is not installed (``make bench`` after ``make run``), so nothing here imports pytest."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

QUIET_START_S = 0.04
"""How long ``python -c "import json"`` takes on an idle machine: the unit ``pace`` measures the machine in."""


_PACE: list[tuple[float, float]] = []
"""The latest measurement of ``pace``: (when, value)."""
PACE_FRESH_S = 30.0


def pace() -> float:
    """How many times slower than idle this machine runs right now (1 when idle, about 5 at a load of 24 on two
    cores), from the median of three Python starts: every process a test waits for starts the same way. Measured
    again when the last measurement is older than ``PACE_FRESH_S``."""
    if _PACE and time.monotonic() - _PACE[-1][0] < PACE_FRESH_S:
        return _PACE[-1][1]
    times = []
    for _ in range(3):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import json"], check=True)
        times.append(time.perf_counter() - started)
    value = max(1.0, statistics.median(times) / QUIET_START_S)
    _PACE.append((time.monotonic(), value))
    return value


def within(seconds: float) -> float:
    """A wall-clock bound that is itself the behaviour under test (cancel ends the engine within a second),
    scaled by how busy the machine is right now: the suite tests the product, not the machine's load that day."""
    return seconds * pace()


def overdue(started: float, seconds: float) -> bool:
    """Whether a wait begun at ``started`` (``time.monotonic``) has run past ``seconds`` scaled by the machine's
    pace; the pace is measured only once the plain ``seconds`` have passed, so a quick wait costs nothing."""
    elapsed = time.monotonic() - started
    return elapsed > seconds and elapsed > within(seconds)
