"""The settings kernel-tui reads from its environment, read and checked in one place.

A value a setting cannot take (``KERNEL_TUI_SWEEP_BUDGET_S=abc``) used to be a traceback in the command, or
every engine exiting 1 at its import. Now each command says it in one line at its start, naming the variable
(``bad_settings``), and an engine that meets one anyway (a front end of another version) keeps the default.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, MutableMapping
from pathlib import Path

SECONDS = {
    "KERNEL_TUI_SWEEP_BUDGET_S": 90.0,
    "KERNEL_TUI_RAY_CONNECT_S": 60.0,
    "KERNEL_TUI_QUIET_S": 30.0,
}
"""Each setting that is a number of seconds, and its default."""


TORCH_DEFAULTS = {"OMP_WAIT_POLICY": "PASSIVE"}
"""What every process of kernel-tui that loads torch (an engine, a fork server) is started with unless the user set
it, in one place for both, so that a fork server and its front end agree on their import environment: OpenMP's
threads sleep while they wait at the end of a parallel loop instead of spinning. On a busy machine a spinning
thread holds the core its partner waits for, and a CPU time read several times, up to 45x, what the code costs
(``bench/omp_wait.py``; docs/measuring.md). libgomp reads it once, as it loads with torch: set before."""


def with_torch_defaults(env: MutableMapping[str, str] = os.environ) -> None:
    """``TORCH_DEFAULTS`` in ``env``, each where the user has not set it already (theirs win: ``ACTIVE`` measures
    as a spinning loop of theirs would)."""
    for name, value in TORCH_DEFAULTS.items():
        env.setdefault(name, value)


class BadSetting(ValueError):
    """A setting holds a value it cannot take; the message names the variable and the value."""


def seconds(name: str, env: Mapping[str, str] = os.environ) -> float:
    """The number of seconds ``name`` is set to, else its default; BadSetting for a value that is not a positive
    finite number."""
    raw = env.get(name, "").strip()
    if not raw:
        return SECONDS[name]
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise BadSetting(f"{name}={raw[:40]!r} is not a number of seconds above 0 (unset, it is {SECONDS[name]:g})")
    return value


def seconds_or_default(name: str, env: Mapping[str, str] = os.environ) -> float:
    """``seconds``, where a bad value has been said already: the default."""
    try:
        return seconds(name, env)
    except BadSetting:
        return SECONDS[name]


def bad_settings(env: Mapping[str, str] = os.environ) -> list[str]:
    """Why each setting that holds a value it cannot take is refused, in one line each."""
    bad = []
    for name in SECONDS:
        try:
            seconds(name, env)
        except BadSetting as error:
            bad.append(str(error))
    return bad


def cache_dir(env: Mapping[str, str] = os.environ) -> Path:
    """Where kernel-tui keeps what it measured once for this machine (ceilings, the warm-up's time, models'
    scenario files): ``KERNEL_TUI_CACHE_DIR``, else ``~/.cache/kernel-tui``."""
    return Path(env.get("KERNEL_TUI_CACHE_DIR") or Path.home() / ".cache" / "kernel-tui")
