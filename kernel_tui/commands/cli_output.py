"""Where ``kernel-tui``'s output goes, when that place fails: a full disk, a closed stdout, a reader gone, or
text the stream cannot encode.

Each failure ends the command with one line on stderr, never a traceback, and nothing is left to be flushed into
the broken stream at exit (which would print Python's "Exception ignored" after our line). Text is never one of
them: an ASCII or Latin-1 terminal (``PYTHONIOENCODING=ascii``, ``LC_ALL=C.ISO-8859-1``) has no ``✓`` nor ``·``, and
a lone surrogate encodes in no codec (``safe_text`` shows one as its code point where stranger's text enters, but
not every string passes there); each character a stream cannot encode is written as ``?``, where the stream's
writer turns text into bytes (``forgiving_streams``), so no table, status line or error of any command fails on a
string, and a table's columns stay where Rich measured them (an escape such as ``\\u2713`` would push them).
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


def forgiving_streams() -> None:
    """Make stdout and stderr write each character they cannot encode as ``?``: the one place where every
    command's text becomes bytes (Rich's consoles write through these streams)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)  # a TextIOWrapper's; a test's capture may lack it
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):  # a stream closed already keeps its own settings
                reconfigure(errors="replace")


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
