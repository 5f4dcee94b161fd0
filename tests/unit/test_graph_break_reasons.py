"""A graph break's reason says what Dynamo met and what to do: its message, as torch 2.13 and 2.14 log it, summarised.

Since torch 2.7 the message's reason line is a header common to many breaks ("Encountered graph break when attempting
to trace CALL: a function call, e.g. f(x, y):") over the cause's own lines. The summary kept only the header: every
break read the same, and a GRU that Dynamo does not trace said nothing of RNNs or of ``allow_rnn``.
``tests/data/graph_breaks/record.py`` recorded the messages.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.locations import DATA

from kernel_tui.engine.compiler.compile_watch import SUMMARY_CHARS, _summarise

FOLDER = DATA / "graph_breaks"
RECORDED = sorted(FOLDER.glob("torch-*.json"))
HEADER = "attempting to trace CALL"


def _line(marker: str) -> str:
    """``record.py:23``: where the recording's line with ``marker`` broke the graph."""
    lines = (FOLDER / "record.py").read_text().splitlines()
    return f"record.py:{next(number for number, line in enumerate(lines, 1) if marker in line)}: "


@pytest.mark.parametrize("recording", RECORDED, ids=[path.stem for path in RECORDED])
def test_each_break_says_its_cause_its_line_and_dynamos_hint(recording: Path) -> None:
    messages = json.loads(recording.read_text())["messages"]
    assert all(HEADER in message for message in messages[:1]), "the header this summary looks past"
    gru, gru_fallback, printed, item = (_summarise(message).split("/graph_breaks/", 1)[-1] for message in messages)
    assert gru.startswith(_line("rnn(x)") + "Attempted to wrap RNN, GRU, or LSTM")
    assert "allow_rnn=True" in gru
    assert gru_fallback.startswith(_line("rnn(x)") + "the whole function ran eagerly: Attempted to wrap RNN")
    assert printed.startswith(_line("print(") + "Failed to trace builtin operator") and "`print`" in printed
    assert item.startswith(_line(".item()")) and "capture_scalar_outputs = True" in item
    for summary in (gru, gru_fallback, printed, item):
        assert HEADER not in summary and len(summary) <= SUMMARY_CHARS


def test_a_guard_failure_and_an_older_one_line_reason_are_summarised_as_before() -> None:
    recompile = (
        "Recompiling function fn in /tmp/s.py:12\n    triggered by the following guard failure(s):\n"
        "    - 0/0: tensor 'a' size mismatch at index 0. expected 4, actual 8"
    )
    assert _summarise(recompile) == "- 0/0: tensor 'a' size mismatch at index 0. expected 4, actual 8"
    one_line = "Graph break in user code at /tmp/s.py:14\nGraph Break Reason: Unsupported: builtin: print"
    assert _summarise(one_line) == "/tmp/s.py:14: Unsupported: builtin: print"
    long = "Graph Break Reason: " + "x" * 1000
    assert len(_summarise(long)) == SUMMARY_CHARS and _summarise(long).endswith("…")
