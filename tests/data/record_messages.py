"""Record the engine's real message sequences into the JSON fixtures the UI tests replay.

Run once by hand (it compiles for real): ``.venv/bin/python tests/data/record_messages.py [FIXTURE...]``
records the fixtures named (``ui_add_relu_messages.json``), or every one. Times are rounded so the snapshots
stay readable; the fixtures are then used as they are, never re-recorded in CI.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from kernel_tui.transport.client import EngineClient, EngineDied

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/support/replay.py: the recordings' format
from replay import Recording  # noqa: E402

SWEEP_SIZES = [2**10, 2**12, 2**14, 2**16, 2**18, 2**20]


def _rounded(value):
    if isinstance(value, float):
        return round(value, 3)
    if isinstance(value, dict):
        return {key: _rounded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_rounded(item) for item in value]
    return value


def record(client: EngineClient, scenario: str, out: str, name: str | None = None, **options) -> None:
    """``name``: the file name a replay answers to, when the scenario lives outside ``tests/data``."""
    messages = []
    hello = client.start()  # taken before the run: the client ends its engine, and forgets the hello, after it
    try:
        messages.extend(client.run(str((HERE / scenario).resolve()), timeout=900, **options))
    except EngineDied as death:
        print(f"{scenario}: {death.describe()}", file=sys.stderr)
    fixture = _rounded(Recording(hello, name or scenario, tuple(messages)).to_json_object())
    (HERE / out).write_text(json.dumps(fixture, indent=1, ensure_ascii=False) + "\n")
    print(f"{out}: {len(messages)} messages")


def lesson(name: str, **options: Any) -> tuple[str, dict[str, Any]]:
    """A course lesson's fixture: its file, run under its own name."""
    return f"../../scenarios/{name}", {"name": name, **options}


FIXTURES: dict[str, tuple[str, dict[str, Any]]] = {
    "ui_add_relu_messages.json": ("ui_add_relu.py", {"sizes": SWEEP_SIZES, "sweep": True}),
    "ui_broken_fn_messages.json": ("ui_broken_fn.py", {"sweep": False}),
    "ui_variants_messages.json": ("ui_variants.py", {"sweep": False}),
    "ui_which_line_messages.json": ("which_line.py", {"size": 4096, "sweep": False}),
    # which_line.py edited: a graph break after line 7 puts line 8's multiplication in a kernel of its own, so
    # that against a baseline pinned on which_line.py the gutter shows what changed line by line.
    "ui_which_line_then_break_messages.json": ("which_line_then_break.py", {"size": 4096, "sweep": False}),
    # A line whose work vanishes compiled (a multiplication by one), for the lesson's line cursor to say so.
    "ui_which_line_vanished_messages.json": ("which_line_vanished.py", {"size": 4096, "sweep": False}),
    "ui_snippet_typo_messages.json": ("snippets/ui_snippet_typo.py", {"size": 4096, "sweep": False}),
    "ui_snippet_syntax_messages.json": ("snippets/ui_snippet_syntax.py", {"size": 4096, "sweep": False}),
    # A later run of ui_add_relu.py that differs from the first: one kernel more, and every array half as
    # large, so that against a pinned baseline one kernel is added and the others changed.
    "ui_add_relu_then_scale_messages.json": ("add_relu_then_scale.py", {"size": 2**19, "sweep": False}),
    # A training step (lesson 21), small enough to record in seconds.
    "ui_train_add_relu_messages.json": lesson("21_add_relu_backwards.py", size=4096, sweep=False),
    # Lesson 14: an eager matmul whose work went to a library call (aten::addmm), which has no code for g.
    "ui_matmul_bias_relu_messages.json": lesson("14_matmul_bias_relu.py", sweep=False),
    # Lessons whose prediction asks what they teach besides kernel counts: graph breaks (15), the sweep's
    # compiles (16, swept), which side is faster at size 8 (18), which kernel is compute- or memory-bound (20).
    "ui_graph_break_messages.json": lesson("15_graph_break.py", size=4096, sweep=False),
    "ui_static_shapes_messages.json": lesson("16_static_shapes.py", sweep=True),
    "ui_tiny_tensors_messages.json": lesson("18_tiny_tensors.py", sweep=False),
    "ui_matmul_tanh_messages.json": lesson("20_matmul_against_elementwise.py", sweep=False),
    # Lesson 27: the compiled side's boundaries (a library call, a reduction), for the row, the gutter, d and x.
    "ui_why_apart_messages.json": lesson("27_why_kernels_stay_apart.py", size=4096, sweep=False),
    # A slice whose length changes between calls: compiled recompiles, and the verdict suggests the dynamic variant.
    "ui_changing_slice_messages.json": ("changing_slice.py", {"size": 4096, "sweep": False}),
    # Lessons whose claims the prediction asks on the CPU: each line's launches (24), the share of PyTorch's threads
    # the widest kernel runs on (25, at its own size), what takes most of a call (28), the memory at the peak (29).
    "ui_course_24_messages.json": lesson("24_which_line.py", size=4096, sweep=False),
    "ui_course_25_messages.json": lesson("25_threads_and_warps.py", sweep=False),
    "ui_course_28_messages.json": lesson("28_where_the_time_goes.py", sweep=False),
    "ui_course_29_messages.json": lesson("29_memory_at_the_peak.py", size=4096, sweep=False),
    # Lesson 31: a variant compiled with the default's arguments, whose FX graph cache hits the prediction asks.
    "ui_course_31_messages.json": lesson("31_a_second_compile.py", sweep=False),
    # Lesson 32: a max-autotune variant, whose count of tuned operations the prediction asks.
    "ui_course_32_messages.json": lesson("32_autotune.py", sweep=False),
}
"""Each fixture: the scenario it records (relative to ``tests/data``) and how it is run."""


def main(names: list[str]) -> None:
    unknown = [name for name in names if name not in FIXTURES]
    if unknown:
        sys.exit(f"no such fixture: {', '.join(unknown)} (one of {', '.join(FIXTURES)})")
    with EngineClient("cpu", stderr_sink=lambda line: None) as client:
        for out in names or FIXTURES:
            scenario, options = FIXTURES[out]
            record(client, scenario, out, **options)


if __name__ == "__main__":
    main(sys.argv[1:])
