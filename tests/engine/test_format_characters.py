"""Invisible formatting characters (a right-to-left override, zero-width spaces, tag characters) are shown as
their code points wherever stranger's text is shown: a title or file name cannot display as other text."""

from __future__ import annotations

import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from support.hostile_results import with_text, write_lines
from support.locations import REPO
from support.ui_support import ADD_RELU

from kernel_tui.commands.cli import main
from kernel_tui.model.names.safe_text import FORMAT_CHARACTERS, is_safe, safe_line, safe_text

RLO = "\u202e"


def test_every_format_character_of_this_python_is_shown_by_its_code_point() -> None:
    covered = {code for first, last in FORMAT_CHARACTERS for code in range(first, last + 1)}
    of_this_python = {code for code in range(sys.maxunicode + 1) if unicodedata.category(chr(code)) == "Cf"}
    assert of_this_python <= covered
    assert safe_text(f"evil{RLO}yp.txt") == "evil⟨U+202E⟩yp.txt"
    assert safe_line("a\u200bb\ufeffc\U000e0041") == "a⟨U+200B⟩b⟨U+FEFF⟩c⟨U+E0041⟩"
    assert not is_safe(f"x{RLO}") and is_safe(safe_text(f"x{RLO}"))
    assert safe_text("é ü — ✓ ⇒ 日本") == "é ü — ✓ ⇒ 日本", "visible text is left alone"


def test_list_shows_a_right_to_left_override_in_a_title_and_a_file_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # one row per scenario, however long the temporary folder's name
    scenario = tmp_path / f"evil{RLO}yp.py"
    body = "def fn(a):\n    return a\n\ndef inputs(size, device):\n    return ()\n"
    scenario.write_text(f'"""Harmless{RLO}txt.exe"""\n\n{body}')
    assert main(["list", str(scenario)]) == 0
    shown = capsys.readouterr().out
    assert RLO not in shown
    assert "Harmless⟨U+202E⟩txt.exe" in shown and f"{tmp_path}/evil⟨U+202E⟩yp.py" in shown


# -- text no stream can encode (issue 58) -------------------------------------------------------------------------

LONE_SURROGATE = "\ud800"
"""Half of a UTF-16 pair: a Python string may hold it (``"\\ud800"`` in a docstring), no codec encodes it."""
ENCODINGS = ("utf-8", "ascii", "latin-1")
"""The terminals a learner may have: UTF-8, a bare ``C`` locale's ASCII, and Latin-1 (``LC_ALL=C.ISO-8859-1``)."""
SCENARIO_BODY = ADD_RELU.read_text().split('"""', 2)[2]


def kernel_tui_in(encoding: str, *args: str) -> tuple[int, str, str]:
    """``kernel-tui ARGS`` writing to a terminal of ``encoding``: its exit status, stdout and stderr as read back."""
    env = {**os.environ, "PYTHONIOENCODING": encoding, "COLUMNS": "400"}
    result = subprocess.run(
        [sys.executable, "-m", "kernel_tui", *args], capture_output=True, env=env, cwd=REPO, timeout=120
    )
    return result.returncode, result.stdout.decode(encoding), result.stderr.decode(encoding, errors="replace")


def surrogate_folder(folder: Path) -> Path:
    """Two scenarios: the first's docstring holds a lone surrogate (written as an escape: the file is UTF-8)."""
    folder.mkdir()
    (folder / "1_surrogate.py").write_text(f'"""Add \\ud800 then ReLU"""{SCENARIO_BODY}')
    (folder / "2_plain.py").write_text(f'"""Plain add, then ReLU"""{SCENARIO_BODY}')
    return folder


@pytest.mark.engine  # the CLI in a process of its own, under the encoding asked
@pytest.mark.parametrize("encoding", ENCODINGS)
def test_list_shows_a_lone_surrogate_and_the_next_file_whatever_the_terminal_encodes(
    tmp_path: Path, encoding: str
) -> None:
    """It raised ``UnicodeEncodeError`` mid-table, the next file's row never printed (and any title outside
    ASCII did the same on an ASCII terminal)."""
    returncode, out, err = kernel_tui_in(encoding, "list", str(surrogate_folder(tmp_path / "scenarios")))
    assert returncode == 0 and "Traceback" not in err and "Error" not in err, err
    assert "Plain add, then ReLU" in out and "2_plain.py" in out
    stand_in = "⟨U+D800⟩" if encoding == "utf-8" else "?U+D800?"
    assert f"Add {stand_in} then ReLU" in out


@pytest.mark.engine  # the CLI in a process of its own, under the encoding asked
@pytest.mark.parametrize("encoding", ENCODINGS)
def test_view_text_shows_a_results_file_whose_title_holds_a_lone_surrogate(tmp_path: Path, encoding: str) -> None:
    saved = write_lines(tmp_path / "saved.jsonl", with_text(f"{LONE_SURROGATE}{RLO}é·✓"))
    returncode, out, err = kernel_tui_in(encoding, "view", str(saved), "--text")
    assert returncode == 0 and "Traceback" not in err and "Error" not in err, err
    title = {"utf-8": "⟨U+D800⟩⟨U+202E⟩é·✓", "ascii": "?U+D800??U+202E????", "latin-1": "?U+D800??U+202E?é·?"}
    assert f"title {title[encoding]}" in out
