"""Training step: engine time of a ``TRAIN = True`` scenario against the same scenario forward-only.

Lesson 21 (add+relu, trained) is run as shipped and as a twin with ``TRAIN = False`` written next to it, in one
warm CPU engine (no interpreter start or torch import in the figure): each once to fill the compile cache, then
each timed, alternately, three times; the medians are compared. The step profiles, counts and times forward
and backward in both modes, and its compile makes two graphs where the twin makes one.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from common import REPO, final_report

from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.transport.client import EngineClient

TRAINED = REPO / "scenarios" / "21_add_relu_backwards.py"
TARGET = 2.5
ROUNDS = 3


def _forward_only_twin(folder: Path) -> Path:
    source = TRAINED.read_text(encoding="utf-8")
    if "TRAIN = True" not in source:
        raise RuntimeError(f"{TRAINED.name} no longer says TRAIN = True: pick another training lesson")
    twin = folder / "forward_only.py"
    twin.write_text(source.replace("TRAIN = True", "TRAIN = False"), encoding="utf-8")
    return twin


def _timed(client: EngineClient, path: Path) -> tuple[float, ScenarioReport]:
    started = time.perf_counter()
    report = final_report(client, path, sweep=False, timeout=600)
    return time.perf_counter() - started, report


def measure() -> dict[str, object]:
    with tempfile.TemporaryDirectory() as folder, EngineClient("cpu", stderr_sink=lambda line: None) as client:
        twin = _forward_only_twin(Path(folder))
        client.start()
        for path in (TRAINED, twin):
            _timed(client, path)  # fills the compile cache
        trained_s, forward_s = [], []
        for _ in range(ROUNDS):
            seconds, trained = _timed(client, TRAINED)
            trained_s.append(seconds)
            seconds, forward = _timed(client, twin)
            forward_s.append(seconds)
    ratio = statistics.median(trained_s) / statistics.median(forward_s)
    assert trained.eager is not None and forward.eager is not None
    return {
        "name": "training step: engine time of add+relu trained (lesson 21) vs forward-only, warm engine",
        "value": f"{statistics.median(trained_s):.2f} s vs {statistics.median(forward_s):.2f} s; "
        f"{trained.eager.kernel_count:g} eager launches vs {forward.eager.kernel_count:g}",
        "ratio": ratio,
        "target": f"<= {TARGET}",
        "met": ratio <= TARGET,
    }


if __name__ == "__main__":
    print(measure())
