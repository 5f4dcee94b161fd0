"""Text from strangers made safe to show: no control character of it ever reaches a terminal.

A results file, a scenario's docstring or file name and an engine message are written by someone else. An
ESC in one of them would be a terminal escape once printed (OSC 52 writes the user's clipboard, OSC 2 the
window's title), so every such string passes through ``safe_text`` where it enters: the results file's and
the protocol's decoding (``kernel_tui.model.report.report_schema``), the scenario file's reading. Each control character
becomes a visible stand-in (ESC shows as ``␛``), so the text stays readable and a reader sees what was there.

Invisible formatting characters (Unicode's category Cf) are the other trap: a right-to-left override (U+202E)
makes ``evil‮yp.txt`` display as ``eviltxt.py``, a zero-width space splits a name that reads whole, tag
characters carry text no one sees. Each is shown as its code point, ``⟨U+202E⟩``.

A lone surrogate (``"\\ud800"``, which a Python string may hold and ``json`` reads from ``"\\\\ud800"``) is the
third: no codec encodes it, so written to a terminal, a file or a pipe it raised ``UnicodeEncodeError`` mid-table.
It is shown as its code point too, ``⟨U+D800⟩``.

Markup is the other half and is not handled here: a string is never parsed as Rich or Textual markup
(``[/]``, ``[link=…]``), because the widgets are given ``Text`` or ``Content`` and the console ``markup=False``.
"""

from __future__ import annotations

_KEPT = {"\n", "\t"}
"""Layout, meaningful in a traceback, a lesson or generated code; harmless to a terminal."""


def _stand_in(code: int) -> str:
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ␀ … ␟
    if code == 0x7F:
        return "␡"
    return "\ufffd"  # C1 (0x80-0x9f): 0x9b is a one-byte CSI to some terminals


FORMAT_CHARACTERS = (
    (0xAD, 0xAD), (0x600, 0x605), (0x61C, 0x61C), (0x6DD, 0x6DD), (0x70F, 0x70F), (0x890, 0x891), (0x8E2, 0x8E2),
    (0x180E, 0x180E), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F),
)  # fmt: skip
"""Unicode's format characters (category Cf, Unicode 14 and the Egyptian controls added after it), as ranges:
written out, since finding them with ``unicodedata`` scans every code point (0.3 s at start-up)."""

_TABLE = {code: _stand_in(code) for code in (*range(0x20), 0x7F, *range(0x80, 0xA0)) if chr(code) not in _KEPT}
SURROGATES = (0xD800, 0xDFFF)
"""The surrogate code points: half of a UTF-16 pair, never a character of their own."""

_TABLE.update(
    {code: f"⟨U+{code:04X}⟩" for first, last in (*FORMAT_CHARACTERS, SURROGATES) for code in range(first, last + 1)}
)


def safe_text(text: str) -> str:
    """``text`` with each control character but newline and tab, each invisible formatting character and each lone
    surrogate shown as a visible stand-in; a Windows line ending (CR LF) is a newline."""
    # One translation, measured faster than a regular expression's scan: a kernel's code can be 200 MB.
    return text.replace("\r\n", "\n").translate(_TABLE)


def safe_line(text: str) -> str:
    """``text`` for one line (a file name, a table cell): newlines and tabs as spaces, the rest as ``safe_text``."""
    return safe_text(text).replace("\n", " ").replace("\t", " ")


def is_safe(text: str) -> bool:
    """Whether ``text`` holds nothing a terminal would act on (what the tests assert of every screen)."""
    return text.translate(_TABLE) == text
