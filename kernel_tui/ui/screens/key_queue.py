"""Keys that wait: in Textual's queue while work would be thrown away by the next one, and for a focus on its way.

A key held down on a busy machine arrives faster than a scenario can be shown (a full repaint costs a quarter
of a second at a load of 13 on two cores); showing each one made keys lag for seconds. Textual has no public
way to ask whether input is queued, so its queue (an ``asyncio.Queue``, a deque inside) is read defensively:
a change in Textual costs only the saving, never correctness.

Keys pressed while a screen or a pane opens wait for the widget that will hold the focus, then go to it.

Textual hands a key to the widget focused when the key is read, and checks the bindings (the screen's and the
app's) as the key climbs back up from it. A screen pushed a moment ago is on top of the stack before it has
composed its widgets, and a pane asked to take the focus gets it a refresh or two later: until then a key
reaches whatever held the focus before, or nothing. So letters typed right after ctrl+n ran the explorer's
bindings (``r`` ran the template, ``z`` opened the size prompt) instead of reaching the editor; a key reaching a
dialog before its ``on_mount`` closed it, and its ``on_mount`` then found no widgets (``NoMatches``).

``HeldKeys`` is the app's one gate for this: while the screen on top is not mounted yet (and until it has given
its focus), or while a widget the screen asked to focus (``await_focus``) has not got it, each key is kept,
both a new one and one already under way that climbs back to the app unhandled; once the focus has landed they
are handed on, in order, to the focused widget, as the app hands on any key. A wait that never ends (a pane that
cannot take the focus) gives the keys back after ``HOLD_LIMIT_S``. A key that climbs back after the focus moved to
another widget (read for the list, a dialog's input focused since) goes to that widget, not to bindings that never
saw it (``redirect``). Keys read as the app quits are dropped (``KernelTuiApp.on_event``): their actions reached
the remains of screens being taken down (``MountError`` on the editor).
"""

from __future__ import annotations

import asyncio
import time
import weakref
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import App

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.widget import Widget

KEY_WAIT_S = 0.03
"""How long deferred work waits before it asks again whether keys are still queued (asking at once, from the
same queue's callbacks, would keep the keys from being read)."""


def keys_waiting(app: App[Any]) -> bool:
    """Whether key presses wait in the app's queue, or kept to be handed on (``HeldKeys``)."""
    if (gate := held_keys(app)) is not None and gate.waiting():
        return True
    queued = getattr(getattr(app, "_message_queue", None), "_queue", ())
    return any(isinstance(message, events.Key) for message in tuple(queued))


HOLD_LIMIT_S = 3.0
"""How long keys may wait for a focus: past it, they go wherever the focus is (a busy machine mounts a screen
in a second or two; a focus that never comes must not swallow the keyboard)."""
POLL_S = 0.01
"""How often a wait looks again whether the focus has landed."""


