"""Names of the Chrome traces ``--trace DIR`` writes, unique per scenario path: ``NAME.eager.json`` for the first
scenario named NAME.py written there, ``NAME-1a2b3c4d.eager.json`` for another file of the same name (two
``dup.py`` in different folders wrote the same trace files, each over the other's).

Which scenario owns which name is kept in the folder itself (``.kernel-tui-traces.json``): each scenario runs in
an engine of its own, and a later ``kernel-tui run`` into the same folder keeps to the same names.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path

from kernel_tui.model.storage.atomic_write import write_atomic

INDEX = ".kernel-tui-traces.json"
"""Name → the absolute path of the scenario whose traces carry it."""


def trace_path(trace_dir: str | None, scenario: Path, mode: str) -> str | None:
    """Where ``scenario``'s ``mode`` trace goes in ``trace_dir`` (None: no traces asked for)."""
    if trace_dir is None:
        return None
    folder = Path(trace_dir)
    folder.mkdir(parents=True, exist_ok=True)
    return str(folder / f"{trace_name(folder, scenario)}.{mode}.json")


def trace_name(folder: Path, scenario: Path) -> str:
    owner = str(scenario.resolve())
    index = _read_index(folder / INDEX)
    for name, path in index.items():
        if path == owner:
            return name
    name = scenario.stem
    # A trace of that name already there and owned by no one we know of (written before the index) is kept too.
    if name in index or any(folder.glob(f"{_glob_escaped(name)}.*.json")):
        name = f"{scenario.stem}-{hashlib.sha256(owner.encode()).hexdigest()[:8]}"
    index[name] = owner
    with contextlib.suppress(OSError):
        write_atomic(folder / INDEX, json.dumps(index, indent=1, sort_keys=True))
    return name


def _read_index(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    # The index is read from a folder anyone may have written: a name that is not a plain file name
    # (``../../x``, an absolute path) would put a trace outside the folder, and is passed over.
    return {str(name): path for name, path in data.items() if isinstance(path, str) and _is_plain_name(str(name))}


def _is_plain_name(name: str) -> bool:
    return bool(name) and name not in (".", "..") and Path(name).name == name and not any(c in name for c in "/\\\0")


def _glob_escaped(name: str) -> str:
    return "".join(f"[{char}]" if char in "*?[]" else char for char in name)
