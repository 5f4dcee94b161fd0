"""The key bar, rebuilt only when the keys it shows change.

Textual's ``Footer`` recomposes all of its keys (about 30 widgets, each styled anew) whenever the screen
says its bindings may have changed: on every focus move and every ``refresh_bindings``. In the explorer most
of those leave the shown keys as they were, or only turn a key on or off (Esc while a run goes), and the
rebuild was the larger part of a Tab press and of each stage of a run.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class SteadyFooter(Footer):
    """A ``Footer`` that keeps its keys when only their on/off state changed, and rebuilds otherwise."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._composed_from: tuple[object, ...] | None = None
        """The keys now shown, without their on/off state; None before the first build."""
        self._rebuild_pending = False
        """A rebuild is asked for and not done yet: it will read the bindings as they are then, so the
        changes before it need no rebuild of their own (a run's stages changed them several times a frame)."""

    def _shown_keys(self, screen: Screen[object]) -> tuple[object, ...]:
        # Everything of a binding that ``Footer.compose`` reads but whether it is enabled; the command
        # palette's key is shown whether or not it is marked ``show``.
        palette = self.app.COMMAND_PALETTE_BINDING
        return tuple(
            (key, binding.action, binding.description, binding.group, binding.tooltip, tooltip)
            for key, (_, binding, _, tooltip) in screen.active_bindings.items()
            if binding.show or key == palette
        )

    def _enabled_actions(self, screen: Screen[object]) -> dict[str, bool]:
        # ``Footer.compose`` shows one key per action, enabled as the action's first binding is.
        palette = self.app.COMMAND_PALETTE_BINDING
        enabled_by_action: dict[str, bool] = {}
        for key, (_, binding, enabled, _) in screen.active_bindings.items():
            if binding.show or key == palette:
                enabled_by_action.setdefault(binding.action, enabled)
        return enabled_by_action

    def compose(self) -> ComposeResult:
        self._rebuild_pending = False
        if self._bindings_ready:
            self._composed_from = self._shown_keys(self.screen)
        yield from super().compose()

    def bindings_changed(self, screen: Screen[object]) -> None:
        if self._rebuild_pending:
            return
        if (
            self._composed_from is None
            or not self.is_attached
            or screen is not self.screen
            or self._shown_keys(screen) != self._composed_from
        ):
            super().bindings_changed(screen)
            # What ``Footer.bindings_changed`` requires before it asks for the rebuild.
            self._rebuild_pending = self.is_attached and screen is self.screen and screen.app.app_focus
            return
        enabled_by_action = self._enabled_actions(screen)
        for footer_key in self.query(FooterKey):
            enabled = enabled_by_action.get(footer_key.action, not footer_key._disabled)
            # What ``FooterKey.__init__`` sets from ``disabled``: the class that dims it, and the flag its
            # click reads.
            footer_key._disabled = not enabled
            footer_key.set_class(not enabled, "-disabled")