class HeldKeys:
    """The app's gate for keys pressed while the focus is on its way."""

    def __init__(self, app: App[Any]) -> None:
        self._app = app
        self._kept: list[events.Key] = []
        self._awaited: tuple[Screen[Any] | None, str] | None = None
        """The screen and the id of the widget that keys wait for, asked for by ``await_focus``."""
        self._since = 0.0
        """When the current wait began (``time.monotonic``)."""
        self._polling = False
        self._settled: weakref.WeakSet[Screen[Any]] = weakref.WeakSet()
        """The screens that have given their first focus: a key reaches them at once."""
        self._read_for: weakref.WeakKeyDictionary[events.Key, weakref.ref[Widget]] = weakref.WeakKeyDictionary()
        """The widget each key under way was handed to."""
        self._handing: asyncio.Task[None] | None = None
        """Handing the kept keys on, one at a time (``_hand_on_in_turn``)."""
        self._passing: events.Key | None = None
        """The kept key handed on now: on its way up to the bindings, it is not kept again."""

    def await_focus(self, screen: Screen[Any] | None, widget_id: str) -> None:
        """Keys from now on (and those under way) wait for the widget ``widget_id`` of ``screen`` to have the focus;
        ``screen`` None: of a screen about to open (the drafts offered back on start)."""
        self._awaited = (screen, widget_id)
        self._since = time.monotonic()
        self._poll_soon()

    def holding(self) -> bool:
        """Whether a key read now is kept (``keep``) rather than handed to the focused widget."""
        if self._kept or self._awaited is not None or self._handing is not None:
            return True
        screen = self._top_screen()
        return screen is not None and not self._settled_screen(screen)

    def _settled_screen(self, screen: Screen[Any]) -> bool:
        """Whether ``screen`` has given its first focus (or has nothing to focus): until then it is opening."""
        if screen in self._settled:
            return True
        # Mounted is not enough: the focus it gives from ``on_mount`` is set from the app's queue, after keys
        # already read, and those met only the bindings (the digits typed as the size prompt opened).
        if screen.is_mounted and (screen.focused is not None or not screen.focus_chain):
            self._settled.add(screen)
            return True
        return False

    def passing(self, key: events.Key) -> bool:
        """Whether ``key`` is the kept key being handed on now, climbing back to the bindings."""
        return key is self._passing

    def keep(self, key: events.Key) -> None:
        """Keep ``key`` for the widget the focus is on its way to."""
        if not self._kept and self._awaited is None:
            self._since = time.monotonic()
        self._kept.append(events.Key(key.key, key.character))
        self._poll_soon()

    def read(self, key: events.Key) -> None:
        """``key`` is being handed to the widget focused now (the screen, when none is)."""
        target = self._app.focused or self._top_screen()
        if target is not None:  # (no screen yet: Textual has nowhere to hand it either)
            self._read_for[key] = weakref.ref(target)

    def redirect(self, key: events.Key) -> bool:
        """A key climbing back to the app unhandled, read for a widget that has since lost the focus (a dialog
        opened over it, a pane took the focus): handed to the widget focused now instead (True), as if read now.

        Without this it met the bindings of the new focus, which had never seen it: the digits typed as the size
        prompt opened were neither typed there nor bound to anything, and were lost."""
        read_for = self._read_for.pop(key, None)
        target = self._app.focused or self._top_screen()
        if read_for is None or target is None or read_for() is target:
            return False
        again = events.Key(key.key, key.character)
        self.read(again)
        target._forward_event(again)
        return True

    def _top_screen(self) -> Screen[Any] | None:
        stack = self._app.screen_stack
        return stack[-1] if stack else None

    def _poll_soon(self) -> None:
        if not self._polling:
            self._polling = True
            self._app.set_timer(POLL_S, self._poll)

    def _landed(self) -> bool:
        """Whether the focus is where the keys wait for it."""
        screen = self._top_screen()
        if screen is None or not self._settled_screen(screen):
            return False
        if self._awaited is not None:
            awaited, widget_id = self._awaited
            if awaited is not None and awaited is not screen:
                return True  # another screen opened over it (or it closed): the keys go where the focus is now
            focused = screen.focused
            return focused is not None and focused.id == widget_id
        return True

    def _poll(self) -> None:
        self._polling = False
        if self._app._exit or not (self._kept or self._awaited is not None):
            self._awaited = None
            return
        if not self._landed() and time.monotonic() - self._since < HOLD_LIMIT_S:
            self._poll_soon()
            return
        self._awaited = None
        if (screen := self._top_screen()) is not None:
            self._settled.add(screen)  # given up on: a screen that never gives its focus must not keep every key
        # From the app's queue, behind the focus just set, as the app hands on any key: keys read meanwhile are
        # kept behind these (``holding`` is True while any are kept).
        self._app.call_later(self._hand_on)

    def _hand_on(self) -> None:
        if self._awaited is not None or self._handing is not None:
            return  # a new wait began: its end hands these on; or they are being handed on, these with them
        # A task of its own, not the app's queue: each key is waited for in the queues it passes, the app's among
        # them.
        self._handing = asyncio.get_running_loop().create_task(self._hand_on_in_turn())

    def climbing(self, key: events.Key, target: Widget) -> None:
        """``key``, read now, was handed to ``target``: the keys read after it wait until it has climbed through
        every widget above ``target`` (``_hand_on_in_turn``)."""
        self._passing = key
        self._handing = asyncio.get_running_loop().create_task(self._hand_on_in_turn(target))

    async def _hand_on_in_turn(self, climbing: Widget | None = None) -> None:
        """Once the key ``climbing`` is through, hand the kept keys on one at a time, each once every widget it
        climbs through has taken it.

        Handed on together, a key the focused widget leaves to the bindings (f7 selects all in the editor, delete)
        climbed through the widgets' queues to the app while the letters after it were typed at once: ctrl+n
        f7 delete x.exp(), typed as the editor opened, typed the text and then selected and deleted it. Keys read
        in a burst (a busy machine reads them all at once) went the same way into an editor that had the focus."""
        app = self._app
        try:
            if climbing is not None:
                await _through(climbing)
            while self._kept and self._awaited is None and not app._exit:
                key = self._kept.pop(0)
                # Forwarded: a key climbing back unhandled then meets the bindings, as a key read at once would.
                again = self._passing = events.Key(key.key, key.character)
                self.read(again)
                target = app.focused or app.screen
                target._forward_event(again)
                await _through(target)
        finally:
            self._passing = self._handing = None
            if self._kept and self._awaited is None and not app._exit:
                self._poll_soon()  # kept as the last one was handed on, after the loop looked

    def waiting(self) -> bool:
        """Whether keys are kept, waiting for their turn: not for a focus, which may come only once the screen
        has been shown."""
        return bool(self._kept) and self._awaited is None


async def _through(target: Widget) -> None:
    """Once a key handed to ``target`` has been taken by it and by each widget above it, the app last."""
    for node in target.ancestors_with_self:
        await _taken(node)


async def _taken(node: Any) -> None:
    """Once ``node`` has taken every message queued to it so far (a key handed to it, or bubbled up to it); at
    once for a node taken down meanwhile (a dialog the key closed), and after ``HOLD_LIMIT_S`` at most."""
    taken = asyncio.Event()
    node.call_later(taken.set)
    waited = 0.0
    while not taken.is_set() and waited < HOLD_LIMIT_S:
        if node._closing or node._closed:
            return
        try:
            await asyncio.wait_for(taken.wait(), POLL_S * 5)
        except TimeoutError:
            waited += POLL_S * 5


def held_keys(app: App[Any]) -> HeldKeys | None:
    """The app's gate, where the app has one (kernel-tui's apps do; a test's bare app may not)."""
    gate = getattr(app, "held_keys", None)
    return gate if isinstance(gate, HeldKeys) else None
