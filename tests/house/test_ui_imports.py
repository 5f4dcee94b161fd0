"""Architecture: the UI process never imports torch (fast start; a CUDA fault cannot take the UI down)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from support.locations import REPO
from support.ui_support import ADD_RELU


def test_building_the_app_does_not_import_torch() -> None:
    # A fresh interpreter: this test session may have imported torch elsewhere.
    code = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path

        import kernel_tui.commands.cli
        import kernel_tui.ui.app.app
        from kernel_tui.ui.app.launch import build_app

        app = build_app([Path({str(ADD_RELU)!r})], device="cpu")
        assert app.entries and app.link is not None
        heavy = sorted(name for name in sys.modules if name.split(".")[0] in ("torch", "triton"))
        print(",".join(heavy))
        """
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"the UI imported: {result.stdout.strip()}"


RUN_ONLY = (
    # What a run needs (its messages, the report and the comparison with a baseline, the CLI's renderer,
    # kernel-name parsing) and the dialogs, which load when first opened: none of it is on the first frame.
    "kernel_tui.model.report.report",
    "kernel_tui.text.baseline",
    "kernel_tui.model.names.names",
    "kernel_tui.transport.protocol",
    "kernel_tui.transport.client",
    "kernel_tui.text.render",
    "kernel_tui.ui.link.messages",
    "kernel_tui.ui.link.engine_worker",
    "kernel_tui.ui.link.run_lifecycle",
    "kernel_tui.model.death.engine_death",
    "kernel_tui.ui.state.kernel_rows",
    "kernel_tui.ui.screens.dialogs.details",
    "kernel_tui.ui.screens.dialogs.help",
    "kernel_tui.ui.screens.dialogs.variants",
    "kernel_tui.ui.screens.dialogs.predict",
    "kernel_tui.ui.screens.dialogs.kernel_code",
    "textual_plotext",
    "torch",
)


@pytest.mark.parametrize("size", [(80, 24), (200, 50)], ids=["tabs", "side-by-side"])
def test_the_first_frame_imports_nothing_that_only_a_run_or_a_dialog_needs(size: tuple[int, int]) -> None:
    """Start-up time (``bench/startup.py``): the explorer's first frame, in either layout, is painted before the
    modules a run or a dialog needs are imported. The modules are read as the first frame goes out (Textual's
    ``App._display``), and the app quits before its engine starts."""
    code = textwrap.dedent(
        f"""
        import sys
        from kernel_tui.ui.app.app import KernelTuiApp
        from kernel_tui.ui.app.launch import build_app
        from kernel_tui.ui.screens.explorer import ExplorerScreen

        loaded = []
        display = KernelTuiApp._display

        def first_frame(app, screen, renderable):
            if renderable is not None and not loaded and isinstance(screen, ExplorerScreen):
                loaded.extend(sys.modules)
            display(app, screen, renderable)

        KernelTuiApp._display = first_frame
        ExplorerScreen._start_engine = lambda screen: screen.app.exit()
        app = build_app([], device="cpu")
        app.run(headless=True, size={size!r})
        print(",".join(loaded))
        """
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert result.returncode == 0, result.stderr
    loaded = set(result.stdout.strip().split(","))
    assert "kernel_tui.ui.screens.explorer_layout" in loaded, "no frame of the explorer was painted"
    early = [name for name in RUN_ONLY if name in loaded]
    assert early == [], f"imported before the first frame: {early}"
