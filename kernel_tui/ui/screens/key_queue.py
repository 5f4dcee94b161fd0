"""Whether key presses wait to be handled: work that the next key would throw away can wait for it.

A key held down on a busy machine arrives faster than a scenario can be shown (a full repaint costs a quarter
of a second at a load of 13 on two cores); showing each one made keys lag for seconds. Textual has no public
way to ask whether input is queued, so its queue (an ``asyncio.Queue``, a deque inside) is read defensively:
a change in Textual costs only the saving, never correctness.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.app import App

KEY_WAIT_S = 0.03
"""How long deferred work waits before it asks again whether keys are still queued (asking at once, from the
same queue's callbacks, would keep the keys from being read)."""


def keys_waiting(app: App[Any]) -> bool:
    """Whether key presses wait in the app's queue."""
    queued = getattr(getattr(app, "_message_queue", None), "_queue", ())
    return any(isinstance(message, events.Key) for message in tuple(queued))
