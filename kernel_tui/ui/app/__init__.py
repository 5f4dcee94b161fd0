"""The top of ``ui/``: the apps (the explorer, ``kernel-tui view``, ``--serve``), how the command line starts
them, and how they end (a signal, a lost terminal, a crash written where ``view`` reads it), with the app's CSS.

It imports every layer below (``screens``, ``widgets``, ``view``, ``state``, ``link``); none of them imports it.
"""
