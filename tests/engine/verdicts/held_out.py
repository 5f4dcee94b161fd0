"""The held-out scenarios of ``tests/data/verdicts/``, one of each kind, and the cause each is given measured on the
CPU (``test_verdicts``) and in the CUDA preview (``test_preview_verdicts``), side by side.

The two differ where a cause is read from times, which a preview has none of: the tiny call, ``overhead`` on the
CPU, is in the preview a fusion whose worth is untold, and the memory-bound add ``not_measured``.
"""

from __future__ import annotations

from support.locations import DATA

SCENARIOS = DATA / "verdicts"
HELD_OUT = {
    # scenario: (its cause on the CPU, its cause in the preview)
    "tiny_call": ("overhead", "fused"),
    "graph_break": ("graph_breaks", "graph_breaks"),
    "recompiling_shape": ("recompiles", "recompiles"),
    "biased_matmul": ("library_apart", "library_apart"),
    "memory_bound_add": ("memory_bound", "not_measured"),
    "fused_elementwise": ("fused", "fused"),
}
"""Each held-out scenario (``SCENARIOS / f"{name}.py"``) and the cause it must be given on each device."""
