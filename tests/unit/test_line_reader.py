"""Reading an engine's pipe costs time linear in what arrives, and a bounded line keeps its head and tail."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from kernel_tui.transport.line_reader import LONG_LINE_KEPT, read_lines

MB = 1 << 20


def _read(text_code: str, keep: int | None) -> tuple[list[str], float]:
    """Lines a child writes with ``sys.stdout.write(<text_code>)``, and the seconds it took to read them."""
    child = subprocess.Popen(
        [sys.executable, "-c", f"import sys; sys.stdout.write({text_code}); sys.stdout.flush()"],
        stdout=subprocess.PIPE,
    )
    assert child.stdout is not None
    lines: list[str] = []
    started = time.perf_counter()
    read_lines(child.stdout.fileno(), child, lines.append, keep=keep)
    seconds = time.perf_counter() - started
    child.wait()
    return lines, seconds


def test_a_long_line_without_a_newline_keeps_its_head_and_tail_and_says_how_much_is_left_out() -> None:
    lines, _ = _read(f"'H' * {LONG_LINE_KEPT} + 'x' * {20 * MB} + 'T' * {LONG_LINE_KEPT}", keep=LONG_LINE_KEPT)
    assert len(lines) == 1
    assert lines[0] == "H" * LONG_LINE_KEPT + f" … [{20 * MB:,} characters left out] … " + "T" * LONG_LINE_KEPT


def test_short_lines_are_whole_and_an_unbounded_line_arrives_whole() -> None:
    lines, _ = _read("'a\\n' + 'é' * 5 + '\\n' + 'tail'", keep=LONG_LINE_KEPT)
    assert lines == ["a\n", "ééééé\n", "tail"]
    whole, _ = _read(f"'y' * {8 * MB} + '\\n'", keep=None)
    assert whole == ["y" * (8 * MB) + "\n"]


def test_a_line_with_no_newline_is_read_as_fast_as_the_same_bytes_in_short_lines() -> None:
    """Joining every chunk to the line so far was quadratic: 100 MB took 333 s where lines took 16 s."""
    size = 48 * MB

    def best(text_code: str, keep: int | None) -> float:
        return min(_read(text_code, keep)[1] for _ in range(2))

    short_lines = best(f"('z' * 1023 + '\\n') * {size // 1024}", LONG_LINE_KEPT)
    one_line = best(f"'z' * {size}", LONG_LINE_KEPT)
    one_whole_line = best(f"'z' * {size}", None)
    assert one_line < 3 * short_lines, (one_line, short_lines)
    assert one_whole_line < 3 * short_lines, (one_whole_line, short_lines)


class _EndsAsItIsAsked:
    """A process that writes its last line and ends at the moment a reader first asks whether it has ended:
    what a reader sees when the engine answers a run that fails at once, right after a quiet warm-up."""

    def __init__(self, write_fd: int, last_words: bytes) -> None:
        self._write_fd = write_fd
        self._last_words = last_words
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            os.write(self._write_fd, self._last_words)
            os.close(self._write_fd)
            self.returncode = 0
        return self.returncode


def test_what_a_process_wrote_just_before_it_ended_is_read_whatever_the_moment_the_reader_looked() -> None:
    read_fd, write_fd = os.pipe()
    lines: list[str] = []
    read_lines(read_fd, _EndsAsItIsAsked(write_fd, b'{"done": 1}\n'), lines.append)
    assert lines == ['{"done": 1}\n']
