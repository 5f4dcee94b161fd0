"""Faults never take the explorer down: bad files, engine death, failed allocations and compile failures,
with the real engine on CPU. Each shows one line naming file, line and stage; after a death the engine
restarts by itself and the next scenario runs.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import overdue
from support.locations import DATA
from support.processes import is_running, listening_sockets
from support.ui_support import status, wait_for
from textual.pilot import Pilot

from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.link.engine_link import ClientEngineLink
from kernel_tui.ui.state.course.catalog import load_catalog
from kernel_tui.ui.state.run_state import RunStatus, ScenarioRun

FAULTS = DATA / "faults"
HEALTHY = DATA / "views_only.py"
TIMEOUT_S = 300.0

pytestmark = pytest.mark.slow


async def settle(pilot: Pilot[None], condition: Callable[[], bool], what: str) -> None:
    await wait_for(pilot, condition, timeout=TIMEOUT_S, what=what)


async def run_scenario(app: KernelTuiApp, pilot: Pilot[None], path: Path, key: str = "r") -> ScenarioRun:
    explorer = app.get_explorer()
    assert explorer is not None
    explorer.catalog.select(explorer.catalog.paths().index(path))
    explorer.derive_shown()
    await pilot.press(key)
    await settle(pilot, lambda: path in explorer.runs and not explorer.runs[path].running, path.name)
    return explorer.runs[path]


@pytest.mark.parametrize(
    ("name", "where"),
    [
        ("exits.py", "exits.py: engine: the engine exited with code 3"),
        ("segfaults.py", "segfaults.py:14: engine: the engine was killed by SIGSEGV in the eager profile, in fn"),
    ],
)
@pytest.mark.engine
async def test_engine_death_is_shown_and_the_engine_restarts_by_itself(name: str, where: str) -> None:
    fault = FAULTS / name
    app = KernelTuiApp(load_catalog([fault, HEALTHY], course=None), device="cpu")
    async with app.run_test(size=(160, 48)) as pilot:
        explorer = app.get_explorer()
        assert explorer is not None
        await settle(pilot, lambda: explorer.hello is not None, "the engine's first start")
        assert explorer is not None
        assert explorer.hello is not None
        first_pid = explorer.hello.pid
        run = await run_scenario(app, pilot, fault)
        assert run.status is RunStatus.FAILED
        assert where in status(app)
        # Restarted without a key press, while the learner reads the error.
        await settle(pilot, lambda: explorer.hello is not None, "the engine's restart")
        assert explorer.hello.pid != first_pid
        healthy = await run_scenario(app, pilot, HEALTHY)
        assert healthy.status is RunStatus.DONE, healthy.record.error


TORCH_INPUTS = "import torch\ndef inputs(size, device):\n    return (torch.ones(4),)\n"
BAD_FILES = [
    ("syntax.py", "def fn(a):\n    return a +\n", "syntax.py:2: load: syntax error"),
    ("imports.py", "import no_such_module_here\n", "imports.py:1: load: ModuleNotFoundError"),
    ("no_fn.py", TORCH_INPUTS, "no_fn.py: load: the scenario defines no function fn()"),
    (
        "not_tensors.py",
        "import torch\ndef fn(a):\n    return a\ndef inputs(size, device):\n    return [1]\n",
        "not_tensors.py:4: inputs: inputs() returned a int",
    ),
    ("raises.py", "def fn(a):\n    raise ValueError('boom')\n" + TORCH_INPUTS, "raises.py:2: eager: ValueError: boom"),
    (
        "returns_none.py",
        "def fn(a):\n    a + 1\n" + TORCH_INPUTS,
        "returns_none.py:1: eager: fn() must return a tensor",
    ),
    ("bad_expect.py", "EXPECT = {'eager': 'two'}\n", "bad_expect.py:1: load: EXPECT eager must be a number"),
]


@pytest.mark.engine
async def test_bad_files_show_file_line_and_stage_and_the_app_stays_usable(tmp_path: Path) -> None:
    paths = []
    for name, source, _ in BAD_FILES:
        paths.append(tmp_path / name)
        paths[-1].write_text(source)
    app = KernelTuiApp(load_catalog([*paths, HEALTHY], course=None), device="cpu")
    async with app.run_test(size=(160, 48)) as pilot:
        for path, (_, _, shown) in zip(paths, BAD_FILES):
            run = await run_scenario(app, pilot, path)
            assert run.status is RunStatus.FAILED
            assert shown in status(app)
            assert run.record.error is not None
            assert run.record.error.details, "the details one key away"
        healthy = await run_scenario(app, pilot, HEALTHY)
        assert healthy.status is RunStatus.DONE, healthy.record.error


@pytest.mark.engine
async def test_compile_failure_keeps_eager_and_memory_ends_the_sweep_with_a_note() -> None:
    app = KernelTuiApp(load_catalog([FAULTS / "bad_backend.py", FAULTS / "too_big.py"], course=None), device="cpu")
    async with app.run_test(size=(160, 48)) as pilot:
        failed = await run_scenario(app, pilot, FAULTS / "bad_backend.py")
        assert failed.record.report is not None and failed.record.report.eager is not None
        assert failed.record.report.eager.kernel_count == 1 and failed.record.report.compiled is None
        assert "bad_backend.py: compile: InvalidBackend" in status(app)
        swept = await run_scenario(app, pilot, FAULTS / "too_big.py", key="s")
        assert swept.status is RunStatus.DONE, swept.record.error
        assert swept.record.report is not None
        assert "out of memory" in (swept.record.report.sweep[-1].note or "")


@pytest.mark.engine
async def test_what_a_scenario_prints_reaches_the_output_log_not_the_screen() -> None:
    app = KernelTuiApp(load_catalog([DATA / "chatty.py"], course=None), device="cpu")
    async with app.run_test(size=(160, 48)) as pilot:
        run = await run_scenario(app, pilot, DATA / "chatty.py")
        assert run.status is RunStatus.DONE, run.record.error
        assert "inside fn {not json" in app.link.output()
        assert isinstance(app.link, ClientEngineLink) and app.link.log_path is not None
        assert "inside fn {not json" in app.link.log_path.read_text(), "and to a log file the user can open"


@pytest.mark.engine
async def test_opening_a_folder_executes_nothing_nothing_listens_and_quit_leaves_nothing_running(
    tmp_path: Path,
) -> None:
    import os

    marker = tmp_path / "executed"
    (tmp_path / "side_effect.py").write_text(
        f'"""Writes a file when executed"""\nopen({str(marker)!r}, "w").close()\n'
        "import torch\ndef fn(a):\n    return a + 1\ndef inputs(size, device):\n    return (torch.ones(4),)\n"
    )
    app = KernelTuiApp(load_catalog([tmp_path], course=None), device="cpu")
    async with app.run_test(size=(160, 48)) as pilot:
        explorer = app.get_explorer()
        assert explorer is not None
        await settle(pilot, lambda: explorer.hello is not None, "the engine's start")
        assert explorer is not None
        assert explorer.hello is not None
        engine_pid = explorer.hello.pid
        assert not marker.exists(), "listing and showing a scenario must not execute it"
        assert listening_sockets(os.getpid()) == [] and listening_sockets(engine_pid) == []
        await pilot.press("q")
    started = time.monotonic()
    while is_running(engine_pid) and not overdue(started, 5):
        time.sleep(0.05)
    assert not is_running(engine_pid), "the engine must not outlive the app"
