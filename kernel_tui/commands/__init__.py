"""The commands a user types: ``kernel-tui`` (the app, ``run``, ``list``, ``view``, ``serve``).

The top layer: the only one that may import both the UI and the transport."""
