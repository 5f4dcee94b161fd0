"""The documentation's generated sections, each written from the code that is its source.

A page holds a section between two markers (``<!-- generated: NAME ... -->`` and ``<!-- end of generated:
NAME -->``); ``python -m tools.docs`` rewrites every section from its source and
``tests/house/test_docs_pages.py`` fails when a page and its source disagree, so no table of keys, JSON fields,
files or preview results is ever written by hand. No torch is imported.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


@dataclass(frozen=True)
class GeneratedSection:
    """One generated region of a page: where it is and the function that writes it."""

    name: str
    page: Path
    write: Callable[[], str]

    @property
    def begin(self) -> str:
        return f"<!-- generated: {self.name}; python -m tools.docs rewrites it, do not edit -->"

    @property
    def end(self) -> str:
        return f"<!-- end of generated: {self.name} -->"

    def page_with_section(self, page: str) -> str:
        """``page`` with the text between this section's markers written anew."""
        if self.begin not in page or self.end not in page:
            raise ValueError(f"{self.page.name} has no markers for the generated section {self.name!r}")
        start, stop = page.index(self.begin) + len(self.begin), page.index(self.end)
        return page[:start] + "\n" + self.write().rstrip("\n") + "\n" + page[stop:]


def sections() -> list[GeneratedSection]:
    """Every generated section of the docs (their sources imported only when asked for)."""
    from tools.docs import fields, files, keys, preview_table

    return [
        GeneratedSection("keys", DOCS / "explorer.md", keys.keys_table),
        GeneratedSection("json fields", DOCS / "json.md", fields.fields_tables),
        GeneratedSection("file map", DOCS / "files.md", lambda: files.files_table(ROOT)),
        GeneratedSection("preview table", DOCS / "GPU.md", lambda: preview_table.table(preview_table.read_recording())),
    ]


def stale_pages() -> list[str]:
    """The sections whose page differs from what their source writes now."""
    return [
        f"{section.page.relative_to(ROOT)} ({section.name})"
        for section in sections()
        if (page := section.page.read_text(encoding="utf-8")) != section.page_with_section(page)
    ]


def main() -> int:
    for section in sections():
        page = section.page.read_text(encoding="utf-8")
        section.page.write_text(section.page_with_section(page), encoding="utf-8")
        print(f"{section.page.relative_to(ROOT)}: {section.name} rewritten", file=sys.stderr)
    return 0
