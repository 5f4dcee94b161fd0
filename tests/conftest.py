"""Shared test set-up: one Inductor cache for the whole suite, one engine process to share, and fixtures.

The UI tests' helpers (the app on recorded messages, waiting, what the explorer shows) are plain functions
in ``test_ui_support``, imported by the UI test files.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import pytest

REPO = Path(__file__).resolve().parent.parent
# Set before any engine starts: every child inherits it, so each graph compiles once per machine.
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(REPO / ".cache" / "inductor"))
os.environ.setdefault("KERNEL_TUI_CACHE_DIR", str(REPO / ".cache" / "kernel-tui"))
# The explorer's engines warm the compiler while a learner reads; in tests nobody reads, and each engine would
# pay for it. tests/test_warmup.py turns it back on where the warm-up is what is tested.
os.environ.setdefault("KERNEL_TUI_WARM_UP", "0")
# A sweep ends early when its next point would overrun a time budget, which a busy machine reaches sooner: tests
# that need every size measured would then depend on the machine's load. The budget itself is tested, with a
# small budget of its own, in test_faults.
os.environ.setdefault("KERNEL_TUI_SWEEP_BUDGET_S", "3600")

from kernel_tui.model.expect import NEEDS_SWEEP  # noqa: E402
from kernel_tui.model.report import ScenarioReport  # noqa: E402
from kernel_tui.model.scenario_file import read_scenario  # noqa: E402
from kernel_tui.transport.client import EngineClient  # noqa: E402
from kernel_tui.transport.engine_died import EngineDied  # noqa: E402
from kernel_tui.transport.protocol import Done  # noqa: E402

QUIET_START_S = 0.04
"""How long ``python -c "import json"`` takes on an idle machine: the unit ``pace`` measures the machine in."""


_PACE: list[tuple[float, float]] = []
"""The latest measurement of ``pace``: (when, value)."""
PACE_FRESH_S = 30.0


def pace() -> float:
    """How many times slower than idle this machine runs right now (1 when idle, about 5 at a load of 24 on two
    cores), from the median of three Python starts: every process a test waits for starts the same way. Measured
    again when the last measurement is older than ``PACE_FRESH_S``."""
    if _PACE and time.monotonic() - _PACE[-1][0] < PACE_FRESH_S:
        return _PACE[-1][1]
    times = []
    for _ in range(3):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import json"], check=True)
        times.append(time.perf_counter() - started)
    value = max(1.0, statistics.median(times) / QUIET_START_S)
    _PACE.append((time.monotonic(), value))
    return value


def within(seconds: float) -> float:
    """A wall-clock bound that is itself the behaviour under test (cancel ends the engine within a second),
    scaled by how busy the machine is right now: the suite tests the product, not the machine's load that day."""
    return seconds * pace()


def overdue(started: float, seconds: float) -> bool:
    """Whether a wait begun at ``started`` (``time.monotonic``) has run past ``seconds`` scaled by the machine's
    pace; the pace is measured only once the plain ``seconds`` have passed, so a quick wait costs nothing."""
    elapsed = time.monotonic() - started
    return elapsed > seconds and elapsed > within(seconds)


@pytest.fixture(autouse=True)
def _own_folders(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Drafts and saved snippets go to folders of each test's own: no test touches the home folder."""
    root = tmp_path_factory.mktemp("kernel-tui-folders")
    monkeypatch.setenv("KERNEL_TUI_STATE_DIR", str(root / "state"))
    monkeypatch.setenv("KERNEL_TUI_SNIPPETS_DIR", str(root / "snippets"))


@pytest.fixture
def from_the_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from the repository: the lesson and tracebacks name files relative to the current folder, and
    pictures must read the same on every machine."""
    monkeypatch.chdir(REPO)


@pytest.fixture(scope="session")
def engine() -> Iterator[EngineClient]:
    """A CPU engine shared by the tests that measure real scenarios."""
    with EngineClient("cpu", fresh_per_run=False) as client:
        yield client


@pytest.fixture(scope="session")
def preview_engine() -> Iterator[EngineClient]:
    """A CUDA-preview engine (Inductor's CUDA code generation, on no GPU) shared by the tests that preview:
    each start imports Triton and fakes a device, which costs seconds."""
    client = EngineClient("cuda-preview", arch=90, fresh_per_run=False)
    try:
        client.start()
    except EngineDied as death:
        client.close()
        pytest.fail(f"the preview engine refused to start: {death.describe()}\n{death.stderr_tail}")
    with client:
        yield client


_LESSON_REPORTS: dict[Path, ScenarioReport] = {}


def lesson_report(client: EngineClient, path: Path) -> ScenarioReport:
    """A course lesson measured on the CPU once per test process, as its claims need it (with a size sweep when
    a claim is about the sweep): the claim test, the named-kernels test and the eager-count test read the same
    measurement. ``lesson_params`` keeps a lesson's tests on one xdist worker (``--dist loadgroup``)."""
    if path not in _LESSON_REPORTS:
        claims = read_scenario(path).claims_for("cpu")
        _LESSON_REPORTS[path] = measure(client, path, sweep=bool(NEEDS_SWEEP & set(claims)))
    return _LESSON_REPORTS[path]


def lesson_params(paths: list[Path]) -> list[Any]:
    """Each lesson as a test parameter named by its file, grouped by lesson for ``--dist loadgroup``."""
    return [pytest.param(path, id=path.stem, marks=pytest.mark.xdist_group(path.stem)) for path in paths]


def measure(client: EngineClient, path: Path | str, **options: Any) -> ScenarioReport:
    """Run one scenario through the engine and return its final report."""
    options.setdefault("sweep", False)
    options.setdefault("timeout", 600)
    report = None
    for message in client.run(str(path), **options):
        if isinstance(message, Done):
            report = message.report
    assert report is not None
    return report


class WriteScenario(Protocol):
    """The ``write_scenario`` fixture: source text in, the written file's path out."""

    def __call__(self, source: str, name: str = "scenario.py") -> Path: ...


@pytest.fixture
def write_scenario(tmp_path: Path) -> WriteScenario:
    """Write a scenario file from source text and return its path."""

    def write(source: str, name: str = "scenario.py") -> Path:
        path = tmp_path / name
        path.write_text(source)
        return path

    return write
