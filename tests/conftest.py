"""Shared test set-up: one Inductor cache for the whole suite, one engine process to share, and fixtures.

The UI tests' helpers (the app on recorded messages, waiting, what the explorer shows) are plain functions
in ``support/ui_support``, imported by the UI test files; every other shared helper is in ``support/``.
"""

from __future__ import annotations

import contextlib
import gc
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import pytest
from support.locations import REPO

# Set before any engine starts: every child inherits it, so each graph compiles once per machine.
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(REPO / ".cache" / "inductor"))
os.environ.setdefault("KERNEL_TUI_CACHE_DIR", str(REPO / ".cache" / "kernel-tui"))
# A sweep ends early when its next point would overrun a time budget, which a busy machine reaches sooner: tests
# that need every size measured would then depend on the machine's load. The budget itself is tested, with a
# small budget of its own, in test_faults.
os.environ.setdefault("KERNEL_TUI_SWEEP_BUDGET_S", "3600")
# OpenMP threads wait passively in every engine, the suite's as a user's: kernel_tui sets OMP_WAIT_POLICY=PASSIVE
# unless it is set (model/settings.TORCH_DEFAULTS), which saved the suite 40 % of its engine CPU (docs/testing.md).

from support.pace import overdue as overdue
from support.pace import within as within
from support.processes import listening_fork_server

from kernel_tui.model.report.report import ScenarioReport
from kernel_tui.model.scenario.expect import NEEDS_SWEEP
from kernel_tui.model.scenario.scenario_file import read_scenario
from kernel_tui.transport import forked_engines
from kernel_tui.transport.client import EngineClient
from kernel_tui.transport.engine_died import EngineDied
from kernel_tui.transport.protocol import Done

ENGINE_FIXTURES = frozenset({"engine", "preview_engine"})
"""Fixtures that start an engine: a test using one is in the ``engine`` tier (``make test`` only), as is one marked
``engine`` for starting kernel-tui or compiling in the test process itself."""
MODULE_ENGINE_FIXTURES = frozenset(
    {
        ("test_baseline", "original_run"),
        ("test_variants", "plain"),
        ("test_variants", "with_variants"),
        ("test_view", "results"),
        ("test_isolation_states", "probe"),
        ("test_peak_memory", "compiled"),
        ("test_course", "cuda_engine"),
    }
)
"""A test module's own fixtures that run kernel-tui (or compile in the test process), shared by its tests."""
FAST_TIER = os.environ.get("KERNEL_TUI_TEST_TIER") == "fast"
"""Set by ``make test-fast``, which runs ``-m "not engine"``: there, starting kernel-tui's engine or CLI fails, so a
test (or a fixture it uses, of any scope) that needs one cannot hide in the fast tier unmarked."""


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups it hands out whole
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        uses = set(getattr(item, "fixturenames", ()))  # every fixture the test needs, however indirectly
        module = item.module.__name__ if isinstance(item, pytest.Function) else ""
        if ENGINE_FIXTURES & uses or any((module, name) in MODULE_ENGINE_FIXTURES for name in uses):
            item.add_marker(pytest.mark.engine)
        if module and _uses_a_module_fixture_of_its_own(item) and item.get_closest_marker("xdist_group") is None:
            # Under ``--dist loadgroup`` a module-scoped fixture runs once in every worker that gets one of the
            # module's tests: three workers measured the device columns' five CLI runs three times over.
            item.add_marker(pytest.mark.xdist_group(module))
    # The soaks and sweeps first, then the tests that start engines, then the rest: xdist hands tests out in this
    # order, and the ``long`` ones (ten seconds to a minute and a half each) came last in the files' order, so the run
    # ended with one or two workers on them and a core idle. The same held, by less, for an engine test or a module's
    # group of them late in the files: the four workers ended up to 11 s apart. The fast tier's tests, a second or
    # less each, fill the end.
    items.sort(key=lambda item: (item.get_closest_marker("long") is None, item.get_closest_marker("engine") is None))


def _uses_a_module_fixture_of_its_own(item: pytest.Item) -> bool:
    """Whether ``item`` needs a module-scoped fixture defined in its own module (those of ``conftest`` are
    per-session or cheap)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(
        definition.scope == "module" and definition.baseid == item.nodeid.split("::")[0]
        for definitions in info.name2fixturedefs.values()
        for definition in definitions
    )


class _EngineStartInFastTier(AssertionError):
    """A test of the fast tier, or a fixture it uses, started kernel-tui: it belongs in the ``engine`` tier."""


def _guard_against_kernel_tui() -> None:
    """For the whole fast-tier session (a module-scoped fixture starts before any per-test fixture could look)."""
    started = subprocess.Popen

    class Guarded(started):  # type: ignore[valid-type,misc]  # subclassed to check each command first
        def __init__(self, args: Any, *rest: Any, **options: Any) -> None:
            words = [args] if isinstance(args, (str, bytes, os.PathLike)) else list(args)
            if any(_starts_kernel_tui(str(word)) for word in words):
                raise _EngineStartInFastTier(f"kernel-tui started in the fast tier ({words[:4]}): mark the test engine")
            super().__init__(args, *rest, **options)

    subprocess.Popen = Guarded  # type: ignore[misc]


def _starts_kernel_tui(word: str) -> bool:
    """The engine's boot, the CLI (``-m kernel_tui``, the console script) and the app: not a bare import check. A
    Python script counts by what it imports: a test booted the engine through a file of its own."""
    if word.endswith(".py") and Path(word).is_file():
        word = Path(word).read_text(encoding="utf-8", errors="replace")
    return word in ("kernel_tui", "kernel-tui") or word.endswith("/kernel-tui") or "kernel_tui.engine" in word


def _compiles_so_far() -> int:
    """Graphs compiled in this process (Dynamo's count of frames it compiled, AOTAutograd's of graphs), 0 where
    torch's compiler was never imported."""
    utils = sys.modules.get("torch._dynamo.utils")
    if utils is None:
        return 0
    counters = utils.counters
    return int(counters["frames"]["total"] + counters["aot_autograd"]["total"])


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    """In the fast tier, a test that compiles in its own process (a preview's code generation, ``torch.compile``)
    fails, as one that starts the engine does: both are the engine tier's seconds."""
    if not FAST_TIER:
        return (yield)
    before = _compiles_so_far()
    result = yield
    if _compiles_so_far() > before:
        raise _EngineStartInFastTier(f"{item.nodeid} compiled in the fast tier: mark the test engine")
    return result


