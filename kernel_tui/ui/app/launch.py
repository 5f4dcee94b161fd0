"""From the command line to a running explorer: which scenarios, which engine, then run the app.

``KERNEL_TUI_EXIT_AFTER_FIRST_FRAME=1`` makes the app quit as soon as its first frame is painted: the
startup bench (``bench/startup.py``) times exactly that.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING

from kernel_tui.model.scenario.course import course_dir
from kernel_tui.model.scenario.scenario_file import find_scenarios
from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.link.engine_link import EngineLinkFactory, client_engine_link
from kernel_tui.ui.state.course.catalog import load_catalog

if TYPE_CHECKING:
    from kernel_tui.transport.protocol import Arch

EXIT_AFTER_FIRST_FRAME = "KERNEL_TUI_EXIT_AFTER_FIRST_FRAME"


def exit_after_first_frame_asked() -> bool:
    """Whether the environment asks the app to quit once its first frame is painted (``bench/startup.py``)."""
    return os.environ.get(EXIT_AFTER_FIRST_FRAME, "") not in ("", "0")


def build_app(
    paths: list[Path],
    *,
    device: str = "auto",
    link_factory: EngineLinkFactory = client_engine_link,
    exit_after_first_frame: bool = False,
    predict: bool = True,
    arch: int | None = None,
) -> KernelTuiApp:
    """The app for these scenario files (none: the built-in course); tests pass a fake ``link_factory``."""
    course = course_dir()
    scenario_paths = paths or find_scenarios([course])
    entries = load_catalog(scenario_paths, course)
    return KernelTuiApp(
        entries,
        device=device,
        link_factory=link_factory,
        exit_after_first_frame=exit_after_first_frame,
        predict=predict,
        arch=arch,
    )


def run_app(paths: list[Path], device: str = "auto", predict: bool = True, arch: Arch | None = None) -> int:
    """Run the explorer until the learner quits; the exit code for the command line.

    ``predict``: on the course, ask for a guess at each lesson's kernel counts before its first run. ``arch``:
    with ``cuda-preview``, the GPU architecture each run asks for.
    """
    app = build_app(
        paths,
        device=device,
        link_factory=functools.partial(client_engine_link, arch=arch),
        exit_after_first_frame=exit_after_first_frame_asked(),
        predict=predict,
        arch=arch,
    )
    if not app.entries:
        print("kernel-tui: no scenarios found in the course folder", course_dir())
        return 1
    app.run()
    return app.return_code or 0
