"""Where the checkout's folders are, for tests in any tier folder: each test names them from here, not from its
own file's place."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
REPO = TESTS.parent
DATA = TESTS / "data"
