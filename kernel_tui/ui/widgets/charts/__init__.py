"""The chart pane and what it can draw: the registry of modes (``chart_modes.py``, the order ``b`` cycles
through), the pane and its plot, and one module per mode with its ``DRAWING``."""
