"""Record the engine's real message sequences into the JSON fixtures the UI tests replay.

Run once by hand (it compiles for real): ``.venv/bin/python tests/data/record_messages.py``. Times are
rounded so the snapshots stay readable; the fixtures are then used as they are, never re-recorded in CI.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from kernel_tui.client import EngineClient, EngineDied
from kernel_tui.ui.replay import Recording

HERE = Path(__file__).resolve().parent
SWEEP_SIZES = [2**10, 2**12, 2**14, 2**16, 2**18, 2**20]


def _rounded(value):
    if isinstance(value, float):
        return round(value, 3)
    if isinstance(value, dict):
        return {key: _rounded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_rounded(item) for item in value]
    return value


def record(client: EngineClient, scenario: str, out: str, **options) -> None:
    messages = []
    try:
        messages.extend(client.run(str(HERE / scenario), timeout=900, **options))
    except EngineDied as death:
        print(f"{scenario}: {death.describe()}", file=sys.stderr)
    assert client.hello is not None
    fixture = _rounded(Recording(client.hello, scenario, tuple(messages)).to_json_object())
    (HERE / out).write_text(json.dumps(fixture, indent=1, ensure_ascii=False) + "\n")
    print(f"{out}: {len(messages)} messages")


def main() -> None:
    with EngineClient("cpu", stderr_sink=lambda line: None) as client:
        record(client, "ui_add_relu.py", "ui_add_relu_messages.json", sizes=SWEEP_SIZES, sweep=True)
        record(client, "ui_broken_fn.py", "ui_broken_fn_messages.json", sweep=False)
        record(client, "ui_variants.py", "ui_variants_messages.json", sweep=False)
        record(client, "snippets/ui_snippet_typo.py", "ui_snippet_typo_messages.json", size=4096, sweep=False)
        record(client, "snippets/ui_snippet_syntax.py", "ui_snippet_syntax_messages.json", size=4096, sweep=False)


if __name__ == "__main__":
    main()
