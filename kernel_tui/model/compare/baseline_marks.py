"""What a comparison with a pinned baseline calls each kernel, the mark it shows and the colour it shows it in.

Apart from ``baseline`` so that the kernel tables and the summary can name them before any comparison was made
(the explorer's first frame does not import the comparison, ``tests/house/test_ui_imports.py``).
"""

from __future__ import annotations

ADDED, REMOVED, CHANGED, SAME = "added", "removed", "changed", "same"
MARKS = {ADDED: "+", REMOVED: "-", CHANGED: "~", SAME: " "}
MARK_STYLES = {ADDED: "red", REMOVED: "green", CHANGED: "yellow", SAME: ""}
"""Added work reads as a cost and removed work as a saving, as a fusion guard sees them: the same colours in
``kernel-tui run --baseline`` and in the app's tables and summary."""
