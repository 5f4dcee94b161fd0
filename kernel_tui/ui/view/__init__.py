"""What the panes say: ``shown(state, now)`` turns the explorer's state into ``Shown``, one frozen slice per
pane, and the modules here put its words together (the status line, the summary, the code's gutter and links,
why these kernels).

Textual-free and pure: it imports ``state`` (and ``link``'s run phases through it), never a widget or a screen.
"""
