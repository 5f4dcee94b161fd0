"""kernel-tui's own folder: where the engine's log, the drafts and the prediction answers are kept.

``KERNEL_TUI_STATE_DIR`` overrides it (tests point it at a temporary folder); otherwise it is
``$XDG_STATE_HOME/kernel-tui``, else ``~/.local/state/kernel-tui``. The engine link, the drafts, the score and the
crash file all write there, so it sits at the bottom of ``ui/``, below each of them.
"""

from __future__ import annotations

import os
from pathlib import Path

STATE_DIR_ENV = "KERNEL_TUI_STATE_DIR"


def state_dir() -> Path:
    """kernel-tui's own state (drafts, answers, the engine's log): never a folder the learner is expected to look
    into."""
    configured = os.environ.get(STATE_DIR_ENV, "").strip()
    if configured:
        return Path(configured).expanduser()
    xdg = os.environ.get("XDG_STATE_HOME", "").strip()
    return (Path(xdg).expanduser() if xdg else Path.home() / ".local" / "state") / "kernel-tui"
