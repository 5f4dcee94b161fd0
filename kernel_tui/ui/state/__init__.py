"""What the explorer knows, as plain values that no pane fills itself: ``ExplorerState`` (``explorer_state.py``)
and the books it holds: the runs (``run_state.py``), the pinned baselines, the compile variants chosen, the
cursors; the scenarios listed and the learner's predictions (``course/``); the learner's own code (``snippets/``).

Textual-free: unit tests drive it without an app. It imports ``link`` (a run's phase) and nothing above.
"""
