"""The names a report is keyed by: its two modes and a training step's two sections.

Every layer loops over these; they live apart from ``report`` so that the explorer's first frame can name
them without building the report's dataclasses (``tests/house/test_ui_imports.py``).
"""

from __future__ import annotations

MODES = ("eager", "compiled")
"""The two ways a scenario's ``fn`` runs, in the order every table shows them; ``ScenarioReport.mode`` reads one."""
SECTIONS = ("forward", "backward")
"""The two halves of a training step (``TRAIN = True``), in the order its tables show them."""
