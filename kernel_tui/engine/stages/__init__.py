"""One measured run, stage by stage: load, inputs, eager, compile, sweep (``pipeline``, ``measure``), the scenario
file and its weights (``loader``), training steps, compile variants, the sweep, and the report's parts they
assemble (its times, its memory, its machine).

It calls ``compiler`` and ``counting`` for what it reports, and never the preview or the server above it.
"""
