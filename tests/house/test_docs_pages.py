"""The documentation's generated tables agree with the code they come from (``tools.docs``):
the keys with the app's bindings, the JSON fields with the report's dataclasses and a real report's JSON, the
file map with the files and their docstrings, the preview's table with its recording."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from support.locations import REPO

from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.ui.screens.actions import EXPLORER_ACTIONS, SNIPPET_ACTIONS, WHY_ACTIONS
from tools.docs import fields as docs_fields
from tools.docs import files as docs_files
from tools.docs import keys as docs_keys
from tools.docs import pages as docs_pages

DATA = REPO / "tests" / "data"


def test_every_generated_section_is_what_its_source_writes_now() -> None:
    stale = docs_pages.stale_pages()
    assert not stale, f"stale: {', '.join(stale)}; run python -m tools.docs"


def test_every_page_in_docs_is_in_the_sites_nav() -> None:
    nav = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    pages = {path.name for path in (REPO / "docs").glob("*.md")}
    assert pages == set(re.findall(r":\s+(\S+\.md)\s*$", nav, re.MULTILINE))


def test_the_keys_page_names_every_key_the_explorer_binds() -> None:
    table = docs_keys.keys_table()
    for action in (*EXPLORER_ACTIONS, *SNIPPET_ACTIONS, *WHY_ACTIONS):
        if action.key is not None:
            assert f"| {action.help.replace('|', chr(92) + '|')} |" in table, action.action


def _paths(value: Any, prefix: str = "") -> set[str]:
    """The documented form of every key in ``value``: ``[]`` for a list's items, ``{NAME}`` for a dict of names."""
    found: set[str] = set()
    if isinstance(value, (list, tuple)):
        for item in value:
            found |= _paths(item, f"{prefix}[]")
    elif isinstance(value, dict):
        for key, item in value.items():
            if prefix.rsplit(".", 1)[-1] in ("expect", "variants"):  # keyed by a claim's or a variant's name
                found |= _paths(item, f"{prefix}{{NAME}}")
                continue
            path = f"{prefix}.{key}" if prefix else key
            found.add(path)
            found |= _paths(item, path)
    return found


def _saved_reports() -> list[dict[str, Any]]:
    """Real engine output: the preview's recording of the course and the UI tests' recorded runs (a sweep,
    variants, a training step, claims, an error), each written as ``--json`` writes it."""
    found = [json.loads(line) for line in (DATA / "preview" / "course_sm90.jsonl").read_text().splitlines()]

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if "scenario" in value and "eager" in value:
                found.append(value)
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for recording in DATA.glob("ui_*_messages.json"):
        walk(json.loads(recording.read_text()))
    return [ScenarioReport.from_dict(report).to_dict() for report in found]


def test_every_key_of_a_real_reports_json_is_documented() -> None:
    rows = docs_fields.field_rows(ScenarioReport)
    documented = {path for path, _, _ in rows}
    # Objects keyed by free names (torch.compile's options, a Triton config's XBLOCK): their keys are data.
    free_form = tuple(
        f"{path}." for path, kind, _ in rows if kind.startswith("object of") and kind != "object of object"
    )
    page = (REPO / "docs" / "json.md").read_text(encoding="utf-8")
    hand_written = page.split("| --- | --- |", 1)[1].split("<!--", 1)[0]
    computed = {
        name
        for row in re.findall(r"^\| ([^|]+) \|", hand_written, re.MULTILINE)
        for name in re.findall(r"`([^`]+)`", row)
    }
    reports = _saved_reports()
    assert len(reports) > 25
    seen = set().union(*(_paths(report) for report in reports))
    assert any(path.startswith("variants{NAME}.") for path in seen) and "eager.kernels[].launch.grid" in seen

    def described(path: str) -> bool:
        if (
            path in documented
            or path.startswith(free_form)
            or any(path == name or path.endswith(f".{name}") for name in computed)
        ):
            return True
        if path.startswith("variants{NAME}."):  # a variant is written as compiled's fields beside its own
            rest = path.split(".", 1)[1]
            return described(f"compiled.{rest}") or rest in computed
        return False

    undocumented = sorted(path for path in seen if not described(path))
    assert not undocumented, f"fields of the JSON that docs/json.md does not describe: {undocumented}"


@dataclass(frozen=True)
class _HalfSaid:
    """Stands in for a report dataclass with one field left unexplained."""

    said: int
    """A field with its sentence."""
    unsaid: int = 0


def test_a_field_without_its_docstring_is_refused() -> None:
    assert docs_fields.field_docs(_HalfSaid) == {"said": "A field with its sentence."}
    with pytest.raises(docs_fields.UndocumentedField, match="_HalfSaid.unsaid"):
        docs_fields.field_rows(_HalfSaid)


def test_a_module_that_says_nothing_of_itself_is_refused(tmp_path: Path) -> None:
    (tmp_path / "kernel_tui").mkdir()
    (tmp_path / "kernel_tui" / "silent.py").write_text("x = 1\n")
    with pytest.raises(docs_files.UndocumentedFile, match="silent.py"):
        docs_files.files_table(tmp_path)
    (tmp_path / "kernel_tui" / "silent.py").write_text('"""Says what it is. And more."""\nx = 1\n')
    assert "| `kernel_tui/silent.py` | Says what it is. |" in docs_files.files_table(tmp_path)


def test_the_readme_is_a_landing_page_whose_links_all_lead_somewhere() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme)
    local = [target for target in targets if "://" not in target]
    assert len(local) > 10
    missing = [target for target in local if not (REPO / target).exists()]
    assert not missing, missing
