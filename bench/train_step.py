"""Training step: engine time of a ``TRAIN = True`` scenario against the same scenario forward-only.

Lesson 21 (add+relu, trained) is run as shipped and as a twin with ``TRAIN = False`` written next to it, each
once to fill the compile cache and then timed, in the same run: the step profiles, counts and times forward
and backward in both modes, and its compile makes two graphs where the twin makes one.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from common import REPO, run_json

TRAINED = REPO / "scenarios" / "21_add_relu_backwards.py"
TARGET = 2.5


def _forward_only_twin(folder: Path) -> Path:
    source = TRAINED.read_text(encoding="utf-8")
    if "TRAIN = True" not in source:
        raise RuntimeError(f"{TRAINED.name} no longer says TRAIN = True: pick another training lesson")
    twin = folder / "forward_only.py"
    twin.write_text(source.replace("TRAIN = True", "TRAIN = False"), encoding="utf-8")
    return twin


def _timed(path: Path) -> tuple[float, dict]:
    started = time.perf_counter()
    (report,) = run_json(str(path), "--no-sweep")
    return time.perf_counter() - started, report


def measure() -> dict[str, object]:
    with tempfile.TemporaryDirectory() as folder:
        twin = _forward_only_twin(Path(folder))
        for path in (TRAINED, twin):
            _timed(path)  # fills the compile cache
        trained_s, trained = _timed(TRAINED)
        forward_s, forward = _timed(twin)
    ratio = trained_s / forward_s
    launches = f"{trained['eager']['kernel_count']:g} eager launches vs {forward['eager']['kernel_count']:g}"
    return {
        "name": "training step: engine time of add+relu trained (lesson 21) vs forward-only",
        "value": f"{trained_s:.1f} s vs {forward_s:.1f} s; {launches}",
        "ratio": ratio,
        "target": f"<= {TARGET}",
        "met": ratio <= TARGET and trained["error"] is None and forward["error"] is None,
    }


if __name__ == "__main__":
    print(measure())
