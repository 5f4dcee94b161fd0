"""``kernel-tui view``: the explorer on saved results, where nothing is measured and no engine starts.

The explorer itself is unchanged: its scenarios come from the reports (``load_saved_catalog``) and its
engine is a ``SavedResultsLink``. What differs is said where the learner looks: the status line names the
machine the numbers come from and that ``r`` shows them again rather than measuring, and whatever would
run something new (a snippet, a file opened here) says that nothing runs here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from kernel_tui.model.scenario.course import course_dir
from kernel_tui.ui.app.app import KernelTuiApp
from kernel_tui.ui.app.launch import exit_after_first_frame_asked
from kernel_tui.ui.link.view_link import VIEW_MODE_REFUSAL, SavedReport, SavedResultsLink
from kernel_tui.ui.screens.actions import VIEW_ACTIONS, bindings
from kernel_tui.ui.screens.explorer import ExplorerScreen
from kernel_tui.ui.state.course.catalog import ScenarioEntry, load_saved_catalog


class SavedResultsScreen(ExplorerScreen):
    """The explorer screen, saying that its numbers are saved ones and refusing to run anything new."""

    MEASURES = False
    ACTIONS = (*ExplorerScreen.ACTIONS, VIEW_ACTIONS)
    BINDINGS = bindings(*ACTIONS)

    @property
    def saved(self) -> SavedResultsLink:
        return cast("SavedResultsLink", self.link)

    def saved_origin(self) -> str | None:
        saved = self.saved.saved_for(self.entry.path) if self.catalog else None
        if saved is None:
            return None
        # Said first, where the learner looks and before a narrow terminal cuts the line: otherwise the other
        # machines' reports are one unguessed key away.
        others = len(self.saved.columns_for(self.entry.path))
        return (f"m: {others} machines side by side · " if others > 1 else "") + saved.origin()

    def action_device_columns(self) -> None:
        """This scenario's reports from every machine saved, side by side."""
        from kernel_tui.ui.screens.dialogs.device_columns import (
            DeviceColumnsScreen,  # a dialog loads when it first opens
        )

        reports = self.saved.columns_for(self.entry.path) if self.catalog else ()
        if not reports:
            self.notify("no saved report of this scenario to compare", severity="warning")
            return
        self.app.push_screen(DeviceColumnsScreen(reports))

    def _refuse(self) -> None:
        """View mode: nothing new runs here (a snippet, an edit or copy, a file opened, a draft restored)."""
        self.notify(VIEW_MODE_REFUSAL, severity="warning")

    action_new_snippet = action_edit_scenario = action_copy_scenario = action_open_file = _refuse
    action_show_editor = action_restore_drafts = _refuse

    def action_run_snippet(self, sweep: bool) -> None:
        self._refuse()


class SavedResultsApp(KernelTuiApp):
    """The explorer app on a ``SavedResultsLink``, with the view-mode screen."""

    TITLE = "kernel-tui view"
    SCREEN = SavedResultsScreen

    def __init__(self, entries: list[ScenarioEntry], link: SavedResultsLink, **options: Any) -> None:
        first = link.first_report
        super().__init__(entries, device=first.device, arch=first.arch, link_factory=lambda _device: link, **options)


def build_view_app(saved: Sequence[SavedReport], **options: Any) -> SavedResultsApp:
    """The explorer on these saved reports; ``options`` as ``KernelTuiApp`` takes them (clock, predict)."""
    entries = load_saved_catalog([entry.report for entry in saved], course_dir())
    return SavedResultsApp(entries, SavedResultsLink(saved), **options)


def run_view(saved: Sequence[SavedReport], predict: bool = True) -> int:
    """Run the explorer on saved results until the learner quits; the exit code for the command line."""
    app = build_view_app(saved, exit_after_first_frame=exit_after_first_frame_asked(), predict=predict)
    app.run()
    return app.return_code or 0
