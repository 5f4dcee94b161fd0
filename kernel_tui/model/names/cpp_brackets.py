"""C++ signatures read at their top level: the commas, spaces and brackets outside any template arguments or
parentheses, which is where a kernel's name and its arguments are told apart (``names``).

A ``>`` after ``-`` is an arrow, not a bracket, and ``<``/``>`` inside parentheses are comparisons
(``std::enable_if<((8)>(0)), void>``).
"""

from __future__ import annotations


def split_top_level(text: str) -> list[str]:
    """``text`` split at the commas outside any brackets."""
    pieces, start = [], 0
    for index in top_level_indices(text, ","):
        pieces.append(text[start:index])
        start = index + 1
    pieces.append(text[start:])
    return pieces


def last_top_level_space(text: str) -> int:
    """Index of the last space outside any brackets, or -1."""
    spaces = top_level_indices(text, " ")
    return spaces[-1] if spaces else -1


def top_level_indices(text: str, wanted: str) -> list[int]:
    """Indices of ``wanted`` outside any brackets; ``<``/``>`` count only outside parentheses (``(8)>(0)``)."""
    found = []
    parens = angles = 0
    for index, char in enumerate(text):
        if char in "([{":
            parens += 1
        elif char in ")]}":
            parens = max(parens - 1, 0)
        elif parens == 0 and char == "<":
            angles += 1
        elif parens == 0 and char == ">" and text[index - 1 : index] != "-":
            angles = max(angles - 1, 0)
        elif char == wanted and parens == 0 and angles == 0:
            found.append(index)
    return found


def top_level(text: str, wanted: str) -> int:
    """Index of the first ``wanted`` outside any parentheses, or -1."""
    depth = 0
    for index, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == wanted and depth == 0:
            return index
    return -1


def closing(text: str, open_at: int) -> int:
    """Index of the ``>`` closing the ``<`` at ``open_at``; the end of the text if it never closes.

    Brackets inside parentheses do not count: ``std::enable_if<((8)>(0)), void>`` closes at the last one.
    """
    depth = parens = 0
    for index in range(open_at, len(text)):
        char = text[index]
        if char == "(":
            parens += 1
        elif char == ")":
            parens = max(parens - 1, 0)
        elif parens:
            continue
        elif char == "<":
            depth += 1
        elif char == ">" and text[index - 1] != "-":
            depth -= 1
            if depth == 0:
                return index
    return len(text)
