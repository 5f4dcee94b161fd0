"""The explorer app: one factory-built engine link, the explorer screen, help, and the command palette.

The app itself stays thin: the explorer screen owns the data and the runs. Tests build this same app
with a fake link (``link_factory``) and a frozen clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from kernel_tui.ui.catalog import ScenarioEntry
from kernel_tui.ui.engine_link import EngineLink, EngineLinkFactory, client_engine_link
from kernel_tui.ui.score import PredictionBook
from kernel_tui.ui.screens.explorer import ExplorerScreen
from kernel_tui.ui.screens.help import HelpScreen
from kernel_tui.ui.screens.snippets import SNIPPET_PALETTE_ACTIONS
from kernel_tui.ui.screens.why import WHY_PALETTE_ACTIONS

PALETTE_ACTIONS = (
    ("Run", "Run the scenario on screen: eager and compiled kernel tables", "run(False)"),
    ("Run with sweep", "Run the scenario and sweep its runtime against size", "run(True)"),
    ("Cancel run", "Stop the engine now; the next run restarts it", "cancel"),
    ("Next scenario", "Show the next scenario of the list", "move(1)"),
    ("Previous scenario", "Show the previous scenario of the list", "move(-1)"),
    ("Details", "Error traceback, engine output, graph breaks, full kernel names", "details"),
    ("Show scenarios", "The scenario list", "pane('scenarios')"),
    ("Show lesson", "The lesson and the code it is about", "pane('lesson')"),
    ("Show kernels", "The eager and compiled kernel tables", "pane('kernels')"),
    ("Show chart", "Runtime against size", "pane('chart')"),
    *SNIPPET_PALETTE_ACTIONS,
    *WHY_PALETTE_ACTIONS,
)
"""What the command palette offers besides Textual's own commands: (title, help, explorer action)."""


class KernelTuiApp(App[None]):
    """kernel-tui's explorer: which kernels a scenario runs, eager and compiled, and what they move."""

    CSS_PATH = ["app.tcss", "snippets.tcss", "why.tcss"]
    TITLE = "kernel-tui"
    BINDINGS = [
        Binding("question_mark,f1", "help", "Help", key_display="?", tooltip="List every key"),
    ]

    def __init__(
        self,
        entries: list[ScenarioEntry],
        *,
        device: str = "auto",
        link_factory: EngineLinkFactory = client_engine_link,
        clock: Callable[[], float] = time.monotonic,
        exit_after_first_frame: bool = False,
        predict: bool = True,
    ) -> None:
        super().__init__()
        self.entries = entries
        self.device = device
        self.link: EngineLink = link_factory(device)
        self.clock = clock
        """Where elapsed times come from; tests freeze it so screenshots do not change."""
        self._exit_after_first_frame = exit_after_first_frame
        self.predictions = PredictionBook(enabled=predict)
        """The course's predict-then-reveal answers and score (``--no-predict``: off at start)."""

    def get_default_screen(self) -> Screen:
        return ExplorerScreen(self.entries)

    def on_ready(self) -> None:
        # Sent once the first frame is on the terminal: the startup bench ends here.
        if self._exit_after_first_frame:
            self.exit()

    def on_unmount(self) -> None:
        # The engine and its compile workers must not outlive the app (nor keep a worker thread blocked).
        self.link.close()

    def action_help(self) -> None:
        """Show every key, from the bindings themselves."""
        if isinstance(self.screen, HelpScreen):
            return
        explorer = self.get_explorer()
        bindings = [*explorer.BINDINGS, *self.BINDINGS] if explorer is not None else list(self.BINDINGS)
        self.push_screen(HelpScreen(binding for binding in bindings if isinstance(binding, Binding)))

    def get_explorer(self) -> ExplorerScreen | None:
        for screen in self.screen_stack:
            if isinstance(screen, ExplorerScreen):
                return screen
        return None

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        explorer = self.get_explorer()
        if explorer is not None:
            for title, help_text, action in PALETTE_ACTIONS:
                yield SystemCommand(title, help_text, lambda action=action: self.run_action(action, explorer))
        yield SystemCommand("Help", "List every key", self.action_help)
        yield from super().get_system_commands(screen)
