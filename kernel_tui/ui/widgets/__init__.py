"""The explorer's widgets, one concept per file; the explorer screen tells each what to show.

The chart and its modes are in ``charts/``. A widget reads its slice's type from ``view`` and plain values from
``state``, and never imports a screen.
"""