FULL_COLLECTION_AFTER = 100
"""Collections of the middle generation between two full ones in a test process (CPython's default: 10, once the
objects that reached the oldest generation since the last full one are a quarter more)."""


def pytest_collection_finish() -> None:
    """The collector in each test process: what the imports and the collection made (torch, Textual, the test
    modules: about 415,000 objects) is frozen, and a full collection comes ten times less often by CPython's count.

    Each UI test's app lives long enough for its widgets and their caches to reach the oldest generation, and dies
    at the end of the test: CPython then collected the whole heap (about 900,000 objects, 0.45 s) every 30-odd
    young collections, 12 to 20 s per worker in the fast tier, a third of its CPU. Frozen, a full collection walks
    only what the tests made; rarer, it finds more of it dead. The fast tier used 128 to 137 CPU-s instead of 168
    to 175, and each worker's peak memory stayed within 30 MB of what it was (docs/testing.md). Nothing a test
    checks runs in this process's collector: the engines' own are the product's, and are left as a user's."""
    _freeze_what_lives()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_AFTER)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish() -> None:
    """Once the tests have ended, what lives is frozen again, after the collections that find what has died.

    pytest then collects five times over, to report an exception raised where no test could see it (a ``__del__``):
    each pass walked a worker's whole heap (700,000 objects and more by the end), 4 to 6 s per worker, and the run
    waited for the last worker to exit. Whatever these passes find dead is reported as it was; pytest's own find
    only what has died since."""
    _freeze_what_lives()


def _freeze_what_lives() -> None:
    """Collect until a pass finds nothing dead (at most pytest's five passes; two, as a rule), then freeze what
    lives, so that later collections leave it out."""
    for _ in range(5):
        if not gc.collect():
            break
    gc.freeze()


def pytest_configure(config: pytest.Config) -> None:
    if FAST_TIER:
        _guard_against_kernel_tui()
    elif hasattr(config, "workerinput") or not config.getoption("numprocesses", None):
        _share_a_fork_server(config)
    if prefix := os.environ.get("KERNEL_TUI_TEST_CPU"):
        from support.cpu_cost import CpuCost  # only when asked: ranks the tests by CPU (docs/testing.md)

        config.pluginmanager.register(CpuCost(prefix), "cpu_cost")


def _share_a_fork_server(config: pytest.Config) -> None:
    """One fork server for this test process and every ``kernel-tui`` it starts (``SHARED_ENV``): each CLI run
    would otherwise import torch again in a fork server of its own, about three CPU-seconds, for a hundred-odd
    runs. A run under another import environment (a test that sets one) still starts its own, and the tests of
    process lifetimes run as a user's would (``own_fork_servers``)."""
    shared = contextlib.ExitStack()
    _, path = shared.enter_context(listening_fork_server())
    os.environ[forked_engines.SHARED_ENV] = path
    shared.callback(os.environ.pop, forked_engines.SHARED_ENV, None)
    config.add_cleanup(shared.close)


@pytest.fixture
def own_fork_servers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ``kernel-tui`` the test starts forks its engines from a fork server of its own, as a user's does."""
    monkeypatch.delenv(forked_engines.SHARED_ENV, raising=False)


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
    """The CPU engine client the tests that measure real scenarios share: as the CLI's and the explorer's, each run
    in a fresh engine, taken from the spare (warmed up) that the run before it started."""
    with EngineClient("cpu") as client:
        yield client


@pytest.fixture(scope="session")
def preview_engine() -> Iterator[EngineClient]:
    """A CUDA-preview engine (Inductor's CUDA code generation, on no GPU) shared by the tests that preview:
    each start imports Triton and fakes a device, which costs seconds."""
    client = EngineClient("cuda-preview", arch=90)
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
    """Run one scenario through the engine and return its final report: untimed unless the test asks
    (``timed=True``) or sweeps, as ``kernel-tui run --no-time`` is. The interleaved timing rounds were about two of an
    engine run's three CPU-seconds, in two hundred runs whose tests read no time per call and no speedup (no
    lesson claims one); the profiler's kernel times, which the bandwidth, roofline and time split read, stay."""
    options.setdefault("sweep", False)
    options.setdefault("timed", options["sweep"])  # the sweep is timing: untimed, a run sweeps nothing
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
