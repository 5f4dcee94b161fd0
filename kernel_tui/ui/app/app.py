"""The explorer app: one factory-built engine link, the explorer screen, help, and the command palette.

The app itself stays thin: the explorer screen's parts own the data and the runs, and the screen is given
the app's engine link, clock and prediction book. Tests build this same app with a fake link
(``link_factory``) and a frozen clock.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events, on
from textual.app import App, SystemCommand
from textual.screen import Screen

from kernel_tui.ui.app.quit_signals import QuitSignals
from kernel_tui.ui.link.engine_link import EngineLink, EngineLinkFactory, client_engine_link
from kernel_tui.ui.screens.actions import APP_ACTIONS, bindings, keyed, offered
from kernel_tui.ui.screens.explorer import ExplorerScreen
from kernel_tui.ui.screens.key_queue import HeldKeys
from kernel_tui.ui.state.course.score import PredictionBook

if TYPE_CHECKING:
    from textual.driver import Driver
    from textual.notifications import SeverityLevel

    from kernel_tui.ui.app.crash_file import CrashSaved
    from kernel_tui.ui.state.course.catalog import ScenarioEntry


class KernelTuiApp(App[None]):
    """kernel-tui's explorer: which kernels a scenario runs, eager and compiled, and what they move."""

    CSS_PATH = ["app.tcss", "snippets.tcss", "why.tcss"]
    SCREEN: type[ExplorerScreen] = ExplorerScreen
    """The main screen: ``kernel-tui view`` shows its own kind of explorer."""
    TITLE = "kernel-tui"
    BINDINGS = bindings(APP_ACTIONS)

    def __init__(
        self,
        entries: list[ScenarioEntry],
        *,
        device: str = "auto",
        link_factory: EngineLinkFactory = client_engine_link,
        clock: Callable[[], float] = time.monotonic,
        exit_after_first_frame: bool = False,
        predict: bool = True,
        arch: int | None = None,
    ) -> None:
        super().__init__()
        self.entries = entries
        self.device = device
        self.link: EngineLink = link_factory(device)
        self.clock = clock
        """Where elapsed times come from; tests freeze it so screenshots do not change."""
        self._exit_after_first_frame = exit_after_first_frame
        self.predictions = PredictionBook(enabled=predict, device=device, arch=arch)
        """The course's predict-then-reveal answers and score (``--no-predict``: off at start)."""
        self.crash_to_file = not self.is_headless
        """Whether an unexpected exception saves the session and ends the app with one line (``_handle_exception``)."""
        self.crash_saved: CrashSaved | None = None
        """Where the last such exception's results and traceback were written."""
        self._quit_signals: QuitSignals | None = None
        self.held_keys = HeldKeys(self)
        """Keys pressed while a screen opens, or a pane takes the focus, wait for it (``key_queue.HeldKeys``)."""

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """A toast, never read as markup whatever the caller asked: its text names scenarios, kernels and errors
        that strangers wrote (a ``[/]`` in a title once crashed the app, a ``[link=…]`` was followed)."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    # Textual's own toasts are written in markup (``Press [b]q[/b] to quit``), which ``notify`` above shows as
    # typed: each is said again here in plain words.

    def action_help_quit(self) -> None:
        """Ctrl+C does not quit: say which key does."""
        for active in self.active_bindings.values():
            if active.binding.action in ("quit", "app.quit"):
                key = self.get_key_display(active.binding)
                self.notify(f"Press {key} to quit the app", title="Do you want to quit?")
                return

    @on(events.DeliveryComplete)
    def _say_screenshot_saved(self, event: events.DeliveryComplete) -> None:
        if event.name == "screenshot":
            event.prevent_default()  # Textual's handler would say it in markup
            where = f" to {event.path}" if event.path is not None else ""
            self.notify(f"Saved screenshot{where}", title="Screenshot")

    def _handle_exception(self, error: Exception) -> None:
        """An exception nothing in the app expected: Textual ends the app on it (the pane whose handler raised has
        stopped reading its messages). The session's results are saved first and the terminal gets one line
        naming where (``crash_file``), not Textual's traceback; under Pilot (headless) tests see the exception."""
        if self.is_headless and not self.crash_to_file:
            super()._handle_exception(error)
            return
        from kernel_tui.ui.app.crash_file import save_crash

        explorer = self.get_explorer()
        reports = explorer.session_reports() if explorer is not None else []
        saved = save_crash(error, reports)
        self.crash_saved = saved
        self.exit(return_code=1, message=saved.one_line(error))

    def get_driver_class(self) -> type[Driver]:
        driver = super().get_driver_class()
        from textual.drivers.linux_driver import LinuxDriver

        if driver is not LinuxDriver:  # Windows, or served to a browser (textual-serve's own driver)
            return driver
        from kernel_tui.ui.app.terminal_driver import TerminalDriver

        return TerminalDriver

    def get_default_screen(self) -> Screen[Any]:
        return self.SCREEN(
            self.entries, link=self.link, clock=self.clock, predictions=self.predictions, app_title=self.title
        )

    def on_load(self) -> None:
        # SIGTERM and SIGHUP quit as ctrl+q does, and end the process in seconds if that quit cannot finish.
        self._quit_signals = QuitSignals(self._stopped_by, lambda: self._driver)
        if not self._quit_signals.install():
            self._quit_signals = None

    def _stopped_by(self, code: int, why: str) -> None:
        self.exit(return_code=code, message=why)

    def on_ready(self) -> None:
        # Sent once the first frame is on the terminal: the startup bench ends here.
        gc.enable()  # off for the imports and the first frame (``kernel_tui.commands.cli``)
        if self._exit_after_first_frame:
            self.exit()

    def on_unmount(self) -> None:
        # The engine and its compile workers must not outlive the app (nor keep a worker thread blocked).
        self.link.close()
        if self._quit_signals is not None:
            self._quit_signals.restore()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):
            if self._exit:
                return  # quitting: the screens are being taken down, and a key's action would reach their remains
            if event.is_forwarded:
                # A key under way that climbed back unhandled, about to meet the bindings: while the focus is on its
                # way to a widget (``key_queue.HeldKeys``), or once it has moved on to another, it is that widget's.
                if self.held_keys.holding() and not self.held_keys.passing(event):
                    self.held_keys.keep(event)
                    return
                if self.held_keys.redirect(event):
                    return
            elif await self._kept_before_the_focus(event):
                return
            else:
                self.held_keys.read(event)
                target = self.focused or self.screen
                await super().on_event(event)
                if event.is_forwarded:  # handed on to ``target``, not acted on here as a priority binding (ctrl+q)
                    self.held_keys.climbing(event, target)
                return
        await super().on_event(event)

    async def _kept_before_the_focus(self, key: events.Key) -> bool:
        """Checked before Textual hands a key to the focused widget: while the focus is on its way (a screen
        opening, a pane asked to take it), the key is kept; the keys bound with priority (ctrl+q) still act at
        once."""
        if not self.held_keys.holding():
            return False
        if not await self._check_bindings(key.key, priority=True):
            self.held_keys.keep(key)
        return True

    def on_idle(self) -> None:
        # A key's action runs in the app's queue, not the screen's: the explorer's funnel runs after it here.
        explorer = self.get_explorer()
        if explorer is not None and explorer.is_mounted:
            explorer.on_idle()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "help" and getattr(self.focused, "id", None) == "snippet-text":
            return False  # "?" is typed in the editor: its own F1 binding is the one the footer shows
        return super().check_action(action, parameters)

    async def action_quit(self) -> None:
        """Quit (q, ctrl+q), but never lose typed text silently: with the snippet in no file (a full disk), ask
        first; with it kept in a file other than its draft, name that file on the terminal once the app ends."""
        from kernel_tui.ui.screens.dialogs.quit_anyway import QuitAnywayScreen

        explorer = self.get_explorer()
        if explorer is None or not explorer.is_mounted:
            self.exit()
            return
        if isinstance(self.screen, QuitAnywayScreen):
            return
        at_risk = explorer.snippets.text_at_risk()
        if at_risk is not None:
            self.push_screen(QuitAnywayScreen(at_risk), self._quit_anyway)
            return
        kept = explorer.snippets.kept_elsewhere()
        # As Text: Textual prints a string message as markup, and a path may hold brackets.
        self.exit(message=Text(kept) if kept is not None else None)

    def _quit_anyway(self, quit_anyway: bool | None) -> None:
        if quit_anyway:
            self.exit()

    def action_help_in_editor(self) -> None:
        self.action_help()

    def action_help(self) -> None:
        """Show every key, from the same action tables the bindings are made of."""
        from kernel_tui.ui.screens.dialogs.help import HelpScreen  # a dialog's module loads when it first opens

        if isinstance(self.screen, HelpScreen):
            return
        explorer = self.get_explorer()
        tables = explorer.ACTIONS if explorer is not None else ()
        self.push_screen(HelpScreen(keyed(*tables, APP_ACTIONS)))

    def get_explorer(self) -> ExplorerScreen | None:
        for screen in self.screen_stack:
            if isinstance(screen, ExplorerScreen):
                return screen
        return None

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        explorer = self.get_explorer()
        if explorer is not None:
            for command in offered(*explorer.ACTIONS):
                yield SystemCommand(
                    command.title, command.help, lambda action=command.action: self.run_action(action, explorer)
                )
        for command in offered(APP_ACTIONS):
            yield SystemCommand(command.title, command.help, lambda action=command.action: self.run_action(action))
        yield from super().get_system_commands(screen)
