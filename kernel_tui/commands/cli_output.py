"""Where ``kernel-tui``'s output goes, when that place fails: a full disk, a closed stdout, a reader gone.

Each ends the command with one line on stderr, never a traceback, and nothing is left to be flushed into the
broken stream at exit (which would print Python's "Exception ignored" after our line).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

NARROWEST_WIDTH = 40
"""Narrower than this, no table shows a kernel name and its numbers: a smaller COLUMNS gets this."""
PIPED_WIDTH = 120


class OutputFailed(Exception):
    """Writing the results failed (``ENOSPC``, ``EIO``...); the message says what could not be written, and why."""


@contextlib.contextmanager
def writing(what: str) -> Iterator[None]:
    """Turn a failed write of ``what`` into ``OutputFailed``; a reader gone (``BrokenPipeError``) stays itself."""
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as error:
        raise OutputFailed(f"cannot write {what}: {error.strerror or error}") from error


def silence_stdout() -> None:
    """Point fd 1 at /dev/null, so that what is still buffered for it goes nowhere instead of failing at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
    finally:
        os.close(devnull)
    if sys.stdout is None:
        sys.stdout = open(os.devnull, "w")


def stdout_is_closed() -> bool:
    """Whether fd 1 is closed (``kernel-tui run ... >&-``: Python then has no stdout; or closed since)."""
    if sys.stdout is None:
        return True
    try:
        os.fstat(1)
    except OSError:
        return True
    return False


def stdout_console() -> Console:  # rich is imported late to keep start-up light
    """The console a command prints its tables on: the terminal's width, or 120 columns when piped."""
    from rich.console import Console

    # No markup: every string printed names a scenario, a kernel or an error a stranger may have written.
    return Console(highlight=False, markup=False, width=output_width())


def output_width() -> int | None:
    """The width tables are printed at (None: the terminal's own). Piped output has no terminal width to follow:
    COLUMNS if set, else 120 columns, which keeps the two tables side by side. A COLUMNS that is no width
    (``COLUMNS=0`` printed nothing at all) or too narrow for any table gets the narrowest that still shows one."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns:
        try:
            return max(int(columns), NARROWEST_WIDTH)
        except ValueError:
            pass
    return None if sys.stdout.isatty() else PIPED_WIDTH
