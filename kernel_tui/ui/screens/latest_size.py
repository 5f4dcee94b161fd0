"""Every kernel-tui screen lays itself out at the terminal's latest size only, never at an older one still queued.

Textual's ``Screen`` posts itself a ``Resize`` each time a layout changes its own size. When a screen has two
older sizes queued, each behind another message so that Textual cannot merge them (a screen busy
during a storm of resizes, or a dialog's background screen, which is handed each size twice: by the app and by
the dialog), handling one changes its size and queues that size again behind the other, and the two take
turns for ever: the app drew at full CPU, and after its terminal was closed it ignored SIGHUP and SIGTERM, its
quit queued behind them. A size that is not the app's any more has a newer ``Resize`` on its way (the app's
own handler of the driver's event sends it), so an older one is dropped before Textual lays the screen out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.app import App
    from textual.events import Resize


class LatestSizeOnly:
    """Put before Textual's ``Screen`` among a screen's bases: its ``_on_resize`` runs first and can stop it."""

    app: App[object]

    async def _on_resize(self, event: Resize) -> None:
        if not self.app.is_inline and event.size != self.app.size:
            # Textual's own handlers of this event sit further down the class's MRO: none of them runs.
            event.prevent_default()
