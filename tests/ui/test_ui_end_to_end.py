"""The explorer driven by keys with the real engine on CPU: one tiny scenario, kernel tables only.

The one UI test that compiles for real (a cold compile takes tens of seconds on two cores), hence the
generous wait and the ``slow`` marker.
"""

from __future__ import annotations

import time

import pytest
from conftest import overdue
from support.ui_support import ADD_RELU, shown_text

from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.state.course.catalog import load_catalog
from kernel_tui.ui.state.run_state import RunStatus
from kernel_tui.ui.widgets.kernel_table import KernelTable

pytestmark = pytest.mark.engine  # every test here starts kernel-tui (make test-fast runs none)

TIMEOUT_S = 300.0


@pytest.mark.slow
async def test_run_add_relu_on_the_real_engine_fills_the_kernel_tables() -> None:
    app = KernelTuiApp(load_catalog([ADD_RELU], course=None), device="cpu")
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.press("r")
        explorer = app.get_explorer()
        started = time.monotonic()
        assert explorer is not None
        while explorer.runs[ADD_RELU].running:
            assert not overdue(started, TIMEOUT_S), f"no result within {TIMEOUT_S:g} s (scaled by the machine's pace)"
            await pilot.pause(0.2)
        await pilot.pause()
        run = explorer.runs[ADD_RELU]
        assert run.status is RunStatus.DONE, run.record.error
        eager = explorer.query_one("#eager", KernelTable)
        compiled = explorer.query_one("#compiled", KernelTable)
        assert eager.row_count == 2
        assert compiled.row_count == 1
        assert "fused" in compiled.kernels[0].short_name
        assert explorer.hello is not None and explorer.hello.device == "cpu"
        assert "✓ done" in shown_text(explorer.query_one("#status-text"))
        assert run.record.report is not None and all(check.ok for check in run.record.report.expect.values())
