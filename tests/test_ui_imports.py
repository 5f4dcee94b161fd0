"""Architecture: the UI process never imports torch (fast start; a CUDA fault cannot take the UI down)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from test_ui_support import ADD_RELU, REPO


def test_building_the_app_does_not_import_torch():
    # A fresh interpreter: this test session may have imported torch elsewhere.
    code = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path

        import kernel_tui.cli
        import kernel_tui.ui.app
        from kernel_tui.ui.launch import build_app

        app = build_app([Path({str(ADD_RELU)!r})], device="cpu")
        assert app.entries and app.link is not None
        heavy = sorted(name for name in sys.modules if name.split(".")[0] in ("torch", "triton"))
        print(",".join(heavy))
        """
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"the UI imported: {result.stdout.strip()}"
