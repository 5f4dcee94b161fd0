"""Scale: a scenario of over 300 kernel launches (a small transformer written op by op).

Engine time (warm compile cache) against add+relu's in the same run. The time to render its tables in the
app is measured by ``startup.py``'s harness where the app provides it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from common import REPO, run_json

BIG = REPO / "bench" / "data" / "transformer_block.py"
SMALL = REPO / "tests" / "data" / "add_relu.py"


def _timed(path: Path) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    (report,) = run_json(str(path), "--no-sweep")
    return time.perf_counter() - started, report


def measure() -> dict[str, object]:
    _timed(BIG)  # fills the compile cache
    big_s, big = _timed(BIG)
    small_s, _ = _timed(SMALL)
    launches = big["eager"]["kernel_count"]
    return {
        "name": f"scale: engine time for {launches:g} eager launches (transformer) vs add+relu",
        "value": f"{big_s:.1f} s vs {small_s:.1f} s; {big['compiled']['kernel_count']:g} compiled launches",
        "ratio": big_s / small_s,
        "target": f"{launches:g} >= 300 launches, measured",
        "met": launches >= 300 and big["error"] is None,
    }


if __name__ == "__main__":
    print(measure())
