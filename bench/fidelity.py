"""Fidelity: the engine's timing against an independent timer of the same callables, alternated in one process.

At three sizes, eager and compiled add+relu are timed by the engine's own method (``compare_calls``, what
the kernel tables and the sweep report) and by a plain ``torch.utils.benchmark`` ``blocked_autorange`` with
the same thread count, alternating engine, reference, engine, reference, so that whatever the shared
machine does hits both alike. The figure is the median over the rounds of engine/reference per size and
mode. Target: every ratio within 0.9 to 1.1.
"""

from __future__ import annotations

import functools
import statistics

from common import REPO  # noqa: F401 - sets the shared Inductor cache before torch compiles anything

SIZES = [2**14, 2**18, 2**22]
ROUNDS = 5


def measure() -> dict[str, object]:
    import torch
    import torch.utils.benchmark as benchmark

    from kernel_tui.engine.compiler.torch_settings import configure_torch
    from kernel_tui.engine.counting.timing import compare_calls
    from kernel_tui.model.report.report_keys import MODES

    configure_torch("cpu")

    def fn(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return (a + b).relu()

    compiled = torch.compile(fn)
    ratios: dict[str, float] = {}
    for size in SIZES:
        a, b = torch.randn(size), torch.randn(size)
        eager_call, compiled_call = functools.partial(fn, a, b), functools.partial(compiled, a, b)
        compiled_call()
        engine: dict[str, list[float]] = {mode: [] for mode in MODES}
        reference: dict[str, list[float]] = {mode: [] for mode in MODES}
        for _ in range(ROUNDS):
            comparison = compare_calls(eager_call, compiled_call, "cpu", budget_s=0.2)
            engine["eager"].append(comparison.first.median_us)
            engine["compiled"].append(comparison.second.median_us)
            for mode, call in zip(MODES, (eager_call, compiled_call)):
                timer = benchmark.Timer("call()", globals={"call": call}, num_threads=torch.get_num_threads())
                reference[mode].append(timer.blocked_autorange(min_run_time=0.1).median * 1e6)
        for mode in MODES:
            per_round = [ours / theirs for ours, theirs in zip(engine[mode], reference[mode])]
            ratios[f"{mode} 2^{size.bit_length() - 1}"] = statistics.median(per_round)
    worst = max(ratios.values(), key=lambda r: abs(r - 1))
    return {
        "name": "fidelity: engine timing / independent torch.utils.benchmark, alternated in one process, add+relu",
        "value": ", ".join(f"{key} {ratio:.2f}" for key, ratio in ratios.items()),
        "ratio": worst,
        "target": "each within 0.9–1.1",
        "met": all(0.9 <= r <= 1.1 for r in ratios.values()),
        "cause": "both timers alternate in one process, so what is left is the machine changing speed within "
        "a round (another process taking one of the two cores for part of it)",
    }


if __name__ == "__main__":
    print(measure())
