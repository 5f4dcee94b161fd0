"""Invisible formatting characters (a right-to-left override, zero-width spaces, tag characters) are shown as
their code points wherever stranger's text is shown: a title or file name cannot display as other text."""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

import pytest

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
